// A failed turn through the protocol: the error card's facts, Retry sending the same turn again (no second user message), banners that end with the turn.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ErrorItem, HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, turnOn, until, type OpenView } from './hostHarness.js';

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
let host: string;

/** The server asks to be retried at once, so the agent's own four attempts take no backoff time. */
const FAIL_500 = {
  status: 500,
  body: { error: { message: 'upstream exploded', type: 'server_error', code: null } },
  headers: { 'retry-after-ms': '0' },
} as const;

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  host = new URL(server.url).host;
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function items(ms: readonly HostToWebview[]): TranscriptItem[] {
  return ms.flatMap((m) => (m.type === 'itemsAppended' ? m.items : m.type === 'itemUpdated' ? [m.item] : m.type === 'snapshot' ? m.transcript.items : []));
}

function sessionLines(): { type: string; content?: string; status?: string }[] {
  const dir = join(h.storage, 'sessions');
  const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'));
  assert.ok(file, 'the chat has a session file');
  return readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; content?: string; status?: string });
}

test('a server error shows a card with the host, the status and the provider’s words; Retry answers, once, without a second message', async () => {
  server.enqueue(FAIL_500, FAIL_500, FAIL_500, FAIL_500);
  const failed = await turnOn(v, 'Explain the build');
  const card = items(failed).find((i): i is ErrorItem => i.kind === 'error');
  assert.ok(card?.fault, 'the failure is a structured card');
  assert.equal(card.fault.endpoint, host);
  assert.equal(card.fault.status, 500);
  assert.equal(card.fault.message, 'upstream exploded');
  assert.equal(card.fault.title, 'Server error');
  assert.equal(card.fault.retry, true);
  assert.ok(!JSON.stringify(card).includes('/v1'), 'the host only, never the URL');

  // The "retrying (attempt N of 4)" lines are marked as belonging to the turn, and the turn's end follows them.
  const notices = failed.filter((m): m is Extract<HostToWebview, { type: 'notice' }> => m.type === 'notice');
  assert.ok(
    notices.some((n) => /attempt 4 of 4/.test(n.text) && n.transient === true),
    JSON.stringify(notices),
  );
  const lastNotice = failed.lastIndexOf(notices[notices.length - 1] as HostToWebview);
  assert.ok(failed.findIndex((m, i) => i > lastNotice && m.type === 'busy' && !m.busy) > lastNotice, 'busy:false comes after the last retry notice');

  server.enqueue({ text: 'The build uses esbuild.' });
  const before = server.chatRequests.length;
  const mark = v.mark();
  v.send({ type: 'retryTurn', turnId: card.fault.turnId });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the retry to finish');
  const retried = v.since(mark);
  assert.ok(
    retried.some((m) => m.type === 'streamEnd' && m.markdown === 'The build uses esbuild.'),
    'the answer arrives',
  );
  assert.equal(server.chatRequests.length, before + 1, 'one request');
  const sent = (server.chatRequests[before]?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  assert.deepEqual(
    sent.filter((m) => m.role === 'user').map((m) => m.content),
    ['Explain the build'],
    'the request carries the message once',
  );

  // What the view shows now: the message once, the answer, and no error card (the failure stays on its own branch).
  const snap = lastOf(retried, 'snapshot');
  assert.ok(snap, 'the leaf move is answered with a snapshot');
  const shown = [...snap.transcript.items, ...items(retried.slice(retried.indexOf(snap) + 1))];
  assert.equal(shown.filter((i) => i.kind === 'user').length, 1);
  assert.equal(shown.filter((i) => i.kind === 'error').length, 0);

  // The file: one user entry, the failed turn end and the completed one, both kept (append-only).
  const lines = sessionLines();
  assert.equal(lines.filter((l) => l.type === 'user').length, 1);
  assert.deepEqual(
    lines.filter((l) => l.type === 'turn_end').map((l) => l.status),
    ['failed', 'completed'],
  );
});

test('a card loses Retry once the chat moved on; Retry of a turn that is not the last is refused with a reason', async () => {
  server.enqueue({
    status: 401,
    body: { error: { message: 'Incorrect API key provided: sk-abc*****wxyz.', type: 'invalid_request_error', code: 'invalid_api_key' } },
  });
  const failed = await turnOn(v, 'Second question');
  const card = items(failed).find((i): i is ErrorItem => i.kind === 'error');
  assert.equal(card?.fault?.settings, 'apiKey', 'a refused key offers its setting');
  server.enqueue({ text: 'Fine now.' });
  const next = await turnOn(v, 'Third question');
  const updated = items(next).find((i) => i.id === card?.id);
  assert.equal(updated?.kind === 'error' ? updated.fault?.retry : undefined, false, 'the old card keeps its facts, without Retry');

  const mark = v.mark();
  v.send({ type: 'retryTurn', turnId: card?.fault?.turnId ?? '' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the refused retry');
  const said = v.since(mark).find((m) => m.type === 'notice' && m.level === 'error');
  assert.match(said?.type === 'notice' ? said.text : '', /Only the last turn|completed/);
  assert.equal(sessionLines().filter((l) => l.type === 'user').length, 3, 'nothing was sent or added');
});
