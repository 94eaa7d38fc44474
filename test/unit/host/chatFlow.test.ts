// The chat through the protocol against the scripted OpenAI-compatible server: streaming, busy, queued input, tools, stop.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview, TranscriptItem } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.compaction.safetyReserveTokens': 1_000,
    'capsule.compaction.keepRecentTokens': 2_000,
    'capsule.compaction.minReclaimableTokens': 1_000,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function appended(ms: readonly HostToWebview[]): TranscriptItem[] {
  return ms.flatMap((m) => (m.type === 'itemsAppended' ? m.items : []));
}

function busyFlips(ms: readonly HostToWebview[]): boolean[] {
  return ms.flatMap((m) => (m.type === 'busy' ? [m.busy] : []));
}

test('the snapshot offers the configured model with its limits and needs no setup', () => {
  const snap = lastOf(v.messages(), 'snapshot');
  assert.ok(snap);
  assert.equal(snap.currentModelId, 'fake-model');
  const model = snap.models.find((m) => m.id === 'fake-model');
  assert.deepEqual(model && { window: model.contextWindow, hard: model.hardLimit, soft: model.softLimit }, { window: 20_000, hard: 17_000, soft: 13_600 });
  assert.equal(snap.setup?.required, false);
  assert.equal(snap.budget?.model, 'fake-model');
});

test('send: busy, the user item with its clientId, a streamed answer, then idle', async () => {
  server.enqueue({ text: 'Hello! Here is a **streamed** answer in several pieces.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Say hello', clientId: 'c1' });
  await until(() => busyFlips(v.since(mark)).join() === 'true,false', 'busy to go on and off');
  const ms = v.since(mark);
  const items = appended(ms);
  const user = items.find((i) => i.kind === 'user');
  assert.ok(user?.kind === 'user');
  assert.equal(user.text, 'Say hello');
  assert.equal(user.clientId, 'c1');
  assert.match(user.id, /^e_/, 'the user item is the transcript entry');
  const answer = items.find((i) => i.kind === 'assistant');
  assert.ok(answer?.kind === 'assistant' && answer.streaming === true);
  const deltas = ms.flatMap((m) => (m.type === 'streamDelta' && m.itemId === answer.id ? [m.text] : []));
  assert.ok(deltas.length >= 2, 'the answer arrives in pieces');
  assert.equal(deltas.join(''), 'Hello! Here is a **streamed** answer in several pieces.');
  const end = ms.find((m) => m.type === 'streamEnd');
  assert.ok(end?.type === 'streamEnd' && end.itemId === answer.id);
  const before = lastOf(v.messages().slice(0, mark), 'snapshot')?.budget?.effectiveTokens ?? 0;
  const after = lastOf(ms, 'budget')?.budget.effectiveTokens ?? 0;
  assert.ok(after > before, `the meter moves with the turn (${before} → ${after})`);
  // Order: busy on, user item, answer, busy off.
  const kinds = ms.map((m) => (m.type === 'itemsAppended' ? `items:${m.items[0]?.kind}` : m.type)).filter((k) => k !== 'budget' && k !== 'streamDelta');
  assert.deepEqual(kinds.slice(0, 2), ['busy', 'items:user']);
  assert.equal(kinds[kinds.length - 1], 'busy');
});

test('a send while busy is queued, then consumed: the queue empties and the user item carries its clientId', async () => {
  server.enqueue({ text: 'A slow answer that takes a while to arrive.', chunkDelayMs: 30 }, { text: 'Second answer.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'First, slowly', clientId: 'q1' });
  await until(() => v.since(mark).some((m) => m.type === 'streamDelta'), 'the first answer to start');
  v.send({ type: 'send', text: 'Then this', clientId: 'q2' });
  await until(() => busyFlips(v.since(mark)).includes(false), 'both turns to finish');
  const ms = v.since(mark);
  const queues = ms.flatMap((m) => (m.type === 'queue' ? [m.items.map((q) => q.id)] : []));
  assert.deepEqual(queues[0], ['q2'], 'shown as queued while the first turn runs');
  assert.deepEqual(queues[queues.length - 1], [], 'and taken off the queue when it runs');
  const consumedAt = ms.findIndex((m) => m.type === 'queue' && m.items.length === 0);
  const userAt = ms.findIndex((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'user' && i.clientId === 'q2'));
  assert.ok(consumedAt >= 0 && userAt > consumedAt, 'the user item follows the queue update');
  const flips = busyFlips(ms);
  assert.equal(flips.indexOf(false), flips.length - 1, 'busy stays on from the first turn to the end of the queued one');
  const sent = server.chatRequests.map((r) => (r.body as { messages: { role: string; content: unknown }[] }).messages.at(-1)?.content);
  assert.deepEqual(sent.slice(-2), ['First, slowly', 'Then this'], 'run in order');
});

test('tool calls show as running, then done with duration and a result preview', async () => {
  server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The notes list three words.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Read notes.txt', clientId: 't1' });
  await until(() => busyFlips(v.since(mark)).includes(false), 'the turn to finish');
  const ms = v.since(mark);
  const running = appended(ms).find((i) => i.kind === 'tool');
  assert.ok(running?.kind === 'tool');
  assert.equal(running.status, 'running');
  assert.equal(running.name, 'read_file');
  assert.match(running.argsSummary, /notes\.txt/);
  const done = ms.flatMap((m) => (m.type === 'itemUpdated' ? [m.item] : [])).find((i) => i.id === running.id);
  assert.ok(done?.kind === 'tool');
  assert.equal(done.status, 'ok');
  assert.ok(done.durationMs !== undefined && done.durationMs >= 0);
  assert.match(done.resultPreview ?? '', /beta/);
  // A later snapshot shows the same item under the same id.
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'a snapshot');
  const again = lastOf(v.since(mark), 'snapshot')?.transcript.items.find((i) => i.id === running.id);
  assert.ok(again?.kind === 'tool' && again.status === 'ok');
});

test('writes wait on an inline approval card (no modal): Reject writes nothing, Accept writes the file', async () => {
  const write = { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello from capsule\n' } }] };
  server.enqueue(write, { text: 'I could not write it.' }, write, { text: 'Written.' });
  const answerFirstCard = async (mark: number, choice: 'allow' | 'deny'): Promise<void> => {
    await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'an approval card');
    const card = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
    assert.ok(card !== undefined);
    assert.equal(card.title, 'Create hello.txt');
    v.send({ type: 'approval', id: card.id, choice });
  };
  let mark = v.mark();
  v.send({ type: 'send', text: 'Create hello.txt', clientId: 'w1' });
  await answerFirstCard(mark, 'deny');
  await until(() => busyFlips(v.since(mark)).includes(false), 'the refused turn');
  assert.equal(
    h.state.asked.some((a) => a.kind === 'modal'),
    false,
    'no modal dialog',
  );
  assert.equal(existsSync(join(h.workspace, 'hello.txt')), false, 'refused: nothing written');
  const refused = v
    .since(mark)
    .flatMap((m) => (m.type === 'itemUpdated' ? [m.item] : []))
    .find((i) => i.kind === 'tool');
  assert.ok(refused?.kind === 'tool' && refused.status === 'error');

  mark = v.mark();
  v.send({ type: 'send', text: 'Create hello.txt, please', clientId: 'w2' });
  await answerFirstCard(mark, 'allow');
  await until(() => busyFlips(v.since(mark)).includes(false), 'the allowed turn');
  assert.equal(readFileSync(join(h.workspace, 'hello.txt'), 'utf8'), 'hello from capsule\n');
});

test('Stop cancels the running turn: the stream ends, busy goes off, and the chat says it stopped', async () => {
  server.enqueue({ text: 'This answer never finishes because the model stalls after a few words.', stallAfterChunks: 2 });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Talk forever', clientId: 's1' });
  await until(() => v.since(mark).some((m) => m.type === 'streamDelta'), 'the answer to start');
  v.send({ type: 'cancel' });
  await until(() => busyFlips(v.since(mark)).includes(false), 'the turn to stop');
  const ms = v.since(mark);
  assert.ok(
    ms.some((m) => m.type === 'streamEnd'),
    'the partial answer is closed',
  );
  assert.ok(
    appended(ms).some((i) => i.kind === 'info' && /cancel/i.test(i.text)),
    'a line says the turn was cancelled',
  );
  await until(() => server.chatRequests.at(-1)?.aborted === true, 'the request to be aborted');
});

test('loadOlder pages back through a long chat in order, with hasMore', async () => {
  const snap = lastOf(v.messages(), 'snapshot');
  const oldest = snap?.transcript.items[0];
  assert.ok(oldest);
  v.send({ type: 'loadOlder', beforeId: oldest.id });
  await until(() => v.messages().some((m) => m.type === 'olderItems'), 'the older page');
  const page = lastOf(v.messages(), 'olderItems');
  assert.deepEqual(page && { items: page.items, hasMore: page.hasMore }, { items: [], hasMore: false }, 'nothing before the first item of a short chat');
});

test('doom loop: the same tool call three times shows a Continue / Stop card; Continue sends "Continue" as the next message', async () => {
  const call = { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
  server.enqueue(call, call, call);
  const mark = v.mark();
  v.send({ type: 'send', text: 'Read notes.txt', clientId: 'c-loop' });
  await until(() => busyFlips(v.since(mark)).join() === 'true,false', 'the turn to stop');
  const card = appended(v.since(mark)).find((i) => i.kind === 'loop');
  assert.ok(card?.kind === 'loop', 'a loop card is shown');
  assert.equal(card.toolName, 'read_file');
  assert.match(card.text, /called read_file 3 times in a row/);
  // The card's Continue button posts exactly this intent (webview/chatApp.ts): the turn goes on as a new message.
  server.enqueue({ text: 'Fine, moving on.' });
  const next = v.mark();
  v.send({ type: 'send', text: 'Continue' });
  await until(() => busyFlips(v.since(next)).join() === 'true,false', 'the continued turn');
  assert.ok(appended(v.since(next)).some((i) => i.kind === 'assistant'));
});

test('after Refresh reopens the chat file, a new answer still reaches the view live (the new store is watched, not the closed one)', async () => {
  await h.command('capsule.refresh');
  server.enqueue({ text: 'Answered after the reload.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'Still there?', clientId: 'c-reload' });
  await until(() => busyFlips(v.since(mark)).join() === 'true,false', 'busy to go on and off');
  const items = appended(v.since(mark));
  assert.ok(
    items.some((i) => i.kind === 'user' && i.clientId === 'c-reload'),
    'the message is shown as appended',
  );
  const answer = items.find((i) => i.kind === 'assistant');
  assert.ok(answer, `the answer is shown as appended: ${items.map((i) => i.kind).join(',')}`);
  const ms = v.since(mark);
  assert.equal(ms.flatMap((m) => (m.type === 'streamDelta' && m.itemId === answer.id ? [m.text] : [])).join(''), 'Answered after the reload.');
  assert.ok(
    ms.some((m) => m.type === 'streamEnd' && m.itemId === answer.id),
    'its entry replaced the streamed item',
  );
});
