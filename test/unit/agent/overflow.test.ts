// docs/behaviour.md#overflow against a server whose real window is smaller than configured: one recovery compaction, one resend, never a third request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TurnEndEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { agentRequests, compactionEnds, entriesOf, GOOD_SUMMARY, openSession, tempDir, verifyFile, writeSession } from './agentHelpers.js';

async function setup(t: Parameters<typeof tempDir>[0], serverWindow: number) {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const path = `${dir}/chat.jsonl`;
  // About 11k tokens (our estimate) of history: under our soft limit (13,600 of a 20k window), so no compaction is planned.
  await writeSession(path, historyOf(6, 100));
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: 'Here is the answer.' }));
  server.setWindow(serverWindow);
  const opened = await openSession(server, dir, { sessionPath: path });
  return { server, ...opened };
}

test('a real overflow gets exactly one recovery compaction one level higher and one resend, which succeeds', async (t) => {
  const { server, session, events, path } = await setup(t, 12_500);
  const r = await session.agent.runTurn({ userText: 'What changed?', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'Here is the answer.');

  const sent = agentRequests(server);
  assert.deepEqual(
    sent.map((q) => q.status),
    [400, 200],
    'the oversized request once, then the compacted one',
  );
  assert.ok((sent[1]?.promptTokens ?? 0) < (sent[0]?.promptTokens ?? 0));
  const ends = compactionEnds(events);
  assert.equal(ends.length, 1);
  assert.equal(ends[0]?.trigger, 'context_overflow');
  assert.equal(ends[0]?.outcome, 'completed');
  assert.equal(ends[0]?.level, 1, "one level above the turn's last compaction (none: level 0)");
  assert.ok(events.some((e) => e.type === 'notice' && /context overflow/i.test(e.message)));
  assert.equal((await verifyFile(path)).ok, true);
});

test('the window the overflow states is adopted, so the one resend fits even a much smaller window than configured', async (t) => {
  const { server, session, path } = await setup(t, 6_000);
  const r = await session.agent.runTurn({ userText: 'What changed?', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed', r.error);
  const sent = agentRequests(server);
  assert.deepEqual(
    sent.map((q) => q.status),
    [400, 200],
  );
  const windows = (await entriesOf(path)).flatMap((e) => (e.type === 'model_change' ? [e.contextWindow] : []));
  assert.equal(windows[windows.length - 1], 6_000, 'the stated window is recorded for the next turns');
  assert.equal((await verifyFile(path)).ok, true);
});

test('a second overflow in the same turn ends it with a clear error and no third request', async (t) => {
  const { server, session, events, path } = await setup(t, 6_000);
  // A provider that refuses whatever it gets: the recovery cannot help, and the turn must end.
  server.onMatch({ summary: false }, { contextOverflow: true });
  const r = await session.agent.runTurn({ userText: 'What changed?', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /context overflow again/i);
  assert.match(r.error ?? '', /not resent/);

  const sent = agentRequests(server);
  assert.deepEqual(
    sent.map((q) => q.status),
    [400, 400],
    'exactly two agent requests',
  );
  assert.equal(compactionEnds(events).filter((e) => e.trigger === 'context_overflow').length, 1, 'one recovery compaction');
  const blocked = events.flatMap((e) => (e.type === 'barrier' && e.event.type === 'preflight_blocked' ? [e.event.reason] : []));
  assert.deepEqual(blocked, ['overflow_repeated']);

  const end = (await entriesOf(path)).filter((e): e is TurnEndEntry => e.type === 'turn_end').pop();
  assert.equal(end?.status, 'failed');
  assert.equal(end?.error, r.error);
  assert.equal((await verifyFile(path)).ok, true);
});

test('an overflow the recovery cannot shrink is not resent', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.onMatch({ summary: false }, { contextOverflow: true });
  const { session } = await openSession(server, dir);
  const r = await session.agent.runTurn({ userText: 'Hello', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /could not make the request smaller, so it was not resent/);
  assert.equal(agentRequests(server).length, 1);
});
