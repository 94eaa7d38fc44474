// Compaction through the protocol: the barrier line and card when a turn crosses the soft limit, /compact, rewind from the tree, delete.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BudgetCategories, HostToWebview } from '../../../src/protocol/messages.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { createHarness, lastOf, until, type OpenView } from './hostHarness.js';

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

type Node = { kind: string; summary?: { id: string }; entry?: { type: string; checkpointId: string } };
type Tree = { getChildren(n?: unknown): Promise<Node[]> };
const tree = (): Tree => h.state.providers.get('capsule.checkpoints') as Tree;

before(async () => {
  server = await startFakeOpenAI({ window: 12_000 });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: LONG }));
  h.state.config.set('capsule.provider.baseUrl', server.url);
  await h.start();
  v = h.openView();
  await until(() => v.messages().some((m) => m.type === 'snapshot' && m.setup?.required === false), 'the agent to open');
});

after(async () => {
  v.dispose();
  await h.stop();
  await server.close();
});

async function turn(text: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${v.mark()}` });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), `the turn "${text}" to finish`);
  return v.since(mark);
}

/** Quick commands (/budget, /capsule export…) answer at once, without a busy span. */
async function quick(text: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${v.mark()}` });
  await until(() => v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' || i.kind === 'error')), `the answer to "${text}"`);
  return v.since(mark);
}

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
  assert.ok(progress.length > 0 && progress.every((p, i) => p > 0 && p <= 100 && (i === 0 || p >= (progress[i - 1] ?? 0))), `live, rising percentages: ${progress.join(',')}`);
  const end = barrier[barrier.length - 1];
  assert.equal(end?.phase, 'end');
  assert.equal(end?.result?.outcome, 'completed');
  const r = end?.result;
  assert.ok(r?.tokensBefore !== undefined && r.tokensAfter !== undefined && r.tokensAfter < r.tokensBefore, 'tokens before → after');
  assert.match(r?.checkpointId ?? '', /^ck_/);

  const cardMsg = ms.find((m) => m.type === 'compactionCard');
  assert.ok(cardMsg?.type === 'compactionCard');
  const card = cardMsg.card;
  assert.equal(card.checkpointId, r?.checkpointId);
  assert.equal(card.tokensBefore, r?.tokensBefore);
  assert.equal(card.quality, 'full');
  assert.equal(card.before.capsule, 0, 'no capsule before the first compaction');
  assert.ok(card.after.capsule > 0, 'the capsule is its own category afterwards');
  assert.ok(card.after.messages < card.before.messages, 'messages were replaced');
  assert.ok(total(card.after) < total(card.before));
  assert.equal(card.before.system, card.after.system, 'the same categories as the meter, consistently measured');
  const endAt = ms.indexOf(end as HostToWebview);
  assert.ok(ms.slice(endAt).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'checkpoint' && i.checkpointId === card.checkpointId)), 'the checkpoint item');
  assert.ok(ms.slice(endAt).some((m) => m.type === 'budget'), 'the meter moves after the compaction');

  // The snapshot (after a reload of the view) shows the same card and keeps the result line.
  const mark = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'a snapshot');
  const snap = lastOf(v.since(mark), 'snapshot');
  const item = snap?.transcript.items.find((i) => i.kind === 'compaction');
  assert.ok(item?.kind === 'compaction' && item.id === cardMsg.id, 'the card is the capsule entry');
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

  // The tree lists the checkpoint and the capsule of the current chat.
  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  const entries = await tree().getChildren(session);
  assert.deepEqual(entries.map((n) => n.entry?.type), ['checkpoint', 'capsule']);
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
  const card = compacted.find((m) => m.type === 'compactionCard');
  assert.ok(card?.type === 'compactionCard', 'the manual compaction completed');
  assert.equal(card.card.trigger, 'user');
  // docs/behaviour.md#portable: an explicit /compact with a validated, full capsule becomes the workspace's Project Memory.
  assert.ok(compacted.some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && /Project Memory was updated/.test(i.text))));
  assert.match(readFileSync(join(h.storage, 'project-memory.capsule.md'), 'utf8'), /## Goal/);
  await turn('Third: what next?');
  const third = agentRequestIndexes().at(-1) ?? -1;
  assert.notDeepEqual(requestMessages(third), requestMessages(second), 'after the compaction the input starts from the capsule');

  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  const checkpoint = (await tree().getChildren(session)).find((n) => n.entry?.type === 'checkpoint' && n.entry.checkpointId === card.card.checkpointId);
  assert.ok(checkpoint);
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Rewind') ? 'Rewind' : undefined);
  const mark = v.mark();
  await h.command('capsule.rewindHere', checkpoint);
  await until(() => lastOf(v.since(mark), 'snapshot') !== undefined, 'the snapshot after the rewind');
  const items = lastOf(v.since(mark), 'snapshot')?.transcript.items ?? [];
  const said = items.flatMap((i) => (i.kind === 'user' && !i.text.startsWith('/') ? [i.text] : []));
  assert.deepEqual(said, ['First: list every finding.', 'Second: list them again.']);
  const last = items.at(-1);
  assert.ok(last?.kind === 'checkpoint' && last.checkpointId === card.card.checkpointId && last.checkpointKind === 'auto', 'the chat ends at the checkpoint');
  assert.ok(!items.some((i) => i.kind === 'compaction'), 'the capsule is on the other branch now');
  assert.equal(lastOf(v.since(mark), 'snapshot')?.barrier, null, 'no result line of a compaction the chat rewound past');

  await turn('Third: what next?');
  const after = agentRequestIndexes().at(-1) ?? -1;
  const expected = [...(requestMessages(second) as unknown[]), { role: 'assistant', content: answer('Second: list them again.') }, { role: 'user', content: 'Third: what next?' }];
  assert.deepEqual(requestMessages(after), expected, 'the model sees exactly what it saw at the checkpoint, plus the new question');

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
});

test('/capsule export writes a portable file; /capsule load brings it into another chat as its starting state', async () => {
  const ck = lastOf(v.messages(), 'snapshot')?.transcript.items.find((i) => i.kind === 'checkpoint');
  assert.ok(ck?.kind === 'checkpoint');
  const exported = await quick(`/capsule export ${ck.checkpointId} handoff.capsule.md`);
  const said = exported.flatMap((m) => (m.type === 'itemsAppended' ? m.items : [])).find((i) => i.kind === 'info');
  assert.match(said?.kind === 'info' ? said.text : '', /Exported ck_\w+ \(full, \d+ tokens\) to .*handoff\.capsule\.md/);
  assert.match(readFileSync(join(h.workspace, 'handoff.capsule.md'), 'utf8'), /^---\n[\s\S]*checksum/);

  await h.command('capsule.newChat');
  await until(() => lastOf(v.messages(), 'snapshot')?.transcript.items.length === 0, 'the new chat');
  const again = await quick('/capsule export ck_nothere x.md');
  assert.ok(again.some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'error' && /Not exported/.test(i.text))));
  const mark = v.mark();
  await turn('/capsule load handoff.capsule.md');
  const snap = lastOf(v.since(mark), 'snapshot');
  assert.ok(snap?.transcript.items.some((i) => i.kind === 'compaction'), 'the loaded capsule shows as a card');
  assert.ok(v.since(mark).some((m) => m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'info' && /Loaded capsule .* the next request starts from it/.test(i.text))));
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
