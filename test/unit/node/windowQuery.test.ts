// Asking the server for the window: each vendor's shape (from its documentation) gives the window and its source, asked once per endpoint + model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ollamaWindow, queryServerWindow, ServerWindowsFile, serverWindowOnce, serverOrigin } from '../../../src/node/providers/windowQuery.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import type { ModelsShape } from '../../fakes/types.js';

const CASES: readonly { shape: ModelsShape; source: string; expect: number; output?: number }[] = [
  { shape: 'openai', source: 'openai_models', expect: 12_000 },
  { shape: 'vllm', source: 'openai_models', expect: 12_000 },
  { shape: 'context_window', source: 'openai_models', expect: 12_000 },
  { shape: 'openrouter', source: 'openrouter_models', expect: 12_000, output: 2_000 },
  // Ollama: num_ctx in use (12k) wins over the model's own 128k maximum, which Ollama would silently truncate at.
  { shape: 'ollama', source: 'ollama_show', expect: 12_000 },
  // LM Studio: the context the model was loaded with, not its maximum.
  { shape: 'lmstudio', source: 'lmstudio_models', expect: 12_000 },
];

for (const c of CASES) {
  test(`the ${c.shape} shape states the window: ${c.expect} from ${c.source}`, async (t) => {
    const server = await startFakeOpenAI({
      modelsShape: c.shape,
      models: [
        { id: 'local-8b', contextLength: 12_000, maxContextLength: 131_072, maxCompletionTokens: 2_000 },
        { id: 'other', contextLength: 99_000 },
      ],
    });
    t.after(() => server.close());
    const w = await queryServerWindow(server.url, '', 'local-8b');
    assert.deepEqual(w, { contextWindow: c.expect, source: c.source, ...(c.output === undefined ? {} : { maxOutputTokens: c.output }) });
  });
}

test('no shape states a window: undefined, and the answer is remembered so the server is asked once per endpoint + model', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-windows-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const server = await startFakeOpenAI({ hideModelLimits: true });
  t.after(() => server.close());
  const file = new ServerWindowsFile(join(dir, 'server-windows.json'));
  assert.equal(await serverWindowOnce(file, server.url, '', 'fake-model'), undefined);
  const asked = server.requests.length;
  assert.ok(asked >= 1);
  assert.equal(await serverWindowOnce(file, server.url, '', 'fake-model'), undefined);
  assert.equal(server.requests.length, asked, 'not asked again');

  const stating = await startFakeOpenAI({ window: 12_000 });
  t.after(() => stating.close());
  assert.deepEqual(await serverWindowOnce(file, stating.url, '', 'fake-model'), { contextWindow: 12_000, source: 'openai_models' });
  assert.equal(stating.requests.length, 1, 'one GET /v1/models');
  assert.deepEqual(await serverWindowOnce(file, stating.url, '', 'fake-model'), { contextWindow: 12_000, source: 'openai_models' });
  assert.equal(stating.requests.length, 1, 'remembered per endpoint + model');
  assert.equal(await file.sourceOf('fake-model', 12_000), 'openai_models');
});

test('shapes parse defensively', () => {
  assert.equal(serverOrigin('http://h:11434/v1/'), 'http://h:11434');
  assert.equal(ollamaWindow({ parameters: 'stop "x"', model_info: { 'qwen2.context_length': 32_768 } }), 32_768);
  assert.equal(ollamaWindow({ parameters: 'num_ctx 8192' }), 8_192);
  assert.equal(ollamaWindow({ model_info: { 'llama.context_length': 'big' } }), undefined);
  assert.equal(ollamaWindow(null), undefined);
});
