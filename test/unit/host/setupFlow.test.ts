// First-run setup through the protocol: provider choice into settings, the API key into SecretStorage only, model switching.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';

const KEY = 'sk-test-7f3a9c1e5b2d4f60a8c7e9d1b3f5a7c9';
const h = createHarness({
  settings: {
    'capsule.compaction.keepRecentTokens': 2_000,
    'capsule.compaction.minReclaimableTokens': 1_000,
    'capsule.compaction.minTokensForAutoCompact': 0,
    'capsule.compaction.safetyReserveTokens': 1_000,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  server = await startFakeOpenAI({
    apiKey: KEY,
    models: [
      { id: 'small-model', contextLength: 16_000 },
      { id: 'big-model', contextLength: 128_000 },
    ],
  });
  await h.start();
  v = h.openView();
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.required === true, 'the setup to be required');
});

after(async () => {
  v.dispose();
  await h.stop();
  await server.close();
});

test('setup: the provider goes to settings, the key to SecretStorage, and it never shows in settings, log or messages', async () => {
  v.send({ type: 'setupProvider', provider: { kind: 'openai', baseUrl: server.url, model: 'small-model' } });
  v.send({ type: 'setApiKey', key: KEY });
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.required === false, 'the provider to work');
  assert.equal(h.state.config.get('capsule.provider.baseUrl'), server.url);
  assert.equal(h.state.config.get('capsule.model.id'), 'small-model');
  assert.equal(h.state.config.get('capsule.provider.kind'), 'openai');
  assert.deepEqual([...h.secrets.stored.entries()], [[`capsule.apiKey:${server.url}`, KEY]]);

  const snap = lastOf(v.messages(), 'snapshot');
  assert.equal(snap?.setup?.hasApiKey, true);
  assert.equal(snap?.currentModelId, 'small-model');
  const options = new Map(snap?.models.map((m) => [m.id, m]));
  assert.equal(options.get('small-model')?.contextWindow, 16_000, 'limits come from the endpoint’s /models list');
  assert.equal(options.get('big-model')?.contextWindow, 128_000);

  // A message goes out with the key as the bearer token (the fake answers 401 otherwise).
  server.enqueue({ text: 'Authenticated answer.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'hello', clientId: 'k1' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn');
  assert.ok(v.since(mark).some((m) => m.type === 'streamEnd' && m.markdown === 'Authenticated answer.'));
  assert.equal(server.chatRequests.at(-1)?.headers.authorization, `Bearer ${KEY}`);

  const leaks = [
    ['settings', JSON.stringify([...h.state.config.entries()])],
    ['log', h.state.log.join('\n')],
    ['messages to the webview', JSON.stringify(v.webview.posted)],
    ['workspace state', JSON.stringify(h.context.workspaceState.keys().map((k) => h.context.workspaceState.get(k)))],
    ['notifications', JSON.stringify(h.state.messages)],
  ] as const;
  for (const [where, text] of leaks) assert.ok(!text.includes(KEY) && !text.includes(KEY.slice(3, 20)), `the key must not appear in the ${where}`);
});

test('selectModel switches the running chat to another model, records it, and the settings follow', async () => {
  const mark = v.mark();
  v.send({ type: 'selectModel', id: 'big-model' });
  await until(() => lastOf(v.since(mark), 'snapshot')?.currentModelId === 'big-model', 'the switch');
  assert.equal(h.state.config.get('capsule.model.id'), 'big-model');
  const switched = v
    .since(mark)
    .flatMap((m) => (m.type === 'itemsAppended' ? m.items : []))
    .find((i) => i.kind === 'info' && /big-model/.test(i.text));
  assert.ok(switched, 'the chat says the model changed');
  assert.equal(lastOf(v.since(mark), 'snapshot')?.budget?.contextWindow, 128_000);

  server.enqueue({ text: 'From the big model.' });
  const m2 = v.mark();
  v.send({ type: 'send', text: 'who are you', clientId: 'k2' });
  await until(() => v.since(m2).some((m) => m.type === 'busy' && !m.busy), 'the turn');
  assert.equal((server.chatRequests.at(-1)?.body as { model: string }).model, 'big-model');
});

test('Set API Key from the palette replaces the stored key; an empty entry removes it and setup is required again', async () => {
  h.state.answer = (kind) => (kind === 'inputBox' ? '' : undefined);
  await h.command('capsule.setApiKey');
  assert.equal(h.secrets.stored.size, 0);
  // A custom base URL without a key is usable in general (local servers need none)...
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.hasApiKey === false, 'the key to be gone');
  // But this endpoint demands a key: its /models answer (401) opens the setup panel with the reason.
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.required === true, 'setup to be required after the 401');
  assert.match(lastOf(v.messages(), 'snapshot')?.setup?.message ?? '', /401/);
  h.state.answer = (kind) => (kind === 'inputBox' ? KEY : undefined);
  await h.command('capsule.setApiKey');
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.hasApiKey === true, 'the key to be back');
  assert.equal(h.secrets.stored.get(`capsule.apiKey:${server.url}`), KEY);
});
