// The model input and the cut plan built from the reachable tail equal the ones built from the whole branch, on random trees with capsules, pins, system updates and rewinds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { modelInputFromLeaf, reachableTail } from '../../../src/engine/transcript/tail.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { BranchReader } from '../../../src/engine/compaction/branchReader.js';
import type { TranscriptStore } from '../../../src/engine/ports.js';
import { planCut, type CompactionLevel } from '../../../src/engine/compaction/cut.js';
import { rewindStep, type SharedStep, toggleStep, TreeBuilder } from '../../support/randomTree.js';

type Op =
  | { readonly k: 'user' | 'answer' | 'calls' | 'result' | 'base' | 'append' | 'checkpoint' }
  | { readonly k: 'capsule'; readonly keep: number; readonly pins: readonly number[]; readonly bogusKeep: boolean; readonly truncate: boolean }
  | Extract<SharedStep, { readonly k: 'rewind' | 'toggle' }>;

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Op>({ k: 'user' }, { k: 'answer' }, { k: 'calls' }, { k: 'result' }) },
  { weight: 2, arbitrary: fc.constantFrom<Op>({ k: 'base' }, { k: 'append' }, { k: 'checkpoint' }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('capsule' as const),
      keep: fc.nat(30),
      pins: fc.array(fc.nat(40), { maxLength: 3 }),
      bogusKeep: fc.boolean(),
      truncate: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: rewindStep(25) },
  { weight: 1, arbitrary: toggleStep },
);

/** Builds a session tree from the ops: entries go under the current leaf; a rewind moves the leaf back along its branch. */
function sessionOf(ops: readonly Op[]): SessionTree {
  const b = new TreeBuilder(1);
  for (const o of ops) {
    switch (o.k) {
      case 'user':
        b.add({ type: 'user', content: `ask ${b.n}` });
        break;
      case 'calls':
        b.add({ type: 'assistant', content: '', toolCalls: [{ id: `c${b.n}`, name: 'read_file', arguments: '{}' }] });
        break;
      case 'base':
      case 'append':
        b.add({ type: 'system_update', mode: o.k, content: `${o.k} ${b.n}`, ...(b.n % 2 === 0 ? { reason: 'src' } : {}) });
        break;
      case 'answer':
      case 'result':
      case 'checkpoint':
        b.step({ k: o.k });
        break;
      case 'capsule':
        b.capsule({
          firstKeptEntryId: o.bogusKeep ? 'e_missing' : (b.back(o.keep)?.id ?? null),
          pinnedEntryIds: o.pins.flatMap((p) => b.back(p)?.id ?? []),
          tokensBefore: 10,
          tokensAfter: 5,
          truncateResults: o.truncate,
          checkpointId: `ck_${b.n}`,
        });
        break;
      case 'rewind':
      case 'toggle':
        b.step(o);
        break;
    }
  }
  return b.tree;
}

test('modelInputFromLeaf equals buildModelInput of the whole branch, for every leaf of random trees', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), (ops) => {
      const tree = sessionOf(ops);
      for (const e of tree.entries()) {
        if (e.type === 'leaf') continue;
        const full = buildModelInput(tree.branch(e.id), 'DEFAULT');
        assert.deepEqual(modelInputFromLeaf(tree, e.id, 'DEFAULT').input, full, `leaf ${e.id}`);
      }
      assert.deepEqual(modelInputFromLeaf(tree, tree.leafId, 'DEFAULT').input, buildModelInput(tree.branch(), 'DEFAULT'));
    }),
    { numRuns: 300 },
  );
});

test('a cut planned from the reachable tail equals the cut planned from the whole branch, at every leaf and level', () => {
  // The barrier plans compactions from the tail; the span, the previous capsule, the pins and the truncation
  // savings must come out the same as from the root-first branch.
  const tokensOf = (e: Entry): number => JSON.stringify(e).length;
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), fc.nat(400), fc.constantFrom<CompactionLevel>(0, 1, 2, 3), (ops, keep, level) => {
      const tree = sessionOf(ops);
      for (const e of tree.entries()) {
        if (e.type === 'leaf') continue;
        const args = { tokensOf, keepRecentTokens: keep, level };
        assert.deepEqual(planCut({ ...args, branch: reachableTail(tree, e.id) }), planCut({ ...args, branch: tree.branch(e.id) }), `leaf ${e.id}`);
      }
    }),
    { numRuns: 200 },
  );
});

test("the tail stops at the latest capsule's first kept entry once a base is behind it", () => {
  const ops: Op[] = [{ k: 'base' }];
  for (let i = 0; i < 500; i++) ops.push({ k: 'user' }, { k: 'answer' });
  ops.push({ k: 'capsule', keep: 3, pins: [], bogusKeep: false, truncate: false }, { k: 'base' }, { k: 'user' });
  const tree = sessionOf(ops);
  const tail = reachableTail(tree, tree.leafId);
  assert.equal(tail.length, 7, 'first kept + 3 after it, the capsule, the new base and the new ask');
  assert.equal(tree.branch().length, 1004);
});

test("BranchReader follows appends, rewinds and branch switches, with its own index or the store's", () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 80 }), fc.array(op, { minLength: 1, maxLength: 40 }), fc.boolean(), (first, second, indexed) => {
      const all = sessionOf([...first, ...second]).entries();
      const cut = sessionOf(first).entries().length;
      let current = SessionTree.from(all.slice(0, cut));
      const store = {
        entries: () => current.entries(),
        leafId: () => current.leafId,
        ...(indexed ? { get: (id: string) => current.get(id) } : {}),
      } as unknown as TranscriptStore;
      const reader = new BranchReader(store);
      for (let visible = cut; visible <= all.length; visible += 7) {
        current = SessionTree.from(all.slice(0, visible));
        assert.deepEqual(buildModelInput(reader.tail(), 'D'), buildModelInput(current.branch(), 'D'));
        assert.deepEqual(reader.branch(), current.branch());
        assert.deepEqual(reader.entries(), current.entries());
      }
    }),
    { numRuns: 100 },
  );
});

test('an undone capsule does not end the walk: the tail reaches the history it had summarized', () => {
  const ts = '2025-01-01T00:00:00.000Z';
  const tree = SessionTree.from([
    { type: 'system_update', id: 'b', parentId: null, timestamp: ts, mode: 'base', content: 'sys' },
    { type: 'user', id: 'u1', parentId: 'b', timestamp: ts, content: 'first' },
    { type: 'assistant', id: 'a1', parentId: 'u1', timestamp: ts, content: 'one', toolCalls: [] },
    { type: 'system_update', id: 'b2', parentId: 'a1', timestamp: ts, mode: 'base', content: 'sys 2' },
    { type: 'user', id: 'u2', parentId: 'b2', timestamp: ts, content: 'second' },
    {
      type: 'capsule',
      id: 'c',
      parentId: 'u2',
      timestamp: ts,
      summary: 'S',
      firstKeptEntryId: 'u2',
      pinnedEntryIds: [],
      tokensBefore: 9,
      tokensAfter: 3,
      trigger: 'user',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: 'ck_c',
      details: {},
    },
    { type: 'compaction_undo', id: 'x', parentId: 'c', timestamp: ts, capsuleId: 'c', checkpointId: 'ck_c', action: 'undo' },
  ]);
  const { input } = modelInputFromLeaf(tree, 'x', 'default');
  assert.deepEqual(input, buildModelInput(tree.branch('x'), 'default'));
  assert.deepEqual(input.entryIds, ['u1', 'a1', 'u2']);
});
