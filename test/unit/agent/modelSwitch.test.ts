// docs/behaviour.md#triggers model switch: 128k → 32k with ~60k in context; the handoff summary is made by the 128k model before the 32k one sees anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapsuleEntry, ModelChangeEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI, type ChatBody, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { entriesOf, GOOD_SUMMARY, openSession, tempDir, verifyFile, writeSession } from './agentHelpers.js';

const SETTINGS = { keepRecentTokens: 8000, minReclaimableTokens: 4000, timeoutMs: 5000 };
const SMALL = { chat: { baseURL: '', apiKey: '', model: 'small' }, override: { contextWindow: 32_768, maxOutputTokens: 4096 } };

async function setup(t: Parameters<typeof tempDir>[0], extra: Parameters<typeof openSession>[2] = {}) {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({
    models: [
      { id: 'big', contextLength: 128_000 },
      { id: 'small', contextLength: 32_768 },
    ],
  });
  t.after(() => server.close());
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: `answered by ${req.body.model}` }));
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, historyOf(29, 100));
  const o = await openSession(server, dir, { sessionPath: path, model: 'big', window: 128_000, maxOutput: 4096, settings: SETTINGS, ...extra });
  const small = { ...SMALL, chat: { ...SMALL.chat, baseURL: server.url } };
  return { dir, server, small, ...o };
}

function modelsSent(server: FakeOpenAIServer): string[] {
  return server.chatRequests.map((q) => `${(q.body as ChatBody).model}${(q.body as ChatBody).tool_choice === 'none' ? ':summary' : ''}`);
}

test('switching to a model whose hard limit is below the context: the previous model makes the handoff summary first', async (t) => {
  const { server, small, session, events, path } = await setup(t);
  const before = session.agent.barrier.measure().tokens;
  assert.ok(before > 55_000 && before < 70_000, `about 60k in context (${before})`);

  const r = await session.switchModel(small);
  assert.equal(r.ok, true, r.ok ? '' : r.error);
  assert.equal(r.handoff, true);
  assert.ok(r.tokens <= r.hardLimit);
  assert.deepEqual(modelsSent(server), ['big:summary'], 'the handoff summary came from the 128k model; the 32k one got nothing');
  assert.equal(session.agent.currentModel.chat.model, 'small');
  assert.ok(events.some((e) => e.type === 'model_changed' && e.model === 'small' && e.handoff));

  const turn = await session.agent.runTurn({ userText: 'Continue.', signal: new AbortController().signal });
  await session.close();
  assert.equal(turn.status, 'completed', turn.error);
  assert.equal(turn.answer, 'answered by small');
  assert.deepEqual(modelsSent(server), ['big:summary', 'small']);
  assert.equal(server.chatRequests[1]?.status, 200);

  const entries = await entriesOf(path);
  const capsule = entries.find((e): e is CapsuleEntry => e.type === 'capsule');
  assert.equal(capsule?.trigger, 'model_switch');
  const changes = entries.filter((e): e is ModelChangeEntry => e.type === 'model_change').map((e) => e.model);
  assert.deepEqual(changes, ['big', 'small']);
  // The capsule comes before the switch: the new model starts from the compacted context.
  const lastChange = entries.map((e) => e.type).lastIndexOf('model_change');
  assert.ok(entries.findIndex((e) => e === capsule) < lastChange);
  assert.equal((await verifyFile(path)).ok, true);
});

test('when the handoff compaction fails, the switch is refused and nothing is sent to the new model', async (t) => {
  const dir = await tempDir(t);
  const blocker = join(dir, 'not-a-folder');
  await writeFile(blocker, 'the evidence archive cannot be created here');
  const { server, small, session, events, path } = await setup(t, { archiveDir: join(blocker, 'archive') });

  const r = await session.switchModel(small);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /^Switching to small was refused: the handoff compaction by big did not complete .*Nothing was sent to small\.$/);
  assert.equal(session.agent.currentModel.chat.model, 'big');
  assert.ok(events.some((e) => e.type === 'notice' && e.level === 'error'));
  assert.ok(!modelsSent(server).some((m) => m.startsWith('small')));

  // The session carries on with the previous model.
  const turn = await session.agent.runTurn({ userText: 'Continue.', signal: new AbortController().signal });
  await session.close();
  assert.equal(turn.answer, 'answered by big');
  assert.ok(!modelsSent(server).some((m) => m.startsWith('small')));
  const entries = await entriesOf(path);
  assert.equal(entries.filter((e) => e.type === 'capsule').length, 0);
  assert.deepEqual(
    entries.filter((e): e is ModelChangeEntry => e.type === 'model_change').map((e) => e.model),
    ['big'],
  );
});

test('switching to a model with room needs no handoff; compactOnModelSwitch records an intent that the next turn consumes', async (t) => {
  const { server, session, events } = await setup(t, { settings: { ...SETTINGS, compactOnModelSwitch: true } });
  const r = await session.switchModel({
    chat: { baseURL: server.url, apiKey: '', model: 'big-2' },
    override: { contextWindow: 128_000, maxOutputTokens: 4096 },
  });
  assert.equal(r.ok, true);
  assert.equal(r.handoff, false);
  assert.equal(server.chatRequests.length, 0, 'nothing compacted at the switch itself');
  assert.deepEqual(
    session.agent.triggers.pendingIntents().map((p) => p.kind),
    ['model_switch'],
  );

  const turn = await session.agent.runTurn({ userText: 'Continue.', signal: new AbortController().signal });
  await session.close();
  assert.equal(turn.status, 'completed', turn.error);
  const ends = events.flatMap((e) => (e.type === 'barrier' && e.event.type === 'compaction_end' ? [e.event] : []));
  assert.deepEqual(
    ends.map((e) => [e.trigger, e.outcome]),
    [['model_switch', 'completed']],
  );
  assert.deepEqual(modelsSent(server), ['big-2:summary', 'big-2']);
});
