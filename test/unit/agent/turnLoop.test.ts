// The turn loop against the fake server: tool round trip, transcript shape, calibration, mid-turn compaction, approval, failed barrier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import type { AssistantEntry, ToolResultEntry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { warmEncoding } from '../../../src/node/tokenCounter.js';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import {
  agentRequests,
  agentResponder,
  compactionEnds,
  entriesOf,
  GOOD_SUMMARY,
  makeWorkspace,
  openSession,
  rejected,
  tempDir,
  verifyFile,
  writeSession,
} from './agentHelpers.js';

test('a turn runs user → tool call → tool result → final answer, and the transcript and events say so', async (t) => {
  const dir = await tempDir(t);
  const ws = await makeWorkspace(dir, 1, 20);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  // The table built first: until it is, counts are upper bounds (docs/behaviour.md#cold-start) and on a loaded machine
  // the delayed build may not have run by the time the figure below is read.
  warmEncoding('o200k_base');
  const script = agentResponder(() => [{ name: 'read_file', arguments: { path: 'src/f0.ts' } }], 'The file exports 20 constants.');
  // The final reply reports more prompt tokens than we estimate, so the budget must follow the provider's figure.
  server.setFallback((req) => {
    const reply = script(req);
    return 'text' in reply && !('toolCalls' in reply) ? { ...reply, usage: { promptTokens: 9000 } } : reply;
  });
  const { session, events, path } = await openSession(server, dir, {
    workspace: { roots: [ws], approve: async () => true, trusted: () => true },
  });
  const r = await session.agent.runTurn({ userText: 'What does src/f0.ts export?', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'The file exports 20 constants.');
  assert.equal(r.requests, 2);

  const kinds = events.filter((e) => e.type !== 'text_delta').map((e) => e.type);
  assert.deepEqual(kinds, [
    'turn_start',
    'assistant_start',
    'assistant_end',
    'cache_metrics',
    'tool_start',
    'tool_end',
    'assistant_start',
    'assistant_end',
    'cache_metrics',
    'turn_end',
  ]);
  const streamed = events.flatMap((e) => (e.type === 'text_delta' ? [e.delta] : [])).join('');
  assert.equal(streamed, 'The file exports 20 constants.');

  // Calibration (docs/behaviour.md#tokens): the reply carries the provider's usage under the prefix fingerprint the barrier computes.
  const measured = session.agent.barrier.measure();
  assert.equal(measured.source, 'provider_usage');
  assert.ok(measured.tokens > 9000, String(measured.tokens));
  await session.close();

  const entries = await entriesOf(path);
  assert.deepEqual(
    entries.map((e) => e.type),
    ['system_update', 'model_change', 'checkpoint', 'user', 'assistant', 'tool_result', 'assistant', 'turn_end'],
  );
  const [base, , ck, user, call, result, answer, end] = entries;
  assert.ok(
    ck?.type === 'checkpoint' && ck.kind === 'auto' && ck.forEntryId === user?.id && user?.parentId === ck.id,
    'every message sits under its own checkpoint',
  );
  assert.ok(base?.type === 'system_update' && base.mode === 'base' && base.content === DEFAULT_SYSTEM_PROMPT);
  assert.ok(user?.type === 'user' && user.turnId === r.turnId);
  const a = call as AssistantEntry;
  assert.equal(a.toolCalls[0]?.name, 'read_file');
  assert.ok(a.usage && a.usage.promptTokens > 0 && a.prefixFingerprint?.startsWith('fp_'));
  assert.equal(a.model, 'fake-model');
  assert.equal(a.turnId, r.turnId);
  const tr = result as ToolResultEntry;
  assert.equal(tr.toolCallId, a.toolCalls[0]?.id);
  assert.match(tr.content, /export const v0_19 = 19/);
  assert.equal(tr.isError, false);
  assert.ok(typeof tr.durationMs === 'number');
  assert.ok(answer?.type === 'assistant' && answer.finishReason === 'stop' && answer.toolCalls.length === 0);
  assert.ok(end?.type === 'turn_end' && end.status === 'completed' && end.turnId === r.turnId);
  assert.equal((await verifyFile(path)).ok, true);

  // What the provider saw: the system prompt, the tools, and the tool result answering its call.
  const [first, second] = agentRequests(server).map((q) => q.body as ChatBody);
  assert.equal(first?.messages[0]?.role, 'system');
  assert.equal(first?.messages[0]?.content, DEFAULT_SYSTEM_PROMPT);
  assert.ok((first?.tools?.length ?? 0) >= 6);
  assert.equal(first?.stream, true);
  assert.equal(second?.messages[second.messages.length - 1]?.role, 'tool');
});

test('a write without approval is refused with a tool error the model reads, and the turn still completes', async (t) => {
  const dir = await tempDir(t);
  const ws = await makeWorkspace(dir, 0, 0);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(agentResponder(() => [{ name: 'write_file', arguments: { path: 'new.txt', content: 'hello' } }], 'I could not write the file.'));
  const asked: string[] = [];
  const { session, path } = await openSession(server, dir, {
    workspace: { roots: [ws], approve: async (req) => (asked.push(req.title), false), trusted: () => true },
  });
  const r = await session.agent.runTurn({ userText: 'Create new.txt', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed');
  assert.equal(asked.length, 1);
  const result = (await entriesOf(path)).find((e): e is ToolResultEntry => e.type === 'tool_result');
  assert.equal(result?.isError, true);
  assert.match(result?.content ?? '', /not approved|declined|refused|denied/i);
});

test('one long autonomous turn compacts between tool batches with the same turn id and no new user message', async (t) => {
  const dir = await tempDir(t);
  const ws = await makeWorkspace(dir, 12, 120);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  // Twelve batches of one big read each (~2.5k tokens), then the answer: more than the 17k hard limit in one turn.
  let batches = 0;
  server.setFallback((req) => {
    const body = req.body;
    if (body.tool_choice === 'none') return { text: GOOD_SUMMARY };
    if (body.messages[body.messages.length - 1]?.role === 'tool') batches += 1;
    if (batches >= 12) return { text: 'All twelve modules read.' };
    return { toolCalls: [{ name: 'read_file', arguments: { path: `src/f${batches}.ts` } }] };
  });
  const { session, events, path } = await openSession(server, dir, {
    workspace: { roots: [ws], approve: async () => true, trusted: () => true },
  });
  const r = await session.agent.runTurn({ userText: 'Read every module under src/ and summarize.', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'All twelve modules read.');
  assert.deepEqual(rejected(server), []);
  const ends = compactionEnds(events);
  assert.ok(ends.length >= 1, 'compacted mid-turn');
  assert.ok(
    ends.every((e) => e.outcome === 'completed'),
    JSON.stringify(ends.map((e) => e.line)),
  );
  const entries = await entriesOf(path);
  assert.equal(entries.filter((e) => e.type === 'user').length, 1, 'no new user message');
  const capsules = entries.filter((e) => e.type === 'capsule');
  assert.ok(capsules.length >= 1);
  // The barrier's events all belong to this turn.
  assert.ok(events.every((e) => e.type !== 'barrier' || e.turnId === r.turnId));
  assert.equal((await verifyFile(path)).ok, true);
});

test('a host that already holds the session store open shares it; closing the agent session leaves it open', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const path = `${dir}/held.jsonl`;
  const store = await JsonlSessionStore.open(path, { create: { id: 's_held', cwd: dir } });
  t.after(() => store.close());
  const { session } = await openSession(server, dir, { sessionPath: path, store });
  assert.equal(session.store, store);
  const r = await session.agent.runTurn({ userText: 'Hi', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed');
  assert.equal(store.readOnly, false);
  assert.equal(store.entries().filter((e) => e.type === 'turn_end').length, 1);
});

test('when a mandatory compaction fails the turn ends with the visible "Automatic summarization did not complete" and nothing is sent', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: 'never' }));
  const path = `${dir}/over.jsonl`;
  await writeSession(path, historyOf(10, 100)); // ~20k tokens: over the 17k hard limit
  const blocker = `${dir}/blocker`;
  await writeFile(blocker, 'not a folder');
  const { session, events } = await openSession(server, dir, { sessionPath: path, archiveDir: `${blocker}/archive` });
  const r = await session.agent.runTurn({ userText: 'Go on', signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /^Automatic summarization did not complete \(.+\); nothing oversized was sent\. Retry, or run \/compact\.$/);
  assert.equal(agentRequests(server).length, 0);
  assert.ok(events.some((e) => e.type === 'barrier' && e.event.type === 'preflight_blocked' && e.event.reason === 'failed'));
  assert.equal((await verifyFile(path)).ok, true);
});
