// The plan through the protocol: an update_plan call posts the checklist, a bad one changes nothing, a reload shows it again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.compaction.safetyReserveTokens': 1_000,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
const PLAN = [
  { step: 'Find the bug', status: 'done' },
  { step: 'Fix it', status: 'in_progress' },
  { step: 'Run the tests', status: 'pending' },
] as const;

test('a plan update reaches the view as a checklist; a bad update leaves it as it was; a snapshot carries it', async () => {
  assert.deepEqual(lastOf(v.messages(), 'snapshot')?.plan, [], 'a new chat has no plan');
  server.enqueue({ toolCalls: [{ name: 'update_plan', arguments: { plan: PLAN } }] }, { text: 'Planned.' });
  let mark = v.mark();
  v.send({ type: 'send', text: 'Fix the bug in steps', clientId: 'p1' });
  await until(() => idle(v.since(mark)), 'the turn to finish');
  assert.deepEqual(lastOf(v.since(mark), 'plan')?.plan, PLAN);

  server.enqueue({ toolCalls: [{ name: 'update_plan', arguments: { plan: [{ step: 'x', status: 'started' }] } }] }, { text: 'Oops.' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Change the plan badly', clientId: 'p2' });
  await until(() => idle(v.since(mark)), 'the second turn to finish');
  assert.equal(lastOf(v.since(mark), 'plan'), undefined, 'a rejected update posts no plan');

  mark = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'a snapshot');
  assert.deepEqual(lastOf(v.since(mark), 'snapshot')?.plan, PLAN, 'the view gets the plan back after a reload');
});
