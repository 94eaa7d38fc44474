// Saving a provider in the setup panel checks it: models, the configured model, the window when reported; a wrong URL is reported, yet saved.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { HostToWebview, SetupState } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';
import { nothingListeningHint } from '../../../src/engine/provider/turnFault.js';

const h = createHarness();
let withWindow: FakeOpenAIServer;
let noWindow: FakeOpenAIServer;
let noModels: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  withWindow = await startFakeOpenAI({
    models: [
      { id: 'qwen-coder', contextLength: 32_000 },
      { id: 'llama', contextLength: 8_192 },
    ],
  });
  noWindow = await startFakeOpenAI({ hideModelLimits: true, models: [{ id: 'local-model', contextLength: 16_000 }] });
  noModels = await startFakeOpenAI({ noModelsRoute: true, models: [{ id: 'proxied', contextLength: 16_000 }] });
  await h.start();
  v = h.openView();
  await until(() => lastOf(v.messages(), 'snapshot') !== undefined, 'the first snapshot');
});

after(async () => {
  v.dispose();
  await h.stop();
  await Promise.all([withWindow.close(), noWindow.close(), noModels.close()]);
});

/** Saves like the panel's Save button (provider, then the check) and returns the check's final answer. */
async function save(baseUrl: string, model: string): Promise<NonNullable<SetupState['check']>> {
  const mark = v.mark();
  v.send({ type: 'setupProvider', provider: { kind: 'openai', baseUrl, model } });
  v.send({ type: 'checkProvider' });
  // The previous save's reconnect may still post its own (older) answer first: what counts comes after "Checking…".
  const checks = (): NonNullable<SetupState['check']>[] =>
    v.since(mark).flatMap((m: HostToWebview) => (m.type === 'setup' && m.setup.check ? [m.setup.check] : []));
  const answer = (): NonNullable<SetupState['check']> | undefined => {
    const all = checks();
    const at = all.findIndex((c) => c.status === 'checking');
    return at < 0 ? undefined : all.slice(at + 1).find((c) => c.status !== 'checking');
  };
  await until(() => answer() !== undefined, `the check of ${baseUrl}`);
  const last = answer();
  assert.ok(last, 'the panel says it is checking, then what it found');
  assert.equal(h.state.config.get('capsule.provider.baseUrl'), baseUrl, 'the settings are saved whatever the check found');
  return last;
}

test('a server that reports windows: the number of models, the model among them, its window', async () => {
  const c = await save(withWindow.url, 'qwen-coder');
  assert.equal(c.status, 'ok');
  assert.match(c.summary, /2 models/);
  assert.match(c.summary, /"qwen-coder" among them/);
  assert.match(c.summary, /32,000 tokens/);
  assert.ok(!c.summary.includes('/v1'), 'the host, not the URL');
});

test('a model the server does not list is named, with what it does list', async () => {
  const c = await save(withWindow.url, 'gpt-5');
  assert.equal(c.status, 'warning');
  assert.match(c.summary, /"gpt-5" is not among them \(it lists qwen-coder, llama\)/);
});

test('a server that reports no window: said so, and the window is asked for', async () => {
  const c = await save(noWindow.url, 'local-model');
  assert.equal(c.status, 'warning');
  assert.match(c.summary, /does not report the context window/);
  assert.match(c.hint ?? '', /capsule\.model\.contextWindow/);
});

test('no /models route: a 1-token request checks the endpoint and the model', async () => {
  const before = noModels.chatRequests.length;
  const c = await save(noModels.url, 'proxied');
  assert.equal(c.status, 'warning');
  assert.match(c.summary, /no model list, but "proxied" answered a 1-token request/);
  assert.equal(noModels.chatRequests[before]?.body !== undefined && (noModels.chatRequests[before]?.body as { max_tokens?: number }).max_tokens, 1);
});

test('a wrong base URL is reported as such: nothing listening, or a path that is not the API', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const refused = await save(`http://127.0.0.1:${port}/v1`, 'qwen-coder');
  assert.equal(refused.status, 'error');
  assert.match(refused.summary, new RegExp(`127\\.0\\.0\\.1:${port} · ECONNREFUSED`));
  assert.equal(refused.hint, nothingListeningHint(`127.0.0.1:${port}`));

  const wrongPath = await save(withWindow.url.replace(/\/v1$/, '/api'), 'qwen-coder');
  assert.equal(wrongPath.status, 'error');
  assert.match(wrongPath.summary, /HTTP 404/);
  assert.match(wrongPath.hint ?? '', /check the base URL/);
});
