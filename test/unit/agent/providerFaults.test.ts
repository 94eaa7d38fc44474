// Provider faults on chat requests and on summary requests (docs/behaviour.md#capsule, #overflow, #agent): 429, 500, timeout, truncated JSON, broken streams.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AssistantEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import {
  agentRequests,
  compactionEnds,
  entriesOf,
  GOOD_SUMMARY,
  openSession,
  summaryRequests,
  tempDir,
  verifyFile,
  writeSession,
  type Opened,
} from './agentHelpers.js';

const ANSWER = 'All good.';

/** A session with `turns` turns of history (6 ≈ 12.5k tokens, under the soft limit; 8 ≈ 15k, over it). */
async function setup(
  t: Parameters<typeof tempDir>[0],
  turns: number,
  over: Parameters<typeof openSession>[2] = {},
): Promise<Opened & { server: FakeOpenAIServer }> {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const path = `${dir}/chat.jsonl`;
  if (turns > 0) await writeSession(path, historyOf(turns, 100));
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: ANSWER }));
  return { server, ...(await openSession(server, dir, { sessionPath: path, ...over })) };
}

async function turn(o: Opened) {
  const r = await o.session.agent.runTurn({ userText: 'Status?', signal: new AbortController().signal });
  await o.session.close();
  assert.equal((await verifyFile(o.path)).ok, true, 'the transcript verifies whatever happened');
  return r;
}

test('chat: a 429 is retried after backoff and the answer arrives', async (t) => {
  const o = await setup(t, 0);
  o.server.onMatch({ summary: false }, { status: 429, headers: { 'retry-after-ms': '10' } }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, ANSWER);
  assert.deepEqual(
    agentRequests(o.server).map((q) => q.status),
    [429, 200],
  );
  assert.ok(o.events.some((e) => e.type === 'notice' && /retrying/.test(e.message)));
});

test('chat: 500 on every attempt ends the turn after 4 attempts, not more', async (t) => {
  const o = await setup(t, 0);
  o.server.onMatch({ summary: false }, { status: 500 });
  const r = await turn(o);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /failed after 4 attempts/);
  assert.equal(agentRequests(o.server).length, 4);
});

test('chat: a request that hangs times out and is retried', async (t) => {
  const o = await setup(t, 0, { agentOptions: { stallTimeoutMs: 300 } });
  o.server.onMatch({ summary: false }, { hang: true }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  const sent = agentRequests(o.server);
  assert.equal(sent.length, 2);
  assert.equal(sent[0]?.aborted, true, 'the hung request was abandoned');
});

test('chat: a 400 that is not an overflow is not retried', async (t) => {
  const o = await setup(t, 0);
  o.server.onMatch({ summary: false }, { status: 400 });
  const r = await turn(o);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /^The model request failed: /);
  assert.equal(agentRequests(o.server).length, 1);
});

test('chat: a stream that breaks after text is not retried; the text the user saw is kept', async (t) => {
  const o = await setup(t, 0);
  o.server.onMatch({ summary: false }, { dropConnection: true, afterChunks: 3 }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /broke off/);
  assert.equal(agentRequests(o.server).length, 1);
  const kept = (await entriesOf(o.path)).filter((e): e is AssistantEntry => e.type === 'assistant');
  assert.equal(kept.length, 1);
  assert.equal(kept[0]?.finishReason, 'error');
  assert.ok((kept[0]?.content.length ?? 0) > 0);
});

test('chat: truncated JSON counts as an overflow (docs/behaviour.md#overflow): one recovery compaction, the cut answer discarded, one resend', async (t) => {
  const o = await setup(t, 6);
  o.server.onMatch({ summary: false }, { truncatedJson: true }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, ANSWER);
  assert.equal(agentRequests(o.server).length, 2);
  const ends = compactionEnds(o.events);
  assert.deepEqual(
    ends.map((e) => [e.trigger, e.outcome]),
    [['context_overflow', 'completed']],
  );
  const discarded = o.events.filter((e) => e.type === 'assistant_end' && e.discarded === true);
  assert.equal(discarded.length, 1);
  // Only the regenerated answer is in the transcript.
  const answers = (await entriesOf(o.path)).filter((e): e is AssistantEntry => e.type === 'assistant' && e.turnId === r.turnId);
  assert.deepEqual(
    answers.map((a) => a.content),
    [ANSWER],
  );
});

test("summary: a 429 is retried and the capsule is the model's (full quality)", async (t) => {
  const o = await setup(t, 8);
  o.server.onMatch({ summary: true }, { status: 429, headers: { 'retry-after-ms': '10' } }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  assert.deepEqual(
    summaryRequests(o.server).map((q) => q.status),
    [429, 200],
  );
  const ends = compactionEnds(o.events);
  assert.equal(ends.length, 1);
  assert.equal(ends[0]?.outcome, 'completed');
  assert.equal(ends[0]?.quality, 'full');
});

test('summary: 500 on every attempt falls back to the deterministic capsule and the turn goes on', async (t) => {
  // A budget that fits all three backoff waits (0.5 + 1 + 2 s, instant here), so all 4 attempts are made.
  const o = await setup(t, 8, {
    settings: { keepRecentTokens: 2000, minReclaimableTokens: 1000, safetyReserveTokens: 1000, minTokensForAutoCompact: 0, timeoutMs: 10_000 },
  });
  o.server.onMatch({ summary: true }, { status: 500 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  assert.equal(summaryRequests(o.server).length, 4);
  const ends = compactionEnds(o.events);
  assert.equal(ends[0]?.outcome, 'completed');
  assert.equal(ends[0]?.quality, 'degraded');
  assert.match(ends[0]?.line ?? '', /fallback capsule/);
  assert.equal(agentRequests(o.server).length, 1);
});

test('summary: a hung summary request hits the compaction timeout and the fallback capsule is used', async (t) => {
  const o = await setup(t, 8, {
    settings: { keepRecentTokens: 2000, minReclaimableTokens: 1000, safetyReserveTokens: 1000, minTokensForAutoCompact: 0, timeoutMs: 1000 },
  });
  o.server.onMatch({ summary: true }, { hang: true });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  const ends = compactionEnds(o.events);
  assert.equal(ends[0]?.quality, 'degraded');
  assert.match(ends[0]?.fallbackReason ?? '', /timeout/);
});

test("summary: truncated JSON is bounded and retried once, then the model's capsule is used", async (t) => {
  const o = await setup(t, 8);
  o.server.onMatch({ summary: true }, { truncatedJson: true }, { times: 1 });
  const r = await turn(o);
  assert.equal(r.status, 'completed', r.error);
  const sums = summaryRequests(o.server);
  assert.equal(sums.length, 2);
  assert.ok((sums[1]?.promptTokens ?? 0) < (sums[0]?.promptTokens ?? 0), 'the retry is bounded');
  assert.equal(compactionEnds(o.events)[0]?.quality, 'full');
});

test('chat: an empty answer and an answer cut at the output limit complete the turn with a notice', async (t) => {
  const o = await setup(t, 0, { maxOutput: 20 });
  o.server.onMatch({ summary: false }, { empty: true }, { times: 1 });
  o.server.onMatch({ summary: false }, { text: 'word '.repeat(200) }, { times: 1 });
  const signal = new AbortController().signal;
  const empty = await o.session.agent.runTurn({ userText: 'One', signal });
  const cut = await o.session.agent.runTurn({ userText: 'Two', signal });
  await o.session.close();
  assert.equal(empty.status, 'completed');
  assert.equal(cut.status, 'completed');
  const notices = o.events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
  assert.equal(notices.length, 2);
  assert.match(notices[0] ?? '', /empty answer/);
  assert.match(notices[1] ?? '', /cut off at the output limit \(20 tokens\)/);
});
