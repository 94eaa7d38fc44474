// The model picker's detail line: every window source is named, derived figures read "auto: N", explicit ones plain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelDetail } from '../../../src/vscode/base/modelDetail.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';

const base = { id: 'm', label: 'm', provider: 'openai' as const, contextWindow: 8_192, maxOutputTokens: 1_024, hardLimit: 6_656, softLimit: 5_324 };

test('each source is named, and derived values are marked auto', () => {
  assert.equal(modelDetail({ ...base, windowSource: 'override', hardDerived: false, softDerived: false }), 'window 8,192 (your override) · compacts from 5,324 · hard limit 6,656');
  assert.equal(modelDetail({ ...base, windowSource: 'learned', hardDerived: true, softDerived: true }), 'window 8,192 (learned from overflow error) · compacts from auto: 5,324 · hard limit auto: 6,656');
  assert.equal(modelDetail({ ...base, windowSource: 'table' }), 'window 8,192 (built-in table) · compacts from 5,324 · hard limit 6,656');
  assert.equal(modelDetail({ ...base, windowSource: 'provider', softDerived: true }), 'window 8,192 (provider) · compacts from auto: 5,324 · hard limit 6,656');
});

test('a learned window beats the provider report and the table, an override beats it', () => {
  assert.deepEqual(resolveModelInfo('x-model', { provider: { contextWindow: 32_768 }, learned: { contextWindow: 16_384, maxOutputTokens: 2_048 } }).source, 'learned');
  assert.equal(resolveModelInfo('x-model', { provider: { contextWindow: 32_768 }, learned: { contextWindow: 16_384 } }).contextWindow, 16_384);
  const o = resolveModelInfo('x-model', { learned: { contextWindow: 16_384 }, override: { contextWindow: 65_536 } });
  assert.equal(o.source, 'override');
  assert.equal(o.contextWindow, 65_536);
});
