// docs/behaviour.md#tokens worked examples for the hard and soft limits, and the docs/behaviour.md#roi pre-generation ROI gate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings } from '../../../src/engine/config.js';
import { computeBudget, evaluateRoi } from '../../../src/engine/tokens/budget.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { computeLimits } from '../../../src/engine/tokens/tokenLimits.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { BranchBuilder, T0 } from './entries.js';

const defaults = resolveSettings({ raw: {} });

test('docs/behaviour.md#tokens: window 65000, output 8000, reserve 8192 → hard 48808, soft 39046', () => {
  const s = defaults.settings;
  const l = computeLimits({
    contextWindow: 65000,
    maxOutputTokens: 8000,
    safetyReserveTokens: 8192,
    minTokensForAutoCompact: s.minTokensForAutoCompact,
    autoCompactThresholdRatio: s.autoCompactThresholdRatio,
  });
  assert.equal(l.hardLimit, 48808);
  assert.equal(l.softLimit, 39046);
});

test('docs/behaviour.md#tokens: window 65536, output 8192, reserve 8192 → hard 49152', () => {
  const s = defaults.settings;
  const l = computeLimits({
    contextWindow: 65536,
    maxOutputTokens: 8192,
    safetyReserveTokens: 8192,
    minTokensForAutoCompact: s.minTokensForAutoCompact,
    autoCompactThresholdRatio: s.autoCompactThresholdRatio,
  });
  assert.equal(l.hardLimit, 49152);
  assert.equal(l.softLimit, Math.floor(49152 * 0.8));
});

test('soft limit never drops below minTokensForAutoCompact, nor reaches the hard limit', () => {
  assert.equal(
    computeLimits({ contextWindow: 40000, maxOutputTokens: 0, safetyReserveTokens: 0, minTokensForAutoCompact: 32000, autoCompactThresholdRatio: 0.5 })
      .softLimit,
    32000,
  );
  assert.equal(
    computeLimits({ contextWindow: 30000, maxOutputTokens: 0, safetyReserveTokens: 0, minTokensForAutoCompact: 32000, autoCompactThresholdRatio: 0.8 })
      .softLimit,
    29999,
  );
});

test('computeBudget reproduces the docs/behaviour.md#tokens worked examples from the model info and default settings', () => {
  const b = new BranchBuilder().user('hello').assistant('hi');
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const run = (contextWindow: number, maxOutputTokens: number) =>
    computeBudget({
      branch: b.entries,
      defaultSystem: 'You are a coding agent.',
      tools: [],
      model: resolveModelInfo('some-local-model', { override: { contextWindow, maxOutputTokens } }),
      provider: 'test',
      resolved: defaults,
      now: T0,
      cache,
    });
  const first = run(65000, 8000);
  assert.equal(first.hardLimit, 48808);
  assert.equal(first.softLimit, 39046);
  assert.equal(first.safetyReserveTokens, 8192);
  assert.equal(run(65536, 8192).hardLimit, 49152);
});

test('docs/behaviour.md#roi: 50k effective, 20k keep → 30k reclaimable, 0.6: go', () => {
  assert.deepEqual(evaluateRoi(50000, 20000, 12000, 0.25), { reclaimable: 30000, savingsRatio: 0.6, pass: true });
});

test('docs/behaviour.md#roi: 25k effective, 20k keep → 5k reclaimable, 0.2: skip', () => {
  assert.deepEqual(evaluateRoi(25000, 20000, 12000, 0.25), { reclaimable: 5000, savingsRatio: 0.2, pass: false });
});

test('docs/behaviour.md#roi: each minimum alone can block, and nothing is reclaimable below keepRecent', () => {
  assert.equal(evaluateRoi(200000, 190000, 5000, 0.25).pass, false); // 10k ≥ 5k but ratio 0.05
  assert.equal(evaluateRoi(16000, 8000, 12000, 0.25).pass, false); // ratio 0.5 but 8k < 12k
  assert.deepEqual(evaluateRoi(10000, 20000, 0, 0), { reclaimable: 0, savingsRatio: 0, pass: true });
  assert.deepEqual(evaluateRoi(0, 20000, 1, 0), { reclaimable: 0, savingsRatio: 0, pass: false });
});
