// Compaction through the protocol: the barrier line and card when a turn crosses the soft limit, /compact, rewind from the tree, delete.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BudgetCategories, CompactionCard, HostToWebview } from '../../../src/protocol/messages.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';
import { replayItems } from './webviewReplay.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 12_000,
    'capsule.model.maxOutputTokens': 1_500,
    'capsule.compaction.safetyReserveTokens': 500,
    'capsule.compaction.keepRecentTokens': 1_000,
    'capsule.compaction.minReclaimableTokens': 1_000,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const LONG = Array.from({ length: 110 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented and its tests pass.`).join('\n');

type Node = {
  kind: string;
  summary?: { id: string };
  moment?: { message?: { id: string; content: string } };
  child?: { kind: string; entry: { type: string; checkpointId: string } };
};
type Tree = { getChildren(n?: unknown): Promise<Node[]> };
const tree = (): Tree => h.state.providers.get('capsule.checkpoints') as Tree;

before(async () => {
  server = await startFakeOpenAI({ window: 12_000 });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: LONG }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const turn = (text: string): Promise<HostToWebview[]> => turnOn(v, text);

/** A queued command (/milestone): it waits its turn, then answers with an info line. */
async function quickOrTurn(text: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${v.mark()}` });
  await until(
    () => v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => (i.kind === 'info' && !i.text.startsWith('/')) || i.kind === 'error')),
    `the answer to "${text}"`,
  );
  return v.since(mark);
}

/** Quick commands (/budget, /capsule export…) answer at once, without a busy span. */
async function quick(text: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${v.mark()}` });
  await until(
    () => v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' || i.kind === 'error')),
    `the answer to "${text}"`,
  );
  return v.since(mark);
}

/** The latest card shown live: compaction items arrive with their entries (and again once the duration is known). */
function cardItemIn(ms: readonly HostToWebview[]): { readonly id: string; readonly card: CompactionCard } | undefined {
  const items = ms.flatMap((m) => (m.type === 'itemsAppended' ? m.items : m.type === 'itemUpdated' ? [m.item] : []));
  const last = items.filter((i) => i.kind === 'compaction').at(-1);
  return last?.kind === 'compaction' ? last : undefined;
}

const cardIn = (ms: readonly HostToWebview[]): CompactionCard | undefined => cardItemIn(ms)?.card;

const total = (c: BudgetCategories): number => c.system + c.tools + c.capsule + c.messages + c.toolResults;

test('a turn that crosses the soft limit shows the barrier start → progress → end, then a card with before/after figures', async () => {
  let ms: HostToWebview[] = [];
  for (let i = 0; i < 12 && !ms.some((m) => m.type === 'barrier'); i++) ms = await turn(`Check module set ${i} and report every finding.`);
  const barrier = ms.flatMap((m) => (m.type === 'barrier' ? [m] : []));
  assert.ok(barrier.length >= 3, 'the barrier was shown');
  assert.equal(barrier[0]?.phase, 'start');
  assert.equal(barrier[0]?.percent, 0);
  assert.ok(['auto_threshold', 'turn_complete'].includes(barrier[0]?.trigger ?? ''), `a size trigger (${barrier[0]?.trigger})`);
  const progress = barrier.filter((b) => b.phase === 'progress').map((b) => b.percent);
  assert.ok(
    progress.length > 0 && progress.every((p, i) => p > 0 && p <= 100 && (i === 0 || p >= (progress[i - 1] ?? 0))),
    `live, rising percentages: ${progress.join(',')}`,
  );
  const end = barrier[barrier.length - 1];
  assert.equal(end?.phase, 'end');
  assert.equal(end?.result?.outcome, 'completed');
  const r = end?.result;
  assert.ok(r?.tokensBefore !== undefined && r.tokensAfter !== undefined && r.tokensAfter < r.tokensBefore, 'tokens before → after');
  assert.match(r?.checkpointId ?? '', /^ck_/);

  const card = cardIn(ms);
  assert.ok(card, 'the card');
  assert.equal(card.checkpointId, r?.checkpointId);
  assert.equal(card.tokensBefore, r?.tokensBefore);
  assert.equal(card.quality, 'full');
  assert.equal(card.before.capsule, 0, 'no capsule before the first compaction');
  assert.ok(card.after.capsule > 0, 'the capsule is its own category afterwards');
  assert.ok(card.after.messages < card.before.messages, 'messages were replaced');
  assert.ok(total(card.after) < total(card.before));
  assert.equal(card.before.system, card.after.system, 'the same categories as the meter, consistently measured');
  const endAt = ms.indexOf(end as HostToWebview);
  assert.ok(
    ms.some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'checkpoint' && i.checkpointId === card.checkpointId)),
    'the checkpoint item',
  );
  assert.ok(
    ms.slice(endAt).some((m) => m.type === 'budget'),
    'the meter moves after the compaction',
  );

  // The snapshot (after a reload of the view) shows the same card and keeps the result line.
  const mark = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'a snapshot');
  const snap = lastOf(v.since(mark), 'snapshot');
  const item = snap?.transcript.items.find((i) => i.kind === 'compaction');
  assert.ok(item?.kind === 'compaction' && item.id === cardItemIn(ms)?.id, 'the card is the capsule entry');
  assert.equal(item.card.tokensAfter, card.tokensAfter);
  assert.deepEqual(item.card.before, card.before);
  assert.equal(snap?.barrier?.phase, 'end');

  // The capsule viewer gets the sections and the ledger; the first capsule has nothing to diff against.
  v.send({ type: 'viewCapsule', checkpointId: card.checkpointId });
  await until(() => v.messages().some((m) => m.type === 'capsule'), 'the capsule');
  const capsule = lastOf(v.messages(), 'capsule')?.capsule;
  assert.ok(capsule);
  assert.deepEqual(capsule.sections.map((s) => s.name).slice(0, 2), ['Goal', 'Constraints & Preferences']);
  assert.match(capsule.ledger, /^## Ledger/);
  assert.equal(capsule.previous, null);

  // The tree lists the chat's messages, with the compaction under the message whose turn made it.
  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  const messages = await tree().getChildren(session);
  assert.ok(messages.length > 0 && messages.every((n) => n.kind === 'message'));
  const children = (await Promise.all(messages.map((m) => tree().getChildren(m)))).flat();
  assert.deepEqual(
    children.map((n) => n.child?.kind),
    ['compaction'],
  );
  assert.equal(children[0]?.child?.entry.checkpointId, card.checkpointId);

  // "Undo this compaction" on the card: the history it summarized fits the hard limit again, so the card turns
  // "undone" in place, the event is a line of its own, and Redo brings the capsule back (refusals when it does not
  // fit are tested on the facade and the CLI).
  const undo = v.mark();
  v.send({ type: 'compactionAction', action: 'undo', checkpointId: card.checkpointId });
  await until(
    () => v.since(undo).some((m) => m.type === 'itemUpdated' && m.item.kind === 'compaction' && m.item.card.undone === true),
    'the card marked undone',
  );
  assert.ok(
    v.since(undo).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && /^Compaction undone/.test(i.text))),
    'a line says the compaction was undone',
  );
  const redo = v.mark();
  v.send({ type: 'compactionAction', action: 'redo', checkpointId: card.checkpointId });
  await until(
    () => v.since(redo).some((m) => m.type === 'itemUpdated' && m.item.kind === 'compaction' && m.item.card.undone === undefined),
    'the card in force again',
  );
  const reloaded = v.mark();
  await h.command('capsule.refresh');
  await until(() => lastOf(v.since(reloaded), 'snapshot') !== undefined, 'the reopened chat');
  const cards = (lastOf(v.since(reloaded), 'snapshot')?.transcript.items ?? []).filter((i) => i.kind === 'compaction');
  assert.deepEqual(
    cards.map((i) => (i.kind === 'compaction' ? i.card.undone === true : null)),
    [false],
    'after a reload the snapshot agrees: one card, in force',
  );

  // /milestone records a checkpoint with its note; the tree shows it under its message.
  const said = await quickOrTurn('/milestone parser done');
  assert.ok(said.some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && /Milestone ck_\w+ recorded: parser done/.test(i.text))));
  const rows = (await Promise.all((await tree().getChildren(session)).map((m) => tree().getChildren(m)))).flat();
  assert.ok(
    rows.some((n) => n.child?.kind === 'checkpoint' && n.child.entry.checkpointId.startsWith('ck_')),
    'the milestone is in the tree',
  );
});

function requestMessages(i: number): unknown {
  return (server.chatRequests[i]?.body as ChatBody).messages;
}

function agentRequestIndexes(): number[] {
  return server.chatRequests.flatMap((r, i) => (r.path.endsWith('/chat/completions') && !isSummaryRequest(r.body as ChatBody) ? [i] : []));
}

test('rewind from the tree: the next request is exactly the model input of that checkpoint', async () => {
  await h.command('capsule.newChat');
  await until(() => lastOf(v.messages(), 'snapshot')?.transcript.items.length === 0, 'the new chat');
  // Under the 1,500-token output cap, so the answers are stored whole.
  const answer = (q: string): string => (q.startsWith('Third') ? `Answer to: ${q}` : `${LONG.split('\n').slice(0, 80).join('\n')}\n(${q})`);
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: answer(String(req.body.messages.at(-1)?.content)) }));
  await turn('First: list every finding.');
  await turn('Second: list them again.');
  const second = agentRequestIndexes().at(-1) ?? -1;
  const compacted = await turn('/compact keep the findings');
  const shown = cardIn(compacted);
  assert.ok(shown, 'the manual compaction completed');
  const card = { card: shown };
  assert.equal(card.card.trigger, 'user');
  // docs/behaviour.md#portable: an explicit /compact with a validated, full capsule becomes the workspace's Project Memory.
  assert.ok(
    compacted.some(
      (m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && i.text.startsWith('Project Memory was updated from this compaction')),
    ),
    'the chat says Project Memory was updated (in words, no checkpoint id)',
  );
  assert.match(readFileSync(join(h.storage, 'project-memory.capsule.md'), 'utf8'), /## Goal/);
  await turn('Third: what next?');
  const third = agentRequestIndexes().at(-1) ?? -1;
  assert.notDeepEqual(requestMessages(third), requestMessages(second), 'after the compaction the input starts from the capsule');

  // Rewind to before the third message: its text comes back to the composer, and sending it again sends exactly
  // the input it had (the compacted one: a rewind never lands above the hard limit).
  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  const messageNode = (text: string): Promise<Node | undefined> =>
    tree()
      .getChildren(session)
      .then((ns) => ns.find((n) => n.moment?.message?.content === text));
  const thirdNode = await messageNode('Third: what next?');
  assert.ok(thirdNode);
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Rewind') ? 'Rewind' : undefined);
  const mark = v.mark();
  await h.command('capsule.rewindHere', thirdNode);
  await until(() => v.since(mark).some((m) => m.type === 'composer'), 'the message back in the composer');
  assert.deepEqual(
    v.since(mark).find((m) => m.type === 'composer'),
    { type: 'composer', text: 'Third: what next?' },
  );
  const items = lastOf(v.since(mark), 'snapshot')?.transcript.items ?? [];
  assert.equal(items.filter((i) => i.kind !== 'info').at(-1)?.kind, 'compaction', 'the chat ends where the third message was sent: after the compaction');
  await turn('Third: what next?');
  assert.deepEqual(requestMessages(agentRequestIndexes().at(-1) ?? -1), requestMessages(third), 'the same model input as the first time');

  // Rewind to before the second message: the compaction is now on another branch, the input is that of then.
  const secondNode = await messageNode('Second: list them again.');
  assert.ok(secondNode);
  await h.command('capsule.rewindHere', secondNode);
  await turn('Second: list them again.');
  const after = agentRequestIndexes().at(-1) ?? -1;
  assert.deepEqual(requestMessages(after), requestMessages(second), 'exactly the input of the moment before the second message');
  const snap = lastOf(v.messages(), 'snapshot');
  assert.ok(!snap?.transcript.items.some((i) => i.kind === 'compaction'), 'the capsule is on the other branch now');
  const expected = requestMessages(after) as unknown[];

  // Reopening the chat (as a window reload does) must not change that input: the Project Memory written by the
  // /compact on the abandoned branch is not appended to a chat that already has history.
  const reopened = v.mark();
  await h.command('capsule.refresh');
  await until(() => lastOf(v.since(reopened), 'snapshot') !== undefined, 'the reopened chat');
  await turn('Fourth: still there?');
  const fourth = agentRequestIndexes().at(-1) ?? -1;
  const system = (i: number): unknown => (requestMessages(i) as unknown[])[0];
  assert.deepEqual(system(fourth), system(after), 'the system prompt is the same after reopening');
  assert.deepEqual((requestMessages(fourth) as unknown[]).slice(0, expected.length), expected, 'and so is the history');
  const [reopenedSession] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  assert.ok(
    (await tree().getChildren(reopenedSession)).some((n) => n.kind === 'branches'),
    'the abandoned turns are listed under Other branches',
  );
});

test('/capsule export writes a portable file; /capsule load brings it into another chat as its starting state', async () => {
  // The compaction of the previous test is on another branch now; its capsule still exports.
  const ck = [...v.messages()]
    .reverse()
    .map((m) => cardIn([m]))
    .find((c) => c !== undefined);
  assert.ok(ck);
  const exported = await quick(`/capsule export ${ck.checkpointId} handoff.capsule.md`);
  const said = exported.flatMap((m) => (m.type === 'itemsAppended' ? m.items : [])).find((i) => i.kind === 'info');
  // The answer's facts, not its wording: which checkpoint, its quality and size, and where the file is.
  const text = said?.kind === 'info' ? said.text : '';
  for (const fact of [ck.checkpointId, 'full', 'handoff.capsule.md']) assert.ok(text.includes(fact), `the answer names ${fact}: ${text}`);
  assert.match(text, /\d+ tokens/);
  assert.match(readFileSync(join(h.workspace, 'handoff.capsule.md'), 'utf8'), /^---\n[\s\S]*checksum/);

  await h.command('capsule.newChat');
  // Project Memory exists by now, so the new chat may open with its one "inherited" line and nothing else.
  await until(
    () =>
      lastOf(v.messages(), 'snapshot')?.transcript.items.every((i) => i.kind === 'info' && i.text.startsWith('This chat inherited Project Memory')) === true,
    'the new chat',
  );
  const again = await quick('/capsule export ck_nothere x.md');
  assert.ok(
    again.some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'error' && i.text.includes('ck_nothere'))),
    'an error naming the missing checkpoint',
  );
  const mark = v.mark();
  // The preview asks where it goes; this chat is the one just opened.
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Load capsule') ? 'This Chat' : undefined);
  await turn('/capsule load handoff.capsule.md');
  assert.ok(
    replayItems(v.messages()).some((i) => i.kind === 'compaction'),
    'the loaded capsule shows as a card',
  );
  assert.ok(
    v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info')),
    'the chat confirms the load',
  );
  await turn('Continue from the capsule.');
  const messages = requestMessages(agentRequestIndexes().at(-1) ?? -1) as { role: string; content: string }[];
  assert.equal(messages[1]?.content, 'What did we do so far?', 'the next request starts from the capsule pair (docs/behaviour.md#model-input)');
  assert.match(messages[2]?.content ?? '', /Imported capsule[\s\S]*## Goal/);
});

test('delete chat (from the tree, after a modal) removes the transcript and its evidence archive', async () => {
  const store = join(h.storage, 'sessions');
  const before = readdirSync(store).filter((n) => n.endsWith('.jsonl'));
  const sessions = (await tree().getChildren()).filter((n) => n.kind === 'session');
  const node = sessions.find((n) => existsSync(join(h.storage, 'archive', n.summary?.id ?? '', 'flight.jsonl')));
  const id = node?.summary?.id ?? '';
  assert.ok(node, 'a chat whose compactions archived evidence and flight records');
  h.state.answer = () => undefined;
  await h.command('capsule.deleteChat', node);
  assert.ok(existsSync(join(store, `${id}.jsonl`)), 'dismissing the modal deletes nothing');
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Delete') ? 'Delete' : undefined);
  await h.command('capsule.deleteChat', node);
  await until(() => !existsSync(join(store, `${id}.jsonl`)), 'the file to go');
  assert.ok(!existsSync(join(h.storage, 'archive', id)), 'the archive (and its flight log) is gone too');
  assert.equal(readdirSync(store).filter((n) => n.endsWith('.jsonl')).length, before.length - 1);
  assert.ok(!(await tree().getChildren()).some((n) => n.summary?.id === id), 'the tree no longer lists it');
  // Deleting the open chat moves to another one.
  const current = lastOf(v.messages(), 'snapshot')?.session?.id ?? '';
  const open = (await tree().getChildren()).find((n) => n.summary?.id === current);
  await h.command('capsule.deleteChat', open);
  await until(() => {
    const s = lastOf(v.messages(), 'snapshot');
    return s?.session !== null && s?.session !== undefined && s.session.id !== current;
  }, 'another chat to be current');
  assert.ok(!existsSync(join(store, `${current}.jsonl`)));
});
