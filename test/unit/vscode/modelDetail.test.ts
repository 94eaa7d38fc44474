// The model picker's detail line: every window source is named, derived figures read "auto: N", explicit ones plain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelDetail } from '../../../src/vscode/base/modelDetail.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';

const base = { id: 'm', label: 'm', provider: 'openai' as const, contextWindow: 8_192, maxOutputTokens: 1_024, hardLimit: 6_656, softLimit: 5_324 };

/** The detail line in its parts: the three figures in order, which of them read "auto:", and the source in parentheses. */
function parts(detail: string): { figures: string[]; auto: string[]; source: string | undefined } {
  return {
    figures: [...detail.matchAll(/\d{1,3}(?:,\d{3})+|\d+/g)].map((m) => m[0]),
    auto: [...detail.matchAll(/auto: ([\d,]+)/g)].map((m) => m[1] ?? ''),
    source: /\(([^)]+)\)/.exec(detail)?.[1],
  };
}

test('each source is named, and derived values are marked auto', () => {
  const sources = ['override', 'learned', 'table', 'provider', 'default'] as const;
  const named = sources.map((windowSource) => parts(modelDetail({ ...base, windowSource })));
  for (const p of named) assert.deepEqual(p.figures, ['8,192', '5,324', '6,656'], 'window, soft threshold, hard limit');
  assert.equal(new Set(named.map((p) => p.source)).size, sources.length, `every source reads differently: ${named.map((p) => p.source).join(' | ')}`);
  assert.equal(parts(modelDetail(base)).source, undefined, 'no source known, none shown');
  assert.deepEqual(parts(modelDetail({ ...base, hardDerived: false, softDerived: false })).auto, []);
  assert.deepEqual(parts(modelDetail({ ...base, hardDerived: true, softDerived: true })).auto, ['5,324', '6,656']);
  assert.deepEqual(parts(modelDetail({ ...base, softDerived: true })).auto, ['5,324']);
  assert.deepEqual(parts(modelDetail({ ...base, hardDerived: true })).auto, ['6,656']);
});

test('a learned window beats the provider report and the table, an override beats it', () => {
  assert.deepEqual(
    resolveModelInfo('x-model', { provider: { contextWindow: 32_768 }, learned: { contextWindow: 16_384, maxOutputTokens: 2_048 } }).source,
    'learned',
  );
  assert.equal(resolveModelInfo('x-model', { provider: { contextWindow: 32_768 }, learned: { contextWindow: 16_384 } }).contextWindow, 16_384);
  const o = resolveModelInfo('x-model', { learned: { contextWindow: 16_384 }, override: { contextWindow: 65_536 } });
  assert.equal(o.source, 'override');
  assert.equal(o.contextWindow, 65_536);
});
