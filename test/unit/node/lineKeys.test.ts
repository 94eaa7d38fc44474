// The compact index's key reader: on any valid JSON line it reads the same id, parent, kind and subagent mark as JSON.parse, or leaves the line to be judged whole; lines in the order Capsule writes are always read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { KeyReader, lineKeys } from '../../../src/node/lineKeys.js';

const text = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 200 }), fc.constantFrom('a"b', 'c\\d', '\\"', 'é✓', '"subagent"'));
const idText = fc.oneof(
  fc.stringMatching(/^e_[a-z0-9]{1,20}$/),
  text.filter((s) => s.length > 0),
);

function keysOf(line: string): ReturnType<typeof lineKeys> {
  const buf = Buffer.from(`xx${line}\n{"id":"after"}`, 'utf8');
  return lineKeys(buf, 2, 2 + Buffer.byteLength(line));
}

test('on valid JSON the keys read are JSON.parse’s, whatever the order of the keys', () => {
  fc.assert(
    fc.property(
      idText,
      fc.option(idText, { nil: null }),
      fc.constantFrom('user', 'assistant', 'tool_result', 'checkpoint'),
      fc.option(fc.record({ id: idText, toolCallId: idText }), { nil: undefined }),
      fc.dictionary(fc.constantFrom('content', 'timestamp', 'toolCalls', 'extra', 'usage'), fc.jsonValue({ maxDepth: 3 })),
      fc.nat(),
      (id, parentId, type, subagent, rest, seed) => {
        const pairs: [string, unknown][] = [['id', id], ['parentId', parentId], ['type', type], ...Object.entries(rest)];
        if (subagent !== undefined) pairs.push(['subagent', subagent]);
        // A shuffle of the keys (a foreign writer's order): the mark may come after the kind.
        for (let i = pairs.length - 1; i > 0; i--) {
          const j = (seed + i * 7919) % (i + 1);
          [pairs[i], pairs[j]] = [pairs[j] as [string, unknown], pairs[i] as [string, unknown]];
        }
        const line = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
        const parsed = JSON.parse(line) as { id: string; parentId: string | null; type: string; subagent?: unknown };
        const keys = keysOf(line);
        if (keys === undefined) return;
        assert.equal(keys.id, parsed.id);
        assert.equal(keys.parentId, parsed.parentId);
        assert.equal(keys.type, parsed.type);
        assert.equal(keys.subagent, parsed.subagent !== undefined && parsed.subagent !== null);
      },
    ),
    { numRuns: 500 },
  );
});

test('a line in the order Capsule writes is always read, its mark included, without reading past its end', () => {
  fc.assert(
    fc.property(idText, fc.option(idText, { nil: null }), fc.boolean(), text, (id, parentId, marked, content) => {
      const entry = {
        id,
        parentId,
        timestamp: '2026-12-02T00:00:00.000Z',
        ...(marked ? { subagent: { id: 'sa_1', toolCallId: 'call_1' } } : {}),
        type: 'assistant',
        content,
        toolCalls: [{ id: 'c1', name: 'skill', arguments: '{"name":"x"}' }],
      };
      const keys = keysOf(JSON.stringify(entry));
      assert.deepEqual(keys, { id, parentId, type: 'assistant', subagent: marked, maybeSkill: true });
    }),
    { numRuns: 300 },
  );
});

test('what is not plainly an entry object is left to be judged whole', () => {
  for (const line of ['[1,2]', '{"id":1,"parentId":null,"type":"user"}', '{"id":"a","type":"user"}', '{"id":"a","parentId":null,"type":"user"', '"x"']) {
    assert.equal(keysOf(line), undefined, line);
  }
});

test('a reader over a chunk of many lines reads each the same as lineKeys does alone, marks and skill names included', () => {
  const line = fc.record({
    id: idText,
    parent: fc.oneof(fc.constant('prev'), fc.constant(null), idText),
    type: fc.constantFrom('user', 'assistant', 'tool_result', 'capsule'),
    content: text,
    mark: fc.constantFrom('none', 'before', 'after'),
    tool: fc.constantFrom('read_file', 'skill', '\\u0073kill'),
  });
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), fc.nat({ max: 40 }), (lines, tailBytes) => {
      let prev: string | undefined;
      const texts = lines.map((l) => {
        const parentId = l.parent === 'prev' ? (prev ?? null) : l.parent;
        prev = l.id;
        const calls = `[{"id":"c1","name":"${l.tool}","arguments":"{}"}]`;
        const mark = '"subagent":{"id":"sa_1","toolCallId":"c9"}';
        const head = `"id":${JSON.stringify(l.id)},"parentId":${JSON.stringify(parentId)}`;
        const body = `"type":${JSON.stringify(l.type)},"content":${JSON.stringify(l.content)},"toolCalls":${calls}`;
        return `{${head}${l.mark === 'before' ? `,${mark}` : ''},${body}${l.mark === 'after' ? `,${mark}` : ''}}`;
      });
      // The chunk holds the lines, then bytes past what was read (a needle there must not count).
      const joined = Buffer.from(`${texts.join('\n')}\n`, 'utf8');
      const chunk = Buffer.concat([joined, Buffer.from('"subagent""skill"\\u'.repeat(tailBytes % 3)).subarray(0, tailBytes)]);
      const reader = new KeyReader();
      reader.chunk(chunk, joined.length);
      let start = 0;
      for (const t of texts) {
        const end = start + Buffer.byteLength(t);
        assert.deepEqual(reader.read(chunk, start, end), lineKeys(chunk, start, end), t);
        start = end + 1;
      }
    }),
    { numRuns: 400 },
  );
});
