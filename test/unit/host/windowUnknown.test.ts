// A window nobody reported is shown as unknown (assumed) in the meter's data, the status bar and the picker, and its setting opens from the chat.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, until, type OpenView } from './hostHarness.js';

// A model the built-in table does not know, on a server whose /models reports no window.
const h = createHarness({ settings: { 'capsule.model.id': 'acme-local-7b' } });
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  server = await startFakeOpenAI({ hideModelLimits: true, models: [{ id: 'acme-local-7b', contextLength: 65_000 }] });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

test('the budget says the window is an assumption; the status bar and the picker say it is unknown', async () => {
  const snap = lastOf(v.messages(), 'snapshot');
  assert.equal(snap?.budget?.windowSource, 'default');
  assert.equal(snap?.budget?.contextWindow, 32_768, 'the engine keeps a working assumption');
  assert.match(h.state.statusText(), /window unknown/);
  const option = snap?.models.find((m) => m.id === 'acme-local-7b');
  assert.equal(option?.windowSource, 'default');
  assert.ok(
    h.state.log.some((l) => /window unknown \(assuming 32,768 tokens\)/.test(l)),
    'the log says assumed too',
  );
});

test('"set it" opens the context-window setting; once set, the window is the user’s and the marks go', async () => {
  const opened: unknown[] = [];
  h.state.commands.set('workbench.action.openSettings', (...args: unknown[]) => void opened.push(args[0]));
  v.send({ type: 'openSettings', target: 'window' });
  await until(() => opened.length > 0, 'the settings editor');
  assert.deepEqual(opened, ['capsule.model.contextWindow']);

  const mark = v.mark();
  h.configure({ 'capsule.model.contextWindow': 65_000 });
  await until(() => lastOf(v.since(mark), 'snapshot')?.budget?.windowSource === 'override', 'the new window');
  assert.equal(lastOf(v.since(mark), 'snapshot')?.budget?.contextWindow, 65_000);
  await until(() => !/window unknown/.test(h.state.statusText()), 'the status bar to follow');
});
