// Window-aware defaults over a matrix of windows: every window from 4k to 1M works unset, and the seed figures hold from 64k.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_COMPACTION_SETTINGS, resolveSettings } from '../../../src/engine/config.js';
import { evaluateRoi } from '../../../src/engine/tokens/budget.js';
import { computeLimits } from '../../../src/engine/tokens/tokenLimits.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { DEFAULT_FIXED_OVERHEAD_TOKENS, outputReserveFor, SEED_WINDOW, windowError } from '../../../src/engine/tokens/windowDefaults.js';
import { tmpdir } from 'node:os';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { WorkspaceToolHost } from '../../../src/node/tools/workspaceToolHost.js';

const WINDOWS = [4_096, 8_192, 16_384, 24_576, 32_768, 63_999, 64_000, 65_000, 65_536, 128_000, 200_000, 1_000_000] as const;
/** Output limits a model table typically states for such a window, including the "8k output on a 32k model" case. */
const OUTPUTS = [1_024, 2_048, 4_096, 8_192, 16_384] as const;

function limitsFor(window: number, tableOutput: number) {
  const model = resolveModelInfo('some-local-model', { provider: { contextWindow: window, maxOutputTokens: tableOutput } });
  const r = resolveSettings({ raw: {}, model: { contextWindow: model.contextWindow, maxOutputTokens: model.maxOutputTokens } });
  const s = r.settings;
  const limits = computeLimits({
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    safetyReserveTokens: s.safetyReserveTokens,
    minTokensForAutoCompact: s.minTokensForAutoCompact,
    autoCompactThresholdRatio: s.autoCompactThresholdRatio,
  });
  return { model, r, s, limits };
}

test('every window from 4,096 to 1,000,000 works with default settings: hard > 0, soft < hard, keep < hard, soft compaction can fire', () => {
  for (const window of WINDOWS) {
    for (const out of OUTPUTS) {
      const { model, r, s, limits } = limitsFor(window, out);
      const label = `window ${window}, table output ${out}`;
      assert.equal(r.warning, undefined, `${label}: ${r.warning}`);
      assert.equal(r.softTriggersEnabled, true, label);
      assert.ok(limits.hardLimit > 0, `${label}: hard ${limits.hardLimit}`);
      assert.ok(limits.softLimit < limits.hardLimit, `${label}: soft ${limits.softLimit} < hard ${limits.hardLimit}`);
      assert.ok(s.keepRecentTokens < limits.hardLimit, `${label}: keep ${s.keepRecentTokens}`);
      // The reserves never take half the window.
      assert.ok(model.maxOutputTokens + s.safetyReserveTokens <= window / 2, `${label}: reserves ${model.maxOutputTokens}+${s.safetyReserveTokens}`);
      // At the soft limit the pre-generation ROI gate passes, so soft compaction really fires.
      const roi = evaluateRoi(limits.softLimit, s.keepRecentTokens, s.minReclaimableTokens, s.minSavingsRatio);
      assert.ok(roi.pass, `${label}: ROI at the soft limit ${limits.softLimit}: ${JSON.stringify(roi)}`);
    }
  }
});

test('at 64k and above the seed defaults apply unchanged: 48808/39046 and 49152 still hold', () => {
  for (const window of WINDOWS.filter((w) => w >= SEED_WINDOW)) {
    const r = resolveSettings({ raw: {}, model: { contextWindow: window, maxOutputTokens: 8_192 } });
    assert.deepEqual(r.settings, DEFAULT_COMPACTION_SETTINGS, String(window));
    assert.deepEqual(r.derived, [], String(window));
  }
  const a = limitsFor(65_000, 8_000).limits;
  assert.deepEqual([a.hardLimit, a.softLimit], [48_808, 39_046]);
  assert.equal(limitsFor(65_536, 8_192).limits.hardLimit, 49_152);
  assert.equal(outputReserveFor(128_000, 16_384), 16_384);
});

test('below 64k the unset values are derived from the window and reported as derived', () => {
  const { r, s, limits, model } = limitsFor(32_768, 8_192);
  assert.equal(model.maxOutputTokens, 4_096, 'a 32k model whose table says 8k output reserves 4k');
  assert.equal(s.safetyReserveTokens, 2_048);
  assert.equal(limits.hardLimit, 32_768 - 4_096 - 2_048);
  // Shares of the room the fixed overhead (system prompt, tool schemas) leaves, not of the bare hard limit.
  assert.equal(s.keepRecentTokens, Math.floor((limits.hardLimit - DEFAULT_FIXED_OVERHEAD_TOKENS) * 0.3));
  assert.equal(s.minTokensForAutoCompact, DEFAULT_FIXED_OVERHEAD_TOKENS + Math.floor((limits.hardLimit - DEFAULT_FIXED_OVERHEAD_TOKENS) * 0.6));
  assert.equal(limits.softLimit, Math.floor(limits.hardLimit * 0.8));
  assert.deepEqual([...r.derived].sort(), ['keepRecentTokens', 'minReclaimableTokens', 'minTokensForAutoCompact', 'safetyReserveTokens']);
  const eight = limitsFor(8_192, 2_048);
  assert.ok(eight.limits.hardLimit >= 6_000, `llama3:8b keeps most of its window: hard ${eight.limits.hardLimit}`);
});

test('explicit values are kept and validated; the warning names the setting, its value and one that works', () => {
  const kept = resolveSettings({ raw: { keepRecentTokens: 5_000 }, model: { contextWindow: 32_768, maxOutputTokens: 4_096 } });
  assert.equal(kept.settings.keepRecentTokens, 5_000);
  assert.ok(!kept.derived.includes('keepRecentTokens'));
  assert.equal(kept.warning, undefined);

  const bad = resolveSettings({ raw: { keepRecentTokens: 40_000 }, model: { contextWindow: 32_768, maxOutputTokens: 4_096 } });
  assert.equal(bad.softTriggersEnabled, false);
  assert.match(bad.warning ?? '', /^Compaction disabled: config validation failed: keepRecentTokens \(40000\) must be < hard limit \(26624\); try 7987$/);
  // Hard-limit protection keeps working limits: the fallback is the window's own defaults, not the seed's.
  const s = bad.settings;
  assert.ok(32_768 - 4_096 - s.safetyReserveTokens > s.keepRecentTokens);

  const negative = resolveSettings({ raw: { safetyReserveTokens: -1 }, model: { contextWindow: 8_192, maxOutputTokens: 1_024 } });
  assert.match(negative.warning ?? '', /safetyReserveTokens \(-1\) is invalid: .*use 512/);
  assert.ok(8_192 - 1_024 - negative.settings.safetyReserveTokens > 0);

  const tooBig = resolveSettings({ raw: { safetyReserveTokens: 8_192 }, model: { contextWindow: 8_192, maxOutputTokens: 1_024 } });
  assert.match(tooBig.warning ?? '', /hard limit \(-1024\) must be > 0: .*try safetyReserveTokens 512/);
});

test('a window below 4,096 tokens is a clear error', () => {
  assert.match(windowError(2_048, '--window') ?? '', /^--window \(2048\) is below the smallest window Capsule supports \(4096 tokens\)/);
  assert.equal(windowError(4_096), undefined);
});

test('the fixed overhead is one input: a larger measured overhead (MCP schemas, instruction files) shrinks the derived tail', () => {
  const base = resolveSettings({ raw: {}, model: { contextWindow: 8_192, maxOutputTokens: 2_048 } }).settings;
  const more = resolveSettings({
    raw: {},
    model: { contextWindow: 8_192, maxOutputTokens: 2_048, fixedOverheadTokens: DEFAULT_FIXED_OVERHEAD_TOKENS + 1_000 },
  }).settings;
  assert.equal(base.keepRecentTokens - more.keepRecentTokens, 300);
  assert.equal(more.minTokensForAutoCompact - base.minTokensForAutoCompact, 400);
  // The built-in system prompt and tool schemas fit in the default figure.
  const frame = estimateRequest(
    { system: DEFAULT_SYSTEM_PROMPT, messages: [], entryIds: [] },
    new WorkspaceToolHost({ roots: [tmpdir()], approve: async () => true, trusted: () => true }).schemas(),
    new EntryTokenCache(counterForModel('gpt-4o')),
    0,
  ).total;
  assert.ok(frame <= DEFAULT_FIXED_OVERHEAD_TOKENS, `built-in overhead ${frame} <= ${DEFAULT_FIXED_OVERHEAD_TOKENS}`);
});
