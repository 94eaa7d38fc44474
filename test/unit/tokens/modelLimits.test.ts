// Model limits (docs/behaviour.md#tokens): override > provider > built-in table > default, and /v1/models parsing across servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MODEL_INFO, modelInfoFromProviderModel, resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { lookupModel } from '../../../src/engine/tokens/modelTable.js';
import { outputReserveFor } from '../../../src/engine/tokens/windowDefaults.js';

test('precedence: override > provider > table > default, field by field', () => {
  assert.deepEqual(resolveModelInfo('gpt-4o'), { model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384, source: 'table' });
  assert.deepEqual(resolveModelInfo('gpt-4o', { provider: { contextWindow: 64_000, maxOutputTokens: 8_000 } }), {
    model: 'gpt-4o',
    contextWindow: 64_000,
    maxOutputTokens: 8_000,
    source: 'provider',
  });
  const over = resolveModelInfo('gpt-4o', { provider: { contextWindow: 64_000, maxOutputTokens: 8_000 }, override: { contextWindow: 65_000 } });
  assert.equal(over.source, 'override');
  assert.equal(over.contextWindow, 65_000);
  assert.equal(over.maxOutputTokens, 8_000, 'output still from the provider');
  const unknown = resolveModelInfo('my-finetune-v7');
  assert.equal(unknown.source, 'default');
  assert.equal(unknown.contextWindow, DEFAULT_MODEL_INFO.contextWindow);
  assert.equal(unknown.maxOutputTokens, DEFAULT_MODEL_INFO.maxOutputTokens);
});

test('invalid provider or override figures are ignored, not trusted', () => {
  const r = resolveModelInfo('gpt-4o', { provider: { contextWindow: 0, maxOutputTokens: -5 }, override: { contextWindow: Number.NaN } });
  assert.equal(r.source, 'table');
  assert.equal(r.contextWindow, 128_000);
});

test('a table output limit is capped when a provider reports a small loaded window', () => {
  const r = resolveModelInfo('qwen2.5-coder:7b', { provider: { contextWindow: 4096 } });
  assert.equal(r.contextWindow, 4096);
  assert.equal(r.maxOutputTokens, 512, 'a small window reserves an eighth of itself for the answer');
  assert.ok(r.contextWindow - r.maxOutputTokens > 0);
});

test('the built-in table knows the common families under their many spellings', () => {
  const cases: readonly (readonly [string, number, number])[] = [
    ['gpt-4o-mini', 128_000, 16_384],
    ['openai/gpt-4.1', 1_047_576, 32_768],
    ['gpt-5-mini', 400_000, 128_000],
    ['gpt-4', 8_192, 4_096],
    ['gpt-3.5-turbo', 16_385, 4_096],
    ['o3-mini', 200_000, 100_000],
    ['claude-3-5-sonnet-20241022', 200_000, 8_192],
    ['anthropic/claude-3.5-sonnet', 200_000, 8_192],
    ['claude-sonnet-4-20250514', 200_000, 64_000],
    ['claude-opus-4-1-20250805', 200_000, 32_000],
    ['gemini-2.5-pro', 1_048_576, 65_536],
    ['models/gemini-1.5-pro-002', 2_097_152, 8_192],
    ['llama3.1:8b', 131_072, 8_192],
    ['meta-llama/Llama-3.3-70B-Instruct', 131_072, 8_192],
    ['llama3:8b', 8_192, 2_048],
    ['accounts/fireworks/models/llama-v3p1-70b-instruct', 131_072, 8_192],
    ['Qwen/Qwen2.5-Coder-32B-Instruct', 32_768, 8_192],
    ['qwen3-coder:30b', 262_144, 65_536],
    ['deepseek-chat', 128_000, 8_192],
    ['deepseek-r1:14b', 128_000, 32_768],
    ['mistral-large-latest', 131_072, 8_192],
    ['codestral-latest', 262_144, 8_192],
    ['mistral:7b', 32_768, 4_096],
  ];
  for (const [model, window, output] of cases) {
    const row = lookupModel(model);
    assert.deepEqual([row?.contextWindow, row?.maxOutputTokens], [window, output], model);
    const r = resolveModelInfo(model);
    assert.equal(r.source, 'table', model);
    assert.deepEqual([r.contextWindow, r.maxOutputTokens], [window, outputReserveFor(window, output)], model);
  }
});

test('OpenRouter: top_provider limits', () => {
  const raw = {
    id: 'anthropic/claude-3.5-sonnet',
    name: 'Claude',
    context_length: 200000,
    top_provider: { context_length: 200000, max_completion_tokens: 8192, is_moderated: true },
    pricing: { prompt: '0.000003' },
  };
  assert.deepEqual(modelInfoFromProviderModel(raw), { contextWindow: 200000, maxOutputTokens: 8192 });
  assert.deepEqual(modelInfoFromProviderModel({ id: 'x', context_length: 32768, top_provider: { max_completion_tokens: null } }), { contextWindow: 32768 });
});

test('vLLM: max_model_len', () => {
  assert.deepEqual(
    modelInfoFromProviderModel({
      id: 'Qwen/Qwen2.5-Coder-32B-Instruct',
      object: 'model',
      owned_by: 'vllm',
      root: 'Qwen/Qwen2.5-Coder-32B-Instruct',
      max_model_len: 32768,
    }),
    { contextWindow: 32768 },
  );
});

test('LM Studio: the loaded window wins over the maximum', () => {
  assert.deepEqual(
    modelInfoFromProviderModel({ id: 'qwen2.5-7b-instruct', type: 'llm', state: 'loaded', max_context_length: 32768, loaded_context_length: 4096 }),
    { contextWindow: 4096 },
  );
  assert.deepEqual(modelInfoFromProviderModel({ id: 'qwen2.5-7b-instruct', type: 'llm', state: 'not-loaded', max_context_length: 32768 }), {
    contextWindow: 32768,
  });
});

test('Groq-style context_window, numeric strings, and an output limit equal to the window', () => {
  assert.deepEqual(modelInfoFromProviderModel({ id: 'llama-3.3-70b-versatile', context_window: 131072, max_completion_tokens: 32768 }), {
    contextWindow: 131072,
    maxOutputTokens: 32768,
  });
  assert.deepEqual(modelInfoFromProviderModel({ id: 'x', context_length: '65536' }), { contextWindow: 65536 });
  assert.deepEqual(modelInfoFromProviderModel({ id: 'x', context_length: 8192, max_output_tokens: 8192 }), { contextWindow: 8192 });
});

test('garbage never throws and yields no limits', () => {
  const hostile = Object.defineProperty({}, 'context_length', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  const garbage: readonly unknown[] = [
    undefined,
    null,
    42,
    'gpt-4o',
    [],
    [1, 2],
    { id: 'x' },
    { context_length: -1 },
    { context_length: 1.5 },
    { context_length: 'lots' },
    { max_model_len: {} },
    { top_provider: 'x' },
    hostile,
  ];
  garbage.forEach((raw, i) => assert.deepEqual(modelInfoFromProviderModel(raw), {}, `case ${i}`));
  assert.deepEqual(modelInfoFromProviderModel({ context_length: 'lots', max_model_len: 16384 }), { contextWindow: 16384 });
});

test('an explicit output limit is kept even on a small window; a table one is capped at an eighth of it', () => {
  assert.equal(resolveModelInfo('qwen2.5-coder:7b').maxOutputTokens, 4096, '32k window, 8k in the table → 4k reserved');
  assert.equal(resolveModelInfo('qwen2.5-coder:7b', { override: { maxOutputTokens: 6000 } }).maxOutputTokens, 6000);
  assert.equal(resolveModelInfo('gpt-4o').maxOutputTokens, 16_384, 'at 64k and above the table figure stands');
});
