// Cancelling a turn while the answer streams, while a tool runs and while the barrier compacts: the transcript stays whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/engine/agent/agentEvents.js';
import type { AssistantEntry, ToolResultEntry, TurnEndEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { agentRequests, entriesOf, GOOD_SUMMARY, openSession, summaryRequests, tempDir, verifyFile, writeSession } from './agentHelpers.js';

/** Runs a turn and aborts it the first time `when` matches an event (or when `arm` calls the abort it is given). */
async function cancelWhen(o: Awaited<ReturnType<typeof openSession>>, when: (e: AgentEvent) => boolean, arm?: (abort: () => void) => void) {
  const ctrl = new AbortController();
  o.session.agent.subscribe((e) => {
    if (!ctrl.signal.aborted && when(e)) ctrl.abort();
  });
  arm?.(() => ctrl.abort());
  const r = await o.session.agent.runTurn({ userText: 'Go.', signal: ctrl.signal });
  await o.session.close();
  const entries = await entriesOf(o.path);
  const end = entries.filter((e): e is TurnEndEntry => e.type === 'turn_end').pop();
  assert.equal(r.status, 'cancelled');
  assert.equal(end?.status, 'cancelled');
  assert.equal(end?.turnId, r.turnId);
  const report = await verifyFile(o.path);
  assert.equal(report.ok, true, JSON.stringify(report.issues));
  assert.deepEqual(
    report.issues.filter((i) => i.kind === 'split_tool_pair'),
    [],
    'no tool call without its result',
  );
  assert.equal(o.events.filter((e) => e.type === 'turn_end').length, 1);
  return { r, entries };
}

test('cancel while the answer streams: the text so far is kept as a cancelled reply', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const long = Array.from({ length: 200 }, (_, i) => `Sentence ${i} of a long answer.`).join(' ');
  server.setFallback(() => ({ text: long, chunkDelayMs: 5 }));
  const o = await openSession(server, dir);
  const { entries } = await cancelWhen(o, (e) => e.type === 'text_delta');
  const replies = entries.filter((e): e is AssistantEntry => e.type === 'assistant');
  assert.equal(replies.length, 1);
  assert.equal(replies[0]?.finishReason, 'cancelled');
  assert.ok((replies[0]?.content.length ?? 0) > 0 && (replies[0]?.content.length ?? 0) < long.length);
  assert.equal(server.chatRequests[0]?.aborted, true, 'the HTTP request was aborted');
});

test('cancel while a tool runs: the running call and the calls after it get "cancelled" results, nothing more is sent', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(() => ({
    toolCalls: [
      { name: 'run_command', arguments: { command: 'sleep 20' } },
      { name: 'read_file', arguments: { path: 'chat.jsonl' } },
    ],
  }));
  const o = await openSession(server, dir);
  const { entries } = await cancelWhen(o, (e) => e.type === 'tool_start' && e.name === 'run_command');
  const results = entries.filter((e): e is ToolResultEntry => e.type === 'tool_result');
  assert.equal(results.length, 2);
  assert.ok(
    results.every((r) => r.isError && /^Cancelled/.test(r.content)),
    JSON.stringify(results.map((r) => r.content)),
  );
  const ends = o.events.flatMap((e) => (e.type === 'tool_end' ? [e.cancelled] : []));
  assert.deepEqual(ends, [true, true]);
  assert.equal(agentRequests(server).length, 1, 'no continuation after the cancel');
});

test('cancel while compacting: no capsule is appended and nothing is sent to the model', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const path = `${dir}/chat.jsonl`;
  await writeSession(path, historyOf(8, 100)); // over the soft limit: the first preflight compacts
  server.setFallback(() => ({ text: GOOD_SUMMARY }));
  const o = await openSession(server, dir, { sessionPath: path });
  // The user presses stop while the summary request is in flight at the provider.
  const { entries } = await cancelWhen(
    o,
    () => false,
    (abort) =>
      server.onMatch({ summary: true }, () => {
        abort();
        return { hang: true };
      }),
  );
  assert.equal(entries.filter((e) => e.type === 'capsule').length, 0);
  assert.equal(summaryRequests(server).length, 1);
  assert.equal(agentRequests(server).length, 0);
  const ends = o.events.flatMap((e) => (e.type === 'barrier' && e.event.type === 'compaction_end' ? [e.event.outcome] : []));
  assert.deepEqual(ends, ['cancelled']);
});
