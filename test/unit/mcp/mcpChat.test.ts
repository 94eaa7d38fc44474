// `capsule chat` with MCP servers from npm: a scripted model calls filesystem and everything tools; results, errors, images, huge results, writes measured on disk, list_changed.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { entries, mcpChat, mcpChatRig, requests } from './chatRig.js';

test('128k: the tools are offered directly; filesystem and everything calls answered; a write is measured on disk', async (t) => {
  const rig = await mcpChatRig(t, 128_000);
  await writeFile(join(rig.ws, 'notes.txt'), 'alpha beta');
  rig.server.enqueue(
    { toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: join(rig.ws, 'notes.txt') } }] },
    { toolCalls: [{ name: 'mcp__everything__echo', arguments: { message: 'hi there' } }] },
    { toolCalls: [{ name: 'mcp__fs__write_file', arguments: { path: join(rig.ws, 'made.txt'), content: 'made by mcp' } }] },
    { toolCalls: [{ name: 'mcp__everything__get-tiny-image', arguments: {} }] },
    { text: 'All done.' },
  );
  const r = await mcpChat(rig, 'use the tools');
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.ok(
    r.lines.some((l) => /^\[mcp\] starting 2 servers: everything, fs$/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.some((l) => /^\[mcp\] fs: ready, \d+ tools$/.test(l)));
  assert.ok(r.lines.includes('All done.'));
  const reqs = requests(rig.server);
  const first = reqs[0];
  assert.ok(first !== undefined);
  assert.ok(first.tools.includes('mcp__fs__read_text_file') && first.tools.includes('mcp__everything__echo'), 'schemas in the tool list');
  assert.ok(first.tools.includes('read_file'), 'built-in tools first');
  assert.ok(first.tools.indexOf('read_file') < first.tools.indexOf('mcp__everything__echo'));
  for (const q of reqs) assert.equal(q.toolsJson, first.toolsJson, 'the same tool list on every request');
  const results = (await entries(rig)).filter((e) => e.type === 'tool_result');
  assert.equal(results[0]?.content, 'alpha beta');
  assert.match(results[1]?.content ?? '', /hi there/);
  assert.equal(await readFile(join(rig.ws, 'made.txt'), 'utf8'), 'made by mcp');
  assert.deepEqual(results[2]?.effects?.created, ['made.txt'], 'the write is measured on disk');
  assert.match(results[3]?.content ?? '', /\[image image\/png, [\d.]+ (KB|bytes): not shown; the original is archived as res_[0-9a-f]+\]/);
});

test('errors reach the model: isError, a crash mid-call (then restarted), an unknown tool, a denied call', async (t) => {
  const rig = await mcpChatRig(t, 128_000, 'basic');
  rig.server.enqueue(
    { toolCalls: [{ name: 'mcp__h__fail', arguments: {} }] },
    { toolCalls: [{ name: 'mcp__h__crash', arguments: {} }] },
    { toolCalls: [{ name: 'mcp__h__echo', arguments: { text: 'after the crash' } }] },
    { toolCalls: [{ name: 'mcp__nope__x', arguments: {} }] },
    { text: 'Handled.' },
  );
  const r = await mcpChat(rig, 'try the hostile server');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const results = (await entries(rig)).filter((e) => e.type === 'tool_result');
  assert.deepEqual([results[0]?.isError, results[0]?.content], [true, 'something went wrong on the server']);
  assert.equal(results[1]?.isError, true);
  assert.match(results[1]?.content ?? '', /crashed during the call; it is being restarted/);
  assert.deepEqual([results[2]?.isError, results[2]?.content], [false, 'echo: after the crash']);
  assert.match(results[3]?.content ?? '', /Unknown MCP tool "mcp__nope__x"/);
  // Without --yes every call is refused, and the model is told.
  rig.server.enqueue({ toolCalls: [{ name: 'mcp__h__echo', arguments: { text: 'x' } }] }, { text: 'ok' });
  const lines: string[] = [];
  const { main } = await import('../../../src/cli/main.js');
  const code = await main(
    [
      'chat',
      '--base-url',
      rig.server.url,
      '--model',
      'fake-model',
      '--session',
      rig.session,
      '--workspace',
      rig.ws,
      '--window',
      '128000',
      '--mcp-config',
      rig.config,
      'again',
    ],
    (s) => lines.push(s),
  );
  assert.equal(code, 0);
  assert.ok(
    lines.some((l) => /^\[approval\] refused: Call echo on MCP server h/.test(l)),
    lines.join('\n'),
  );
  const last = (await entries(rig)).filter((e) => e.type === 'tool_result').pop();
  assert.match(last?.content ?? '', /The user denied mcp__h__echo/);
  assert.equal(last?.effects?.denied, true);
});

test('a 10 MB result is bounded at creation; the exact original pages through read_compaction_evidence', async (t) => {
  const rig = await mcpChatRig(t, 32_768, 'basic');
  let resultId = '';
  rig.server.enqueue({ toolCalls: [{ name: 'mcp_call', arguments: { name: 'mcp__h__big', arguments: { bytes: 10 * 1024 * 1024 } } }] });
  rig.server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    const text = typeof last?.content === 'string' ? last.content : '';
    const id = /"result": "(res_[0-9a-f]+)"/.exec(text)?.[1];
    if (id !== undefined && resultId === '') {
      resultId = id;
      return { toolCalls: [{ name: 'read_compaction_evidence', arguments: { result: id, page: 3 } }] };
    }
    return { text: 'Read it.' };
  });
  const r = await mcpChat(rig, 'get the big thing');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const results = (await entries(rig)).filter((e) => e.type === 'tool_result');
  const big = results[0]?.content ?? '';
  assert.ok(big.length < 40_000, `bounded: ${big.length} characters`);
  assert.match(big, /The result was 10485760 bytes; it was shortened to fit the context window/);
  assert.notEqual(resultId, '');
  assert.match(results[1]?.content ?? '', /^[\s\S]*x{1000}/, 'a page of the original');
  assert.equal(results[1]?.isError, false, results[1]?.content);
  for (const q of requests(rig.server)) assert.equal(q.status, 200);
});

test('list_changed mid-turn: one system update, the tool list and the system prefix unchanged, the new tool callable', async (t) => {
  const rig = await mcpChatRig(t, 128_000, 'basic');
  rig.server.enqueue(
    { toolCalls: [{ name: 'mcp__h__add_tool', arguments: {} }] },
    { toolCalls: [{ name: 'mcp_call', arguments: { name: 'mcp__h__late', arguments: {} } }] },
    { text: 'Used the new tool.' },
  );
  const r = await mcpChat(rig, 'add a tool and use it');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const reqs = requests(rig.server);
  assert.equal(reqs.length, 3);
  const [a, b] = reqs;
  assert.ok(a !== undefined && b !== undefined);
  assert.equal(b.toolsJson, a.toolsJson, 'the tool list is not rewritten');
  assert.ok(b.system.startsWith(a.system), 'the system prompt only grows at its end');
  assert.match(b.system.slice(a.system.length), /MCP tools added since your tool list was fixed[\s\S]*mcp__h__late/);
  const updates = (await entries(rig)).filter((e) => e.type === 'system_update' && e.reason === 'MCP tools');
  assert.equal(updates.length, 1, 'one chronological system update');
  const results = (await entries(rig)).filter((e) => e.type === 'tool_result');
  assert.equal(results[1]?.content, 'late tool ran');
});

test('200 tools on an 8k model: deferred behind an index that fits, a deep tool loaded and called, 0 requests over the window', async (t) => {
  const rig = await mcpChatRig(t, 8_192, 'many');
  rig.server.enqueue(
    { toolCalls: [{ name: 'mcp_tools', arguments: { names: ['mcp__h__tool_150'] } }] },
    { toolCalls: [{ name: 'mcp_call', arguments: { name: 'mcp__h__tool_150', arguments: { value: 'v' } } }] },
    { text: 'Called tool 150.' },
  );
  const r = await mcpChat(rig, 'call tool 150');
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.ok(r.lines.includes('Called tool 150.'));
  assert.ok(
    r.lines.some((l) => /^\[mcp\] h: ready, 207 tools$/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.some((l) => /^\[mcp\] MCP tool schemas: \d+ tokens .*; deferred/.test(l)));
  const reqs = requests(rig.server);
  for (const q of reqs) {
    assert.equal(q.status, 200);
    assert.ok(q.promptTokens + q.maxTokens <= 8_192);
    assert.ok(!q.tools.some((n) => n.startsWith('mcp__')), 'no MCP schema in the tool list');
  }
  assert.match(reqs[0]?.system ?? '', /server h/);
  const results = (await entries(rig)).filter((e) => e.type === 'tool_result');
  assert.match(results[0]?.content ?? '', /"name":"mcp__h__tool_150"/);
  assert.equal(results[1]?.content, 'ran tool_150');
});

test('odd tool names are sanitized, $ref cycles and missing types are normalized, before any request', async (t) => {
  const { McpHub } = await import('../../../src/node/mcp/hub.js');
  const { hostile } = await import('./mcpRig.js');
  const { NAME_PATTERN } = await import('../../../src/node/mcp/toolNames.js');
  const hub = new McpHub([hostile('n', 'names'), hostile('r', 'refs'), hostile('n2', 'basic')]);
  t.after(() => hub.stop());
  await hub.start();
  const cat = hub.catalog();
  for (const c of cat) assert.match(c.name, NAME_PATTERN);
  assert.equal(new Set(cat.map((c) => c.name)).size, cat.length);
  assert.ok(cat.some((c) => c.name === 'mcp__n__echo') && cat.some((c) => c.name === 'mcp__n2__echo'), 'two servers with the same tool name');
  const tree = cat.find((c) => c.tool === 'tree');
  assert.ok(tree !== undefined && !JSON.stringify(tree.schema.parameters).includes('"$ref"'));
  assert.equal(cat.find((c) => c.tool === 'notype')?.schema.parameters.type, 'object');
  const odd = cat.find((c) => c.tool === 'my tool.v2');
  assert.ok(odd !== undefined);
  assert.match(
    JSON.stringify((await hub.get('n')?.call(odd.tool, {}, new AbortController().signal))?.content),
    /ran my tool\.v2/,
    'called by its own name on the server',
  );
});
