// Tool names providers accept, schemas normalized ($ref cycles, missing type), and results converted (text, images, links, structuredContent, isError).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcpToolName, NAME_PATTERN, nameTools } from '../../../src/node/mcp/toolNames.js';
import { normalizeSchema } from '../../../src/node/mcp/schemaNormalize.js';
import { convertResult } from '../../../src/node/mcp/results.js';

test('names: mcp__<server>__<tool>, sanitized, at most 64 characters, unique, deterministic', () => {
  assert.equal(mcpToolName('github', 'search_issues'), 'mcp__github__search_issues');
  assert.equal(mcpToolName('my server', 'get.v2'), 'mcp__my_server__get_v2');
  const long = mcpToolName('s', 'x'.repeat(100));
  assert.equal(long.length, 64);
  assert.match(long, NAME_PATTERN);
  const pairs = [
    { server: 'a', tool: 'my tool.v2' },
    { server: 'a', tool: 'my_tool_v2' },
    { server: 'b', tool: 'echo' },
    { server: 'a', tool: 'echo' },
    { server: 'a', tool: 'ünïcode' },
  ];
  const named = nameTools(pairs);
  for (const n of named) assert.match(n.name, NAME_PATTERN);
  assert.equal(new Set(named.map((n) => n.name)).size, named.length, 'no two tools share a name');
  assert.deepEqual(nameTools([...pairs].reverse()), named, 'the same names whatever order the servers answered in');
  assert.ok(named.some((n) => n.name === 'mcp__a__echo') && named.some((n) => n.name === 'mcp__b__echo'), 'two servers with the same tool name');
});

test('schemas: $ref cycles are cut, local refs inlined, $schema dropped, a missing or wrong type becomes an object', () => {
  const cyclic = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $defs: { node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
    properties: { root: { $ref: '#/$defs/node' } },
  };
  const n = normalizeSchema(cyclic);
  const text = JSON.stringify(n);
  assert.equal(n.type, 'object');
  assert.ok(!text.includes('"$ref"') && !text.includes('"$defs"') && !text.includes('"$schema"'), text);
  assert.match(text, /recursive reference #\/\$defs\/node/);
  assert.ok(text.length < 5000, 'a cycle does not blow up');
  assert.deepEqual(normalizeSchema({ properties: { a: { type: 'string' } } }), { type: 'object', properties: { a: { type: 'string' } } });
  assert.deepEqual(normalizeSchema({ type: 'string' }), { type: 'object', properties: {} });
  assert.deepEqual(normalizeSchema(undefined), { type: 'object', properties: {} });
  assert.match(JSON.stringify(normalizeSchema({ properties: { a: { $ref: 'https://elsewhere/x.json' } } })), /unresolved reference/);
  assert.deepEqual(cyclic.properties.root, { $ref: '#/$defs/node' }, 'the input is not modified');
});

test('results: text, image placeholder naming the archive id, resource links, embedded resources, structuredContent once, isError', () => {
  const r = convertResult(
    {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'mem://x', text: 'inline text' } },
      ],
      structuredContent: { answer: 42, extra: 'not in text' },
    },
    'res_abc',
  );
  assert.match(r.text, /^hello\n\[image image\/png, 5 bytes: not shown; the original is archived as res_abc\]/);
  assert.match(r.text, /\[resource link\] a\.txt: file:\/\/\/a\.txt \(text\/plain\)/);
  assert.match(r.text, /\[resource mem:\/\/x\]\ninline text/);
  assert.match(r.text, /structuredContent: \{"answer":42,"extra":"not in text"\}/);
  assert.equal(r.binaries.length, 1);
  const same = convertResult({ content: [{ type: 'text', text: '[FILE] a.txt' }], structuredContent: { content: '[FILE] a.txt' } });
  assert.equal(same.text, '[FILE] a.txt', 'structured data already in the text is not repeated');
  const err = convertResult({ content: [{ type: 'text', text: 'boom' }], isError: true });
  assert.deepEqual([err.isError, err.text], [true, 'boom']);
  assert.equal(convertResult({ content: [], isError: true }).text, 'The tool reported an error without a message.');
});
