// Capsule: Select Model shows each model's window and its source, the soft threshold and hard limit ("auto: N" when derived), and a learned window survives into new chats.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';

const STATED = 8_192;
const KEY = 'sk-test-picker-0123456789abcdef';
const h = createHarness();
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
  v.send({ type: 'setupProvider', provider: { kind: 'openai', baseUrl: server.url, model: 'small-model' } });
  v.send({ type: 'setApiKey', key: KEY });
  await until(() => lastOf(v.messages(), 'snapshot')?.setup?.required === false, 'the provider to work');
  await until(() => (lastOf(v.messages(), 'snapshot')?.models ?? []).some((m) => m.id === 'big-model'), 'the endpoint’s models');
});

after(async () => {
  v.dispose();
  await h.stop();
  await server.close();
});

async function pickerDetails(): Promise<Map<string, string>> {
  const details = new Map<string, string>();
  h.state.answer = (kind, _prompt, items) => {
    if (kind === 'quickPick') for (const it of items as readonly { label: string; detail?: string }[]) details.set(it.label, it.detail ?? '');
    return undefined;
  };
  await h.command('capsule.selectModel');
  h.state.answer = () => undefined;
  return details;
}

test('the picker shows the window, its source, and the soft threshold and hard limit, derived ones as "auto: N"', async () => {
  const d = await pickerDetails();
  assert.equal(d.get('small-model'), 'window 16,000 (provider) · compacts from auto: 10,400 · hard limit auto: 13,000');
  assert.equal(d.get('big-model'), 'window 128,000 (provider) · compacts from 92,569 · hard limit 115,712');
});

test('an overflow error that states the window: the picker says "learned from overflow error", globalState keeps it, a new chat starts from it', async () => {
  let overflowed = 0;
  server.onMatch(
    (req) => overflowed === 0 && req.body.messages.some((m) => JSON.stringify(m).includes('trigger overflow')),
    () => {
      overflowed += 1;
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${STATED} tokens. However, your messages resulted in 9000 tokens.`,
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        },
      };
    },
  );
  server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  server.setFallback(() => ({ text: 'Answered.' }));
  const mark = v.mark();
  v.send({ type: 'send', text: 'trigger overflow please', clientId: 'p1' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn');
  assert.equal(overflowed, 1);
  await until(
    () => (lastOf(v.messages(), 'snapshot')?.models.find((m) => m.id === 'small-model')?.windowSource ?? '') === 'learned',
    'the learned window in the models',
  );
  const d = await pickerDetails();
  assert.match(
    d.get('small-model') ?? '',
    /^window 8,192 \(learned from overflow error\) · compacts from auto: \d{1,3}(,\d{3})* · hard limit auto: \d{1,3}(,\d{3})*$/,
  );
  const stored = JSON.stringify(h.context.globalState.keys().map((k) => h.context.globalState.get(k)));
  assert.match(stored, new RegExp(`"contextWindow":${STATED}`), 'the learned window is kept in globalState');

  const before = server.chatRequests.length;
  await h.command('capsule.newChat');
  const m2 = v.mark();
  v.send({ type: 'send', text: 'hello again', clientId: 'p2' });
  await until(() => v.since(m2).some((m) => m.type === 'busy' && !m.busy), 'the new chat turn');
  const fresh = server.chatRequests.slice(before);
  assert.ok(fresh.length > 0 && fresh.every((r) => r.status === 200));
  assert.equal(lastOf(v.messages(), 'snapshot')?.budget?.contextWindow, STATED, 'the new chat is planned against the learned window');
});
