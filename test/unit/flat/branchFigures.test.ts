// The running branch figures equal a fold of the whole branch after any appends, rewinds and undo events, and the budget read from the leaf equals the one built from the root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolveSettings } from '../../../src/engine/config.js';
import { compactionSavings } from '../../../src/engine/tokens/budget.js';
import { requestFingerprint } from '../../../src/engine/tokens/calibration.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { FiguresFold } from '../../../src/engine/transcript/branchFigures.js';
import { sinceLastAnswer } from '../../../src/engine/transcript/tail.js';
import { unansweredAtLeaf } from '../../../src/engine/transcript/repair.js';
import type { SessionTree } from '../../../src/engine/transcript/tree.js';
import { budgetOf, budgetOfLeaf, type BudgetBasis } from '../../../src/node/sessionBudget.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { type Draft, rewindStep, type SharedStep, toggleStep, TreeBuilder } from '../../support/randomTree.js';

/** The prefix of a request with the default system prompt and no tools: answers carrying it calibrate the budget. */
const FINGERPRINT = requestFingerprint('p', 'gpt-4o', 'DEFAULT', []);

type Op =
  | { readonly k: 'user' | 'answer' | 'calls' | 'result' | 'base' | 'model' | 'checkpoint' | 'sub' | 'read' }
  | { readonly k: 'capsule'; readonly keep: number; readonly saved: number }
  | Extract<SharedStep, { readonly k: 'rewind' | 'toggle' }>;

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Op>({ k: 'user' }, { k: 'answer' }, { k: 'calls' }, { k: 'result' }) },
  { weight: 3, arbitrary: fc.constantFrom<Op>({ k: 'base' }, { k: 'model' }, { k: 'checkpoint' }, { k: 'sub' }, { k: 'read' }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('capsule' as const), keep: fc.nat(20), saved: fc.integer({ min: -50, max: 500 }) }) },
  { weight: 1, arbitrary: rewindStep(25) },
  { weight: 1, arbitrary: toggleStep },
);

/** Plays the ops on a tree; `check` runs at every `read` op (so the figures are read at random moments, lazily rebuilt or not). */
function play(ops: readonly Op[], check: (tree: SessionTree) => void): SessionTree {
  const b = new TreeBuilder();
  for (const o of ops) {
    switch (o.k) {
      case 'read':
        check(b.tree);
        break;
      case 'user':
        b.add({ type: 'user', content: `ask ${b.n} `.repeat(1 + (b.n % 5)) });
        break;
      case 'answer':
        b.add({
          type: 'assistant',
          content: `answer ${b.n}`,
          toolCalls: [],
          ...(b.n % 3 === 0 ? { usage: { promptTokens: 100 + b.n, completionTokens: 5 }, prefixFingerprint: FINGERPRINT } : {}),
        });
        break;
      case 'calls':
        b.add({
          type: 'assistant',
          content: '',
          toolCalls: [
            { id: `c${b.n}`, name: 'read_file', arguments: '{}' },
            { id: `d${b.n}`, name: 'read_file', arguments: '{}' },
          ],
        });
        break;
      case 'base':
        b.add({ type: 'system_update', mode: 'base', content: `base ${b.n}` });
        break;
      case 'result':
      case 'model':
      case 'checkpoint':
        b.step({ k: o.k });
        break;
      case 'sub':
        // A subagent's entry: a side branch that leaves the session's leaf where it was.
        b.add({ type: 'user', content: 'sub task', subagent: { id: 'sa_1', toolCallId: 'c0' } } as Draft);
        break;
      case 'capsule':
        b.capsule({ firstKeptEntryId: b.back(o.keep)?.id ?? null, tokensAfter: 1000 - o.saved, checkpointId: `ck_${b.n}` });
        break;
      case 'rewind':
      case 'toggle':
        b.step(o);
        break;
    }
  }
  check(b.tree);
  return b.tree;
}

test('the running figures equal a fold of the whole branch, whenever they are read', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 150 }), (ops) => {
      play(ops, (tree) => {
        const branch = tree.branch();
        const running = tree.figures();
        const walked = FiguresFold.of(branch);
        assert.deepEqual({ ...FiguresFold.prototype.snapshot.call(running) }, walked.snapshot());
        assert.equal(running.saved, compactionSavings(branch), 'the savings are those compactionSavings finds');
        assert.equal(
          running.model,
          [...branch].reverse().find((e) => e.type === 'model_change'),
        );
        assert.deepEqual(unansweredAtLeaf(sinceLastAnswer(tree, tree.leafId)), unansweredAtLeaf(branch), 'open calls found from the leaf');
      });
    }),
    { numRuns: 300 },
  );
});

test('the budget read from the leaf equals the budget built from the whole branch', () => {
  const info = resolveModelInfo('gpt-4o', { override: { contextWindow: 2_000, maxOutputTokens: 200 } });
  const basis: BudgetBasis = {
    model: info,
    provider: 'p',
    tools: [],
    resolved: resolveSettings({ raw: { keepRecentTokens: 100, minReclaimableTokens: 10, safetyReserveTokens: 50 }, env: {}, model: info }),
    cache: new EntryTokenCache(counterForModel('gpt-4o')),
    system: 'DEFAULT',
  };
  const sources = new Set<string>();
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 150 }), (ops) => {
      play(ops, (tree) => {
        const store = { get: (id: string) => tree.get(id), leafId: () => tree.leafId, figures: () => tree.figures() };
        const b = budgetOf(tree.branch(), basis, 1_800_000_000_000);
        assert.deepEqual(budgetOfLeaf(store, basis, 1_800_000_000_000), b);
        sources.add(b.source);
      });
    }),
    { numRuns: 200 },
  );
  assert.deepEqual([...sources].sort(), ['estimated', 'provider_usage'], 'both the estimate and the calibrated figure were compared');
});
