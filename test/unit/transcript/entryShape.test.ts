// An entry the shape check passes is one the schema's parse accepts and gives back unchanged (same keys, same order, same values), so reading a session may skip the parse for it; anything else is left to the schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { schemaShaped } from '../../../src/engine/transcript/entryShape.js';
import { EntrySchema } from '../../../src/engine/transcript/schema.js';
import { judgeLine } from '../../../src/node/sessionLoad.js';

/** Values of every JSON kind, and the edges the schema draws for strings (empty, 200 and 201 units, 64 and 65). */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('', 'x', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(200), 'x'.repeat(201), 'base', 'append', 'other', 'sa_1', '2025-01-01T00:00:00.000Z'),
  fc.string(),
  fc.constantFrom(null, true, false, 0, 7, -1.5, undefined),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.record({ id: fc.constantFrom('', 'c1'), name: fc.constantFrom('', 'Bash'), arguments: fc.constantFrom('{}', 3) }), { maxLength: 3 }),
  fc.constant([{ id: 'c1', name: 'Bash', arguments: '{}', extra: 1 }]),
  fc.constant([{ name: 'Bash', id: 'c1', arguments: '{}' }]),
);

const KEYS: Readonly<Record<string, readonly string[]>> = {
  user: ['id', 'parentId', 'timestamp', 'type', 'content', 'injected'],
  assistant: ['id', 'parentId', 'timestamp', 'type', 'content', 'toolCalls', 'model'],
  tool_result: ['id', 'parentId', 'timestamp', 'type', 'toolCallId', 'toolName', 'content', 'isError', 'interrupted'],
  system_update: ['id', 'parentId', 'timestamp', 'type', 'mode', 'content', 'reason'],
  leaf: ['id', 'parentId', 'timestamp', 'type', 'targetId', 'reason'],
  checkpoint: ['id', 'parentId', 'timestamp', 'type', 'checkpointId', 'kind'],
};

/** A valid value for each key, so that most generated entries are close to valid and the edges are what varies. */
const GOOD: Readonly<Record<string, unknown>> = {
  id: 'e1',
  parentId: null,
  timestamp: '2025-01-01T00:00:00.000Z',
  content: 'hello',
  injected: true,
  toolCalls: [{ id: 'c1', name: 'Bash', arguments: '{}' }],
  model: 'm',
  toolCallId: 'c1',
  toolName: 'Bash',
  isError: false,
  interrupted: true,
  mode: 'base',
  reason: 'why',
  targetId: 'e0',
  checkpointId: 'ck_1',
  kind: 'auto',
};

/** `arb` once in `n` draws, else null. */
const rarely = <T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight: n - 1 }, { arbitrary: arb, weight: 1 });

const ID_EDGES = ['', 'x'.repeat(200), 'x'.repeat(201), 7];
/** Per key, values on either side of what the schema accepts. */
const EDGES: Readonly<Record<string, readonly unknown[]>> = {
  id: ID_EDGES,
  parentId: [...ID_EDGES, null],
  targetId: [...ID_EDGES, null],
  timestamp: ['', 'x'.repeat(64), 'x'.repeat(65), 0],
  content: ['', 7, null, ['a']],
  injected: [true, false, 'yes', null],
  interrupted: [true, false, 'true', null],
  isError: [true, false, 0, null],
  mode: ['base', 'append', 'other', ''],
  toolCallId: ['', 'c', 7],
  toolName: ['', 'x', null],
  model: ['', 'm', 7],
  reason: ['', 'r', 7],
  toolCalls: [
    [],
    [{ id: '', name: 'x', arguments: '{}' }],
    [{ id: 'c', name: '', arguments: '{}' }],
    [{ id: 'c', name: 'x', arguments: 1 }],
    [{ id: 'c', name: 'x' }],
    [null],
    {},
  ],
};

/** An entry of a known type (or none) with its usual values, one or two of them changed, a key dropped, two swapped or one added now and then. */
const entryLike = fc
  .record({
    type: fc.constantFrom(...Object.keys(KEYS), 'nonsense'),
    drop: rarely(fc.nat(8), 8),
    changes: fc.array(fc.tuple(fc.nat(8), fc.nat(), fc.boolean(), anyValue), { maxLength: 2 }),
    swap: rarely(fc.tuple(fc.nat(8), fc.nat(8)), 6),
    extra: rarely(fc.constantFrom('stray', 'subagent', 'images', 'effects'), 6),
  })
  .map(({ type, drop, changes, swap, extra }) => {
    const keys = [...(KEYS[type] ?? KEYS['user'] ?? [])];
    if (swap !== null) {
      const [a, b] = swap;
      if (a < keys.length && b < keys.length) [keys[a], keys[b]] = [keys[b] ?? '', keys[a] ?? ''];
    }
    const o: Record<string, unknown> = {};
    keys.forEach((k, i) => {
      if (i === drop) return;
      o[k] = k === 'type' ? type : GOOD[k];
      // A changed value: most often one at the schema's edge for this key, else any JSON value.
      const edges = EDGES[k] ?? [];
      for (const [at, pick, edge, any] of changes) if (at === i && k !== 'type') o[k] = edge && edges.length > 0 ? edges[pick % edges.length] : any;
    });
    if (extra !== null) o[extra] = extra === 'subagent' ? { id: 'sa_1', toolCallId: 'c1' } : 1;
    return o;
  });

test('what the shape check passes, the schema parses to the same entry; what it does not is left to the schema', () => {
  let shaped = 0;
  let valid = 0;
  fc.assert(
    fc.property(entryLike, (o) => {
      // As read from a line: JSON round trip (no undefined values, plain objects).
      const v = JSON.parse(JSON.stringify(o)) as unknown;
      const parsed = EntrySchema.safeParse(v);
      if (parsed.success) valid++;
      if (!schemaShaped(v)) return;
      shaped++;
      assert.ok(parsed.success, `the shape check passed what the schema refuses: ${JSON.stringify(v)}`);
      assert.equal(JSON.stringify(parsed.data), JSON.stringify(v));
      assert.deepEqual(parsed.data, v);
    }),
    { numRuns: 6000, seed: 20261203 },
  );
  // The generator reaches both sides: many shaped entries, and valid ones the check leaves to the schema.
  assert.ok(shaped > 400, `shaped ${shaped}`);
  assert.ok(valid > shaped, `valid ${valid}, shaped ${shaped}`);
});

test('a line of a common shape is read as the schema reads it, and a damaged one still gets the schema’s message', () => {
  const same = (v: unknown): void => {
    const verdict = judgeLine(JSON.stringify(v), (raw) => raw);
    const parsed = EntrySchema.safeParse(v);
    assert.equal(verdict.kind, parsed.success ? 'entry' : 'invalid');
    if (verdict.kind === 'entry' && parsed.success) assert.deepEqual(verdict.entry, parsed.data);
  };
  same({ id: 'e1', parentId: null, timestamp: 't', type: 'user', content: 'hi' });
  same({ id: 'e2', parentId: 'e1', timestamp: 't', type: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'Bash', arguments: '{}' }], model: 'm' });
  same({ id: 'e3', parentId: 'e2', timestamp: 't', type: 'tool_result', toolCallId: 'c', toolName: 'Bash', content: 'out', isError: false });
  // Stripped by the schema, defaulted, refused: the schema's path, with its message.
  same({ id: 'e4', parentId: 'e3', timestamp: 't', type: 'user', content: 'hi', stray: 1 });
  same({ id: '', parentId: null, timestamp: 't', type: 'user', content: 'hi' });
  const refused = judgeLine(JSON.stringify({ id: 'e5', parentId: null, timestamp: 't', type: 'user', content: 7 }), (raw) => raw);
  assert.equal(refused.kind, 'invalid');
  assert.match(refused.kind === 'invalid' ? refused.issues : '', /content/);
});
