// /budget (docs/behaviour.md#observability): the figures computeBudget derives from a branch, and the seed's "Context Stats" layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings, type ResolvedSettings } from '../../../src/engine/config.js';
import { averageTurnTokens, compactionSavings, computeBudget, savingsRatioOf, type Budget } from '../../../src/engine/tokens/budget.js';
import { formatBudget } from '../../../src/engine/tokens/budgetFormat.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { BranchBuilder } from './entries.js';

const SYSTEM = 'You are a coding agent.';
const SMALL = { minTokensForAutoCompact: 1000, autoCompactThresholdRatio: 0.5, keepRecentTokens: 100, minReclaimableTokens: 100, safetyReserveTokens: 1000 };

/** Three turns, a capsule, two more turns, a second capsule, one more turn. */
function branch(): BranchBuilder {
  const b = new BranchBuilder();
  for (let t = 0; t < 3; t++) b.user(`Task ${t}: fix the failing test in module ${t}.`).assistant(`Fixed module ${t}; the test passes now.`);
  b.capsule('## Goal\nFix tests.\n## Progress\n- Done: modules 0-2', 'e5');
  for (let t = 3; t < 5; t++) {
    b.user(`Task ${t}: run the suite.`).assistant('Running.', { toolCalls: [{ id: `c${t}`, name: 'run_command', arguments: '{"command":"npm test"}' }] });
    b.tool(`c${t}`, `${t * 10} passing`).assistant(`All ${t * 10} tests pass.`);
  }
  b.capsule('## Goal\nFix tests.\n## Progress\n- Done: modules 0-4, suite green', 'e12', { quality: 'degraded', checkpointId: 'ck_second' });
  b.user('Task 5: write the changelog.').assistant('Changelog written.');
  return b;
}

function budgetOf(b: BranchBuilder, opts: { window?: number; raw?: Record<string, unknown>; resolved?: ResolvedSettings; now?: number } = {}) {
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const resolved = opts.resolved ?? resolveSettings({ raw: { ...SMALL, ...opts.raw } });
  const model = resolveModelInfo('local-model', { override: { contextWindow: opts.window ?? 10_000, maxOutputTokens: 1000 } });
  const budget = computeBudget({ branch: b.entries, defaultSystem: SYSTEM, tools: [], model, provider: 'test', resolved, now: opts.now ?? b.lastTime, cache });
  return { budget, cache };
}

test('counts capsules, messages and turns on the branch, and describes the latest capsule', () => {
  const b = branch();
  const capsuleTime = Date.parse([...b.entries].reverse().find((e) => e.type === 'capsule')?.timestamp ?? '');
  const { budget, cache } = budgetOf(b, { now: capsuleTime + 125_000 });
  assert.equal(budget.capsules, 2);
  assert.equal(budget.turns, 6);
  assert.equal(budget.messages, 3 * 2 + 2 * 4 + 2);
  assert.ok(budget.lastCapsule);
  assert.equal(budget.lastCapsule.ageMs, 125_000);
  assert.equal(budget.lastCapsule.checkpointId, 'ck_second');
  assert.equal(budget.lastCapsule.quality, 'degraded');
  const input = buildModelInput(b.entries, SYSTEM);
  const est = estimateRequest(input, [], cache, 1000);
  assert.equal(budget.lastCapsule.tokens, est.categories.capsule);
  assert.equal(budget.effectiveTokens, est.total);
  assert.equal(budget.source, 'estimated');
  assert.deepEqual(budget.categories, est.categories);
  assert.equal(budget.hardLimit, 10_000 - 1000 - 1000);
  assert.equal(budget.softLimit, 4000);
  assert.equal(budget.reclaimableTokens, Math.max(0, est.total - 100));
  assert.equal(budget.percentOfHard, Math.round((est.total / 8000) * 1000) / 10);
  assert.ok(formatBudget(budget).includes('  Last capsule:        2m ago ('));
  assert.ok(formatBudget(budget).includes(' tokens, degraded)'));
});

test('next trigger: turns to the soft limit from the recent per-turn growth', () => {
  const b = branch();
  const { budget, cache } = budgetOf(b);
  const perTurn = averageTurnTokens(b.entries, cache);
  // The last 5 of the 6 turns start at the second user message; capsules add nothing to the growth.
  const secondUser = b.entries.filter((e) => e.type === 'user')[1];
  const recent = b.entries.slice(b.entries.findIndex((e) => e === secondUser)).reduce((n, e) => n + cache.tokensOf(e), 0);
  assert.equal(perTurn, recent / 5);
  const n = Math.ceil((4000 - budget.effectiveTokens) / perTurn);
  assert.ok(n > 1);
  assert.equal(budget.nextTrigger, `~${n} turns`);
  assert.equal(budget.autoCompact, true);
});

test('next trigger: now, hard limit exceeded, off, unknown', () => {
  const b = branch();
  const { budget: base } = budgetOf(b);
  // Windows chosen so the same branch sits just past the soft limit, then past the hard limit.
  const overSoft = budgetOf(b, {
    window: 2000 + 2 * base.effectiveTokens - 2,
    raw: { minTokensForAutoCompact: 0, keepRecentTokens: 0, minReclaimableTokens: 0 },
  }).budget;
  assert.ok(overSoft.effectiveTokens >= overSoft.softLimit && overSoft.effectiveTokens <= overSoft.hardLimit);
  assert.equal(overSoft.nextTrigger, 'now (over soft limit)');
  const roiBlocked = budgetOf(b, {
    window: 2000 + 2 * base.effectiveTokens - 2,
    raw: { minTokensForAutoCompact: 0, keepRecentTokens: base.effectiveTokens - 10 },
  }).budget;
  assert.equal(roiBlocked.nextTrigger, 'over soft limit, waiting for enough to reclaim');
  const overHard = budgetOf(b, { window: 2000 + base.effectiveTokens - 1, raw: { minTokensForAutoCompact: 0 } }).budget;
  assert.equal(overHard.nextTrigger, 'hard limit exceeded');
  const off = budgetOf(b, { raw: { auto: false } }).budget;
  assert.equal(off.autoCompact, false);
  assert.match(off.nextTrigger, /^off \(hard limit in ~\d+ turns?\)$/);
  const envOff = budgetOf(b, { resolved: resolveSettings({ raw: SMALL, env: { CAPSULE_AUTO_COMPACT: 'false' } }) }).budget;
  assert.equal(envOff.autoCompact, false);
  assert.equal(budgetOf(new BranchBuilder()).budget.nextTrigger, 'unknown (no turns yet)');
});

test('the reclaimable share (the ROI gate) is clamped to [0, 1] and does not move the savings ratio', () => {
  const { budget } = budgetOf(branch(), { raw: { keepRecentTokens: 1_000_000 } });
  assert.equal(budget.reclaimableRatio, 0);
  assert.equal(budget.reclaimableTokens, 0);
  assert.ok(budget.savingsRatio > 0, 'two compactions saved tokens whatever keep recent says');
});

test('savings ratio after three compactions: 1 - current input / the input without compaction, never 0%', () => {
  const b = new BranchBuilder();
  const saved: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (let t = 0; t < 4; t++) b.user(`Round ${round} task ${t}: refactor module ${t}.`).assistant(`Refactored module ${t} in round ${round}.`);
    const before = 4000 + round * 500;
    const after = 300 + round * 50;
    saved.push(before - after);
    b.capsule(`## Goal\nRefactor.\n## Progress\n- Round ${round} done`, null, { tokensBefore: before, tokensAfter: after, checkpointId: `ck_r${round}` });
  }
  b.user('Round 3: write the changelog.').assistant('Written.');
  const { budget } = budgetOf(b, { raw: { keepRecentTokens: 1_000_000 } });
  const totalSaved = saved.reduce((x, y) => x + y, 0);
  assert.equal(budget.capsules, 3);
  assert.equal(budget.fullHistoryTokens, budget.effectiveTokens + totalSaved);
  assert.equal(budget.savingsRatio, 1 - budget.effectiveTokens / budget.fullHistoryTokens);
  assert.ok(budget.savingsRatio > 0.5, `${budget.savingsRatio}`);
  assert.match(formatBudget(budget), new RegExp(`Savings ratio: +${budget.savingsRatio.toFixed(2)} \\(${Math.round(budget.savingsRatio * 100)}%\\)`));
  // Even with keep recent larger than the input (nothing reclaimable now), the ratio says what compaction saved.
  assert.equal(budget.reclaimableTokens, 0);

  // An undone compaction saved nothing; redoing it counts it again.
  const undoneBranch = [
    ...b.entries,
    { ...b.entries[0], id: 'undo1', type: 'compaction_undo', capsuleId: b.entries.filter((e) => e.type === 'capsule')[2]?.id ?? '', action: 'undo' } as never,
  ];
  assert.equal(compactionSavings(undoneBranch), (saved[0] ?? 0) + (saved[1] ?? 0));
  const redone = [
    ...undoneBranch,
    { ...b.entries[0], id: 'redo1', type: 'compaction_undo', capsuleId: b.entries.filter((e) => e.type === 'capsule')[2]?.id ?? '', action: 'redo' } as never,
  ];
  assert.equal(compactionSavings(redone), totalSaved);
});

test('savings ratio is 0 before the first compaction', () => {
  const b = new BranchBuilder();
  b.user('hello').assistant('hi');
  const { budget } = budgetOf(b);
  assert.equal(budget.savingsRatio, 0);
  assert.equal(budget.fullHistoryTokens, budget.effectiveTokens);
  assert.equal(savingsRatioOf(0, 0), 0);
});

test("formatBudget reproduces the seed's Context Stats block and adds the docs/behaviour.md#observability extras", () => {
  const seed: Budget = {
    model: 'gpt-4o',
    contextWindow: 65_000,
    maxOutputTokens: 8_000,
    effectiveTokens: 38_420,
    source: 'estimated',
    softLimit: 39_046,
    hardLimit: 48_808,
    safetyReserveTokens: 8_192,
    keepRecentTokens: 20_000,
    capsules: 2,
    messages: 47,
    turns: 12,
    lastCapsule: { ageMs: 2 * 60_000 + 5_000, tokens: 2_840, checkpointId: 'ck_abc', quality: 'full' },
    savingsRatio: 0.48,
    fullHistoryTokens: 73_885,
    reclaimableTokens: 18_420,
    reclaimableRatio: 0.48,
    autoCompact: true,
    nextTrigger: '~3 turns',
    categories: { system: 1200, tools: 3400, capsule: 2840, messages: 21000, toolResults: 8400, reservedOutput: 8000 },
    percentOfHard: 78.7,
  };
  const text = formatBudget(seed);
  const expected = [
    'Context Stats:',
    '  Effective tokens:    38,420',
    '  Measurement source:  estimated',
    '  Soft limit:          39,046',
    '  Hard limit:          48,808',
    '  Safety reserve:       8,192',
    '  Keep recent:         20,000',
    '  Capsules:             2',
    '  Messages:            47',
    '  Turns:               12',
    '  Last capsule:        2m ago (2,840 tokens)',
    '  Savings ratio:       0.48 (48%)',
    '  Auto-compact:        ON',
    '  Next trigger est.:   ~3 turns',
  ].join('\n');
  assert.ok(text.startsWith(`${expected}\n`), text);
  for (const [label, value] of <const>[
    ['System prompt', '1,200'],
    ['Tool schemas', '3,400'],
    ['Capsule', '2,840'],
    ['Recent messages', '21,000'],
    ['Tool results', '8,400'],
    ['Reserved output', '8,000'],
    ['Free', '10,388 (to the hard limit)'],
  ]) {
    assert.match(text, new RegExp(`\\n  ${label}: +${value.replace(/[()]/g, '\\$&')}\\n`), `${label} row`);
  }
  assert.match(text, /Uncompacted: +73,885/);
  assert.match(text, /Of hard limit: +78\.7%/);
  assert.match(text, /Last checkpoint: +ck_abc/);
  const none = formatBudget({ ...seed, lastCapsule: undefined, autoCompact: false, source: 'provider_usage' });
  assert.match(none, /Last capsule: +none/);
  assert.match(none, /Auto-compact: +OFF/);
  assert.match(none, /Measurement source: +provider_usage/);
});
