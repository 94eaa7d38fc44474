// Provider calibration (docs/behaviour.md#tokens): reported prompt tokens projected onto the current input while the prefix is unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolSchema } from '../../../src/engine/ports.js';
import { effectiveTokens, prefixFingerprint, requestFingerprint } from '../../../src/engine/tokens/calibration.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest, serializeToolSchemas, withMargin } from '../../../src/engine/tokens/estimate.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { BranchBuilder } from './entries.js';

const SYSTEM = 'You are a coding agent.';
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const OTHER_TOOLS: readonly ToolSchema[] = [...TOOLS, { name: 'search', description: 'Search', parameters: { type: 'object' } }];
const fp = (o: { system?: string; tools?: readonly ToolSchema[]; model?: string; provider?: string } = {}) =>
  prefixFingerprint({
    provider: o.provider ?? 'openai',
    model: o.model ?? 'gpt-4o',
    system: o.system ?? SYSTEM,
    toolsJson: serializeToolSchemas(o.tools ?? TOOLS),
  });

/** A session whose second reply carries a provider report far above our local estimate. */
function session(reported = 50_000): BranchBuilder {
  return new BranchBuilder()
    .user('Read the config.')
    .assistant('Reading.', {
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.json"}' }],
      usage: { promptTokens: 900, completionTokens: 10 },
      prefixFingerprint: fp(),
    })
    .tool('c1', '{"a": 1}')
    .assistant('The config sets a to 1.', { usage: { promptTokens: reported, completionTokens: 12 }, prefixFingerprint: fp() })
    .user('Now change it to 2, please.');
}

function measure(branch: readonly Entry[], current = fp(), tools = TOOLS) {
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const input = buildModelInput(branch, SYSTEM);
  const estimate = estimateRequest(input, tools, cache, 4096);
  return { eff: effectiveTokens({ branch, input, estimate, currentFingerprint: current, cache }), input, cache, estimate };
}

test('matching prefix: reported prompt tokens + the estimate of everything since → provider_usage', () => {
  const b = session();
  const { eff, input, cache, estimate } = measure(b.entries);
  // The report belongs to the request that produced e4, so e4 and the user message after it are new.
  const suffix = input.messages.filter((m) => m.entryId === 'e4' || m.entryId === 'e5').reduce((n, m) => n + cache.tokensOfMessage(m), 0);
  assert.equal(eff.source, 'provider_usage');
  assert.equal(eff.projected, 50_000 + withMargin(suffix));
  assert.equal(eff.tokens, eff.projected);
  assert.equal(eff.estimate, estimate.total);
});

test('a projection below the local estimate keeps the estimate (effective is the max)', () => {
  const { eff, estimate } = measure(session(3).entries);
  assert.equal(eff.source, 'estimated');
  assert.equal(eff.tokens, estimate.total);
  assert.ok(eff.projected !== undefined && eff.projected < estimate.total);
});

test('a changed system prompt, tool set, model or provider invalidates the projection', () => {
  const changedSystem = session().system('Mode: plan only.');
  const viaSystem = measure(changedSystem.entries, fp({ system: `${SYSTEM}\n\nMode: plan only.` }));
  assert.equal(viaSystem.eff.source, 'estimated');
  assert.equal(viaSystem.eff.projected, undefined);
  for (const current of [fp({ tools: OTHER_TOOLS }), fp({ model: 'gpt-4.1' }), fp({ provider: 'openrouter' })]) {
    const { eff, estimate } = measure(session().entries, current);
    assert.equal(eff.source, 'estimated');
    assert.equal(eff.tokens, estimate.total);
    assert.equal(eff.projected, undefined);
  }
});

test('a capsule after the reporting reply invalidates the projection, even when that reply is kept verbatim', () => {
  const b = session().capsule('## Goal\nChange a.', 'e2').user('continue');
  assert.ok(buildModelInput(b.entries, SYSTEM).entryIds.includes('e4'));
  const { eff, estimate } = measure(b.entries);
  assert.equal(eff.source, 'estimated');
  assert.equal(eff.tokens, estimate.total);
});

test('a report made after the latest capsule is used again', () => {
  const b = session().capsule('## Goal\nChange a.', 'e5');
  b.assistant('Changed.', { usage: { promptTokens: 40_000, completionTokens: 3 }, prefixFingerprint: fp() }).user('thanks');
  const { eff } = measure(b.entries);
  assert.equal(eff.source, 'provider_usage');
  assert.ok((eff.projected ?? 0) > 40_000);
});

test('fingerprints are stable, distinguish every part, and do not confuse text moved between parts', () => {
  assert.equal(fp(), fp());
  assert.equal(requestFingerprint('openai', 'gpt-4o', SYSTEM, TOOLS), fp());
  assert.match(fp(), /^fp_[0-9a-f]{28}$/);
  const parts = new Set([fp(), fp({ system: 'x' }), fp({ tools: [] }), fp({ model: 'm' }), fp({ provider: 'p' })]);
  assert.equal(parts.size, 5);
  assert.notEqual(
    prefixFingerprint({ provider: 'a', model: 'bc', system: '', toolsJson: '' }),
    prefixFingerprint({ provider: 'ab', model: 'c', system: '', toolsJson: '' }),
  );
});
