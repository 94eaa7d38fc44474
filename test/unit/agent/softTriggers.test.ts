// docs/behaviour.md#triggers soft triggers driven by the agent: turn_complete after a turn at the soft limit, milestone from the checkpoint tool, idle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckpointEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { compactionEnds, entriesOf, GOOD_SUMMARY, openSession, tempDir, verifyFile, writeSession } from './agentHelpers.js';

async function withHistory(t: Parameters<typeof tempDir>[0], turns: number) {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 128_000 });
  t.after(() => server.close());
  const path = `${dir}/chat.jsonl`;
  await writeSession(path, historyOf(turns, 100));
  return { dir, server, path };
}

test("a turn that ends at the soft limit records turn_complete, and the next turn's barrier compacts for it", async (t) => {
  const { dir, server, path } = await withHistory(t, 6);
  const long = Array.from({ length: 150 }, (_, i) => `Finding ${i}: the module behaves as documented.`).join('\n');
  let answers = 0;
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: answers++ === 0 ? long : 'short' }));
  const o = await openSession(server, dir, { sessionPath: path });
  const first = await o.session.agent.runTurn({ userText: 'Report everything.', signal: new AbortController().signal });
  assert.equal(first.status, 'completed');
  assert.deepEqual(compactionEnds(o.events), [], 'under the soft limit before the long answer');
  assert.ok(o.session.agent.barrier.measure().tokens >= o.session.agent.limits().softLimit);
  assert.deepEqual(
    o.session.agent.triggers.pendingIntents().map((p) => p.kind),
    ['turn_complete'],
  );
  await o.session.agent.runTurn({ userText: 'Next.', signal: new AbortController().signal });
  await o.session.close();
  assert.deepEqual(
    compactionEnds(o.events).map((e) => [e.trigger, e.outcome]),
    [['turn_complete', 'completed']],
  );
  assert.deepEqual(o.session.agent.triggers.pendingIntents(), []);
});

test("the agent's checkpoint tool records a milestone whose compaction runs at the next barrier of the same turn", async (t) => {
  const { dir, server, path } = await withHistory(t, 20);
  server.setFallback((req) => {
    const body = req.body;
    if (body.tool_choice === 'none') return { text: GOOD_SUMMARY };
    if (body.messages[body.messages.length - 1]?.role === 'tool') return { text: 'Milestone reached.' };
    return { toolCalls: [{ name: 'checkpoint', arguments: { kind: 'milestone', note: 'All modules fixed; tests green.' } }] };
  });
  const o = await openSession(server, dir, {
    sessionPath: path,
    window: 128_000,
    maxOutput: 4096,
    settings: { keepRecentTokens: 8000, minReclaimableTokens: 4000 },
  });
  const r = await o.session.agent.runTurn({ userText: 'Fix the rest and mark the milestone.', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  const entries = await entriesOf(path);
  const milestone = entries.find((e): e is CheckpointEntry => e.type === 'checkpoint' && e.kind === 'milestone');
  assert.equal(milestone?.note, 'All modules fixed; tests green.');
  const ends = compactionEnds(o.events);
  assert.deepEqual(
    ends.map((e) => [e.trigger, e.outcome]),
    [['milestone', 'completed']],
  );
  assert.equal((await verifyFile(path)).ok, true);
});

test('idle: nothing before idleMinutes, then the idle compaction runs while nobody waits', async (t) => {
  const { dir, server, path } = await withHistory(t, 20);
  server.setFallback(() => ({ text: GOOD_SUMMARY }));
  const o = await openSession(server, dir, {
    sessionPath: path,
    window: 128_000,
    maxOutput: 4096,
    settings: { keepRecentTokens: 8000, minReclaimableTokens: 4000, compactOnIdle: true, idleMinutes: 1 },
  });
  const t0 = Date.now();
  assert.equal(await o.session.agent.noteIdle(t0 + 30_000), undefined);
  assert.equal(server.chatRequests.length, 0);
  const r = await o.session.agent.noteIdle(t0 + 61_000);
  await o.session.close();
  assert.ok(r, 'due after a minute');
  assert.deepEqual(
    r.outcomes.map((x) => [x.trigger, x.outcome]),
    [['idle', 'completed']],
  );
  assert.equal(server.chatRequests.length, 1, 'the summary request only');
});

test('idle stays off by default', async (t) => {
  const { dir, server, path } = await withHistory(t, 20);
  const o = await openSession(server, dir, { sessionPath: path, window: 128_000, maxOutput: 4096, settings: { keepRecentTokens: 8000 } });
  assert.equal(await o.session.agent.noteIdle(Date.now() + 24 * 3_600_000), undefined);
  await o.session.close();
  assert.equal(server.chatRequests.length, 0);
});
