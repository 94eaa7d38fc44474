// The window and token count an overflow error states, and error bodies normalized for the openai client; garbage is data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyError } from '../../../src/engine/provider/faults.js';
import { overflowFacts } from '../../../src/engine/provider/overflowFacts.js';
import { OVERFLOW_PATTERNS } from '../../../src/engine/provider/overflowPatterns.js';
import { learnWindow } from '../../../src/engine/agent/windowLearning.js';
import { normalizeErrorBody } from '../../../src/node/providers/errorBodies.js';

test('every known wording that names a window yields it; per-minute budgets are not windows', () => {
  const cases: readonly (readonly [string, number | undefined, number | undefined])[] = [
    ["This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (7000 in the messages, 2000 in the completion).", 8192, 9000],
    ["This model's maximum prompt length is 131072 but the request contains 140213 tokens.", 131072, 140213],
    ['prompt is too long: 210000 tokens > 200000 maximum', 200000, 210000],
    ['Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1024 `max_new_tokens`', 4096, 4000],
    ['The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).', 1048575, 1196265],
    ['too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5120.', 4081, 5120],
    ['Input is too long for requested model.', undefined, undefined],
    ['Request too large for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Requested 45000.', undefined, undefined],
  ];
  for (const [text, window, requested] of cases) {
    const f = overflowFacts([text]);
    assert.equal(f.statedWindow, window, text);
    assert.equal(f.requestedTokens, requested, text);
  }
  assert.deepEqual(overflowFacts(['the request exceeds the available context size'], { nCtx: 4096, nPrompt: 5210 }), {
    statedWindow: 4096,
    requestedTokens: 5210,
  });
  for (const p of OVERFLOW_PATTERNS)
    for (const s of p.samples)
      assert.equal(classifyError({ status: s.status, error: { message: s.message, code: s.code } }).kind, 'overflow', `${p.id}: ${s.message}`);
});

test('OpenRouter "Provider returned error" is classified by the upstream message under metadata.raw', () => {
  const raw = JSON.stringify({ error: { message: "This endpoint's maximum context length is 16384 tokens." } });
  const f = classifyError({ status: 400, error: { message: 'Provider returned error', code: 400, metadata: { raw, provider_name: 'DeepInfra' } } });
  assert.equal(f.kind, 'overflow');
  assert.equal(f.statedWindow, 16384);
});

test('error bodies in odd shapes are rewritten to {"error": …}; garbage never throws', () => {
  assert.deepEqual(JSON.parse(normalizeErrorBody('{"object":"error","message":"too long","code":400}') ?? '{}'), {
    error: { object: 'error', message: 'too long', code: 400 },
  });
  assert.deepEqual(JSON.parse(normalizeErrorBody('[{"error":{"code":400,"message":"x"}}]') ?? '{}'), { error: { code: 400, message: 'x' } });
  assert.deepEqual(JSON.parse(normalizeErrorBody('{"error":"loaded with context length of only 4096 tokens"}') ?? '{}'), {
    error: { message: 'loaded with context length of only 4096 tokens' },
  });
  assert.equal(normalizeErrorBody('{"error":{"message":"fine"}}'), undefined, 'already readable: untouched');
  for (const garbage of ['', 'null', '[]', '[1,2]', '{"message":{"deep":[1]}}', '<html>502</html>', '\u0000\u0001', '{"error":null}', '12', 'true']) {
    assert.doesNotThrow(() => normalizeErrorBody(garbage), garbage);
    const out = normalizeErrorBody(garbage);
    if (out !== undefined) assert.doesNotThrow(() => JSON.parse(out), garbage);
  }
  for (const body of [null, 7, 'x', [], { error: 5 }, { error: { message: 12, metadata: { raw: { nested: true } } } }]) {
    assert.doesNotThrow(() => classifyError({ status: 400, error: body }));
  }
});

test('learning: a stated smaller window is adopted; without one the window shrinks below what was refused', () => {
  const stated = learnWindow({ contextWindow: 32768, maxOutputTokens: 4096 }, { kind: 'overflow', message: 'x', statedWindow: 8192 }, 9000);
  assert.equal(stated?.contextWindow, 8192);
  assert.equal(stated?.how, 'stated');
  assert.ok((stated?.maxOutputTokens ?? 0) <= 1024);
  const counted = learnWindow(
    { contextWindow: 32768, maxOutputTokens: 4096 },
    { kind: 'overflow', message: 'x', statedWindow: 32768, requestedTokens: 30000 },
    27000,
  );
  assert.equal(counted?.contextWindow, 32768 - 3000);
  const blind = learnWindow({ contextWindow: 32768, maxOutputTokens: 4096 }, { kind: 'overflow', message: 'x' }, 14000);
  assert.ok(blind !== undefined && blind.contextWindow < 14000 + 4096, `blind: ${blind?.contextWindow}`);
});
