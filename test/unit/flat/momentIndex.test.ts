// The incremental moment index (and the branch line under it) equals a fold of the whole tree after any appends, rewinds, edits and undo events, whenever it is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { spanSinceCapsule } from '../../../src/engine/compaction/cut.js';
import { EMPTY_LEDGER, planOfBranch } from '../../../src/engine/compaction/ledger.js';
import { planFigureOf } from '../../../src/engine/compaction/planFigure.js';
import { lineOf } from '../../../src/engine/transcript/branchLine.js';
import { MomentIndex } from '../../../src/engine/transcript/momentIndex.js';
import { momentsOf, PROMPT_LOOKBACK } from '../../../src/engine/transcript/moments.js';
import type { SessionTree } from '../../../src/engine/transcript/tree.js';
import { type Draft, toggleStep, TreeBuilder } from '../../support/randomTree.js';

type Op =
  | { readonly k: 'turn' | 'answer' | 'usage' | 'checkpoint' | 'compaction' | 'sub' | 'read' | 'model' | 'plan' | 'badPlan' }
  | { readonly k: 'rewind' | 'edit'; readonly back: number }
  | { readonly k: 'toggle'; readonly back: number; readonly redo: boolean }
  | { readonly k: 'capsule'; readonly keep: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Op>({ k: 'turn' }, { k: 'answer' }, { k: 'usage' }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Op>({ k: 'checkpoint' }, { k: 'compaction' }, { k: 'sub' }, { k: 'read' }, { k: 'model' }, { k: 'plan' }, { k: 'badPlan' }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('capsule' as const), keep: fc.nat(12) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constantFrom('rewind' as const, 'edit' as const), back: fc.nat(20) }) },
  { weight: 1, arbitrary: toggleStep },
);

/** Plays the ops on a tree; `check` runs at every `read` op and at the end. */
function play(ops: readonly Op[], check: (tree: SessionTree) => void): void {
  const b = new TreeBuilder();
  const capsule = (checkpointId: string, keep: number): void => {
    const first = b.tree.branch()[0];
    b.capsule({
      firstKeptEntryId: b.back(keep)?.id ?? null,
      pinnedEntryIds: first === undefined ? [] : [first.id],
      checkpointId,
      details: b.n % 2 === 0 ? { ledger: { ...EMPTY_LEDGER, plan: [{ step: `from capsule ${b.n}`, status: 'pending' }] } } : {},
    });
  };
  for (const o of ops) {
    switch (o.k) {
      case 'read':
        check(b.tree);
        break;
      case 'turn': {
        // A message with its own checkpoint, as the chat sends one.
        const ck = b.add({ type: 'checkpoint', checkpointId: `ck_${b.n}`, kind: 'auto', forEntryId: `e${b.n + 2}` });
        b.add({ type: 'user', content: `ask ${b.n}` }, ck);
        break;
      }
      case 'answer':
      case 'model':
        b.step({ k: o.k });
        break;
      case 'usage':
        b.add({ type: 'assistant', content: `answer ${b.n}`, toolCalls: [], usage: { promptTokens: 100 + b.n, completionTokens: 5 } });
        break;
      case 'checkpoint':
        b.add({ type: 'checkpoint', checkpointId: `ck_${b.n}`, kind: b.n % 2 === 0 ? 'milestone' : 'user', note: `note ${b.n}` });
        break;
      case 'compaction': {
        // A compaction's own checkpoint first, then its capsule: only the compaction is a row.
        const id = `ck_${b.n}`;
        b.add({ type: 'checkpoint', checkpointId: id, kind: 'auto' });
        capsule(id, 3);
        break;
      }
      case 'capsule':
        capsule(`ck_${b.n}`, o.keep);
        break;
      case 'plan':
      case 'badPlan': {
        const call = `c${b.n}`;
        b.add({
          type: 'assistant',
          content: '',
          toolCalls: [{ id: call, name: 'update_plan', arguments: JSON.stringify({ plan: [{ step: `step ${b.n}`, status: 'in_progress' }] }) }],
        });
        b.add({ type: 'tool_result', toolCallId: call, toolName: 'update_plan', content: 'ok', isError: o.k === 'badPlan' });
        break;
      }
      case 'sub':
        b.add({ type: 'checkpoint', checkpointId: `ck_sub${b.n}`, kind: 'milestone', subagent: { id: 'sa_1', toolCallId: 'c0' } } as Draft);
        break;
      case 'rewind':
        b.step({ k: 'rewind', back: o.back });
        break;
      case 'edit': {
        // A message sent from an earlier point without a leaf entry: the tree moves the leaf to it.
        const at = b.back(o.back);
        if (at !== undefined) b.add({ type: 'user', content: `edited ${b.n}` }, at.id);
        break;
      }
      case 'toggle':
        b.step(o);
        break;
    }
  }
  check(b.tree);
}

test('the moment index equals momentsOf of the whole tree, whenever it is read', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), fc.nat(5), (ops, pageSize) => {
      // One index lives across the whole play, as the tree view's does.
      let index: MomentIndex | undefined;
      play(ops, (tree) => {
        index ??= new MomentIndex(tree);
        const own = tree.entries().filter((e) => e.subagent === undefined);
        const branch = tree.branch();
        const want = momentsOf(own, branch);
        assert.deepEqual(index.active(), want.active);
        assert.equal(index.count, want.active.length);
        assert.deepEqual(index.other(), want.other);
        assert.equal(index.otherCount, want.other.length);
        // Pages put together are the whole list.
        const size = pageSize + 1;
        const pages = [];
        for (let from = 0; from < index.count; from += size) pages.push(...index.active(from, from + size));
        assert.deepEqual(pages, want.active);
        const live = new Set(spanSinceCapsule(branch).span.map((e) => e.id));
        const summarized = index.summarizedTest();
        for (const m of want.active) if (m.message !== undefined) assert.equal(summarized(m.message.id), !live.has(m.message.id), `summarized ${m.message.id}`);
      });
    }),
    { numRuns: 300 },
  );
});

test('the branch line and the running plan equal the walked branch, whenever they are read', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 120 }), (ops) => {
      play(ops, (tree) => {
        const branch = tree.branch();
        const line = lineOf(tree);
        assert.deepEqual(line.slice(0), branch);
        assert.deepEqual(planFigureOf(tree).plan(), planOfBranch(branch));
        for (let p = 0; p <= branch.length; p++) {
          const model = branch
            .slice(0, p)
            .reverse()
            .find((e) => e.type === 'model_change');
          assert.equal(line.modelBefore(p), model, `model before ${p}`);
          const users = branch.flatMap((e, i) => (e.type === 'user' ? [i] : []));
          assert.equal(line.messageAtOrBefore(p), users.filter((i) => i <= p).at(-1) ?? 0);
          assert.equal(
            line.messageAfter(p),
            users.find((i) => i > p),
          );
        }
      });
    }),
    { numRuns: 200 },
  );
});

test('a message shows the token figure of the latest answer with usage among the 64 before it, read the same by the index and the fold', () => {
  for (const [without, expected] of [
    [10, 1234],
    [PROMPT_LOOKBACK - 1, 1234],
    [PROMPT_LOOKBACK, undefined],
    [200, undefined],
  ] as const) {
    const b = new TreeBuilder();
    b.add({ type: 'user', content: 'first' });
    b.add({ type: 'assistant', content: 'measured', toolCalls: [], usage: { promptTokens: 1234, completionTokens: 5 } });
    // Answers that report no usage (an import, a provider that sends none): the figure does not reach back past 64.
    for (let i = 0; i < without; i++) b.add({ type: 'assistant', content: `unmeasured ${i}`, toolCalls: [] });
    b.add({ type: 'user', content: 'second' });
    const index = new MomentIndex(b.tree);
    const active = index.active();
    assert.equal(active.at(-1)?.tokens, expected, `${without} answers without usage`);
    assert.deepEqual(active, momentsOf(b.tree.entries(), b.tree.branch()).active);
  }
});
