// A long chat in the paged views: the Checkpoints tree lists the newest messages and older ones under "Older messages" (rows and actions as before), and the chat snapshot sends the newest page, older pages on loadOlder.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import type { CompactionCard, TranscriptItem } from '../../../src/protocol/messages.js';
import { branchItems, PAGE_SIZE } from '../../../src/vscode/projection/transcriptItems.js';
import { TREE_PAGE } from '../../../src/vscode/views/treePages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { assistant, capsule, headerLine, line, user } from '../node/storeHelpers.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({ settings: { 'capsule.model.id': 'fake-model' } });
let server: FakeOpenAIServer;
let v: OpenView;
const TURNS = 250;
const path = join(h.storage, 'sessions', 's_test.jsonl');
const TS = '2025-01-01T00:00:00.000Z';

type Node = {
  kind?: string;
  end?: number;
  count?: number;
  list?: string;
  moment?: { message?: { id: string; content: string } };
  child?: { kind: string; entry: { id: string } };
};
type Tree = { getChildren(n?: unknown): Promise<Node[]>; getTreeItem(n: Node): { id?: string; label?: unknown; contextValue?: string } };
const tree = (): Tree => h.state.providers.get('capsule.checkpoints') as Tree;

/** 250 messages, each with its own checkpoint and an answer; a milestone, two compactions (the first undone much later) and model switches along the way. */
function writeLongChat(): void {
  const entries: Entry[] = [];
  let parent: string | null = null;
  const add = (e: Entry): void => {
    entries.push(e);
    parent = e.id;
  };
  for (let i = 0; i < TURNS; i++) {
    add({ type: 'checkpoint', id: `ck${i}`, parentId: parent, timestamp: TS, checkpointId: `ck_u${i}`, kind: 'auto', forEntryId: `u${i}` });
    add(user(`u${i}`, parent, `message ${i}`));
    add({ ...assistant(`a${i}`, parent), usage: { promptTokens: 1000 + i, completionTokens: 10 } } as Entry);
    if (i === 10) add({ type: 'checkpoint', id: 'ms10', parentId: parent, timestamp: TS, checkpointId: 'ck_ms10', kind: 'milestone', note: 'tests pass' });
    if (i === 20 || i === 60) {
      // A compaction's own checkpoint, its capsule, the new base.
      add({ type: 'checkpoint', id: `cc${i}`, parentId: parent, timestamp: TS, checkpointId: `ck_k${i}`, kind: 'auto' });
      add(capsule(`k${i}`, parent, `u${i - 5}`));
      add({ type: 'system_update', id: `b${i}`, parentId: parent, timestamp: TS, mode: 'base', content: 'base' });
    }
    if (i === 40)
      add({
        type: 'model_change',
        id: 'm40',
        parentId: parent,
        timestamp: TS,
        provider: 'p',
        model: 'other-model',
        contextWindow: 64_000,
        maxOutputTokens: 4000,
      });
    if (i === 220) {
      add({ type: 'compaction_undo', id: 'undo20', parentId: parent, timestamp: TS, capsuleId: 'k20', checkpointId: 'ck_k20', action: 'undo' });
      add({
        type: 'model_change',
        id: 'm120',
        parentId: parent,
        timestamp: TS,
        provider: 'p',
        model: 'third-model',
        contextWindow: 64_000,
        maxOutputTokens: 4000,
      });
    }
  }
  mkdirSync(join(h.storage, 'sessions'), { recursive: true });
  writeFileSync(path, `${[headerLine(), ...entries.map(line)].join('\n')}\n`);
}

before(async () => {
  writeLongChat();
  server = await startFakeOpenAI({ window: 64_000 });
  server.setFallback(() => ({ text: 'ok' }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

/** What the whole branch shows, folded from the root (the reference every page is a slice of). */
async function wholeBranch(): Promise<TranscriptItem[]> {
  const loaded = await loadSessionFile(path);
  const stub = { trigger: 'auto_threshold' } as unknown as CompactionCard;
  return branchItems(loaded.tree.branch(), { ephemeral: new Map(), card: () => stub });
}

const key = (i: TranscriptItem): string =>
  `${i.id}:${i.kind}${i.kind === 'compaction' && i.card.undone === true ? ':undone' : ''}${i.kind === 'info' ? `:${i.text}` : ''}`;

test('the snapshot sends the newest page; loadOlder pages back to the first item, each page as the whole branch shows it', async () => {
  const snap = lastOf(v.messages(), 'snapshot');
  assert.ok(snap);
  const whole = await wholeBranch();
  assert.ok(whole.length > 2 * PAGE_SIZE, `the chat spans several pages (${whole.length} items)`);
  assert.deepEqual(snap.transcript.items.map(key), whole.slice(-PAGE_SIZE).map(key));
  assert.equal(snap.transcript.hasMore, true);
  // The switch to third-model is on the newest page: the model in force before that page (other-model) is known there.
  assert.ok(
    snap.transcript.items.some((i) => i.kind === 'info' && i.text.includes('third-model')),
    'the model switch on the newest page is announced',
  );

  let shown = snap.transcript.items;
  let hasMore = true;
  for (let pages = 0; hasMore; pages++) {
    assert.ok(pages < 10, 'the pages end');
    const first = shown[0];
    assert.ok(first);
    const mark = v.mark();
    v.send({ type: 'loadOlder', beforeId: first.id });
    await until(() => lastOf(v.since(mark), 'olderItems') !== undefined, 'an older page');
    const page = lastOf(v.since(mark), 'olderItems');
    assert.ok(page && page.items.length > 0 && page.items.length <= PAGE_SIZE);
    shown = [...page.items, ...shown];
    hasMore = page.hasMore;
  }
  assert.deepEqual(shown.map(key), whole.map(key), 'the pages put together are the whole branch, in order');
  assert.ok(
    shown.some((i) => i.id === 'k20' && i.kind === 'compaction' && i.card.undone === true),
    'a card on an older page shows the undo that came pages later',
  );
});

async function sessionRows(): Promise<Node[]> {
  const [session] = (await tree().getChildren()).filter((n) => n.kind === 'session');
  return tree().getChildren(session);
}

const text = (n: Node): string | undefined => n.moment?.message?.content;

/** Every row under an "Older messages" row, opening the older ones it holds in turn (oldest first); and how many pages. */
async function openAll(older: Node): Promise<{ rows: Node[]; pages: number }> {
  const rows = await tree().getChildren(older);
  const first = rows[0];
  if (first?.kind !== 'older') return { rows, pages: 1 };
  const before = await openAll(first);
  return { rows: [...before.rows, ...rows.slice(1)], pages: before.pages + 1 };
}

test('the tree lists the newest messages, older ones a page at a time; rows, labels and Rewind Here work on an older page', async () => {
  const rows = await sessionRows();
  const older = rows[0];
  assert.equal(older?.kind, 'older', 'older messages first, behind one row');
  assert.equal(tree().getTreeItem(older).label, 'Older messages');
  const newest = rows.filter((n) => n.kind === 'message');
  assert.ok(newest.length >= TREE_PAGE && newest.length < 2 * TREE_PAGE, `the newest page holds ${newest.length} messages`);
  assert.equal(text(newest.at(-1) ?? {}), `message ${TURNS - 1}`);
  assert.equal(older.end, TURNS - newest.length, 'the older row stands for every message before the page');

  const firstOlder = (await tree().getChildren(older)).filter((n) => n.kind === 'message');
  assert.equal(firstOlder.length, TREE_PAGE, 'a whole page before the newest');
  assert.equal(text(firstOlder.at(-1) ?? {}), `message ${(older.end ?? 0) - 1}`);
  const all = await openAll(older);
  assert.ok(all.pages > 1, 'older pages nest');
  const messages = all.rows.filter((n) => n.kind === 'message');
  assert.deepEqual(
    messages.map(text),
    Array.from({ length: older.end ?? 0 }, (_, i) => `message ${i}`),
    'every earlier message, in order',
  );
  const m10 = messages.find((n) => text(n) === 'message 10');
  const m20 = messages.find((n) => text(n) === 'message 20');
  assert.ok(m10 && m20);
  assert.deepEqual(
    (await tree().getChildren(m10)).map((n) => n.child?.entry.id),
    ['ms10'],
    'a milestone under its message',
  );
  const compaction = await tree().getChildren(m20);
  assert.deepEqual(
    compaction.map((n) => n.child?.entry.id),
    ['k20'],
    'the compaction (not its own checkpoint) under its message',
  );
  assert.equal(tree().getTreeItem(compaction[0] ?? {}).contextValue, 'capsule.capsule.undone', 'undone by an entry two hundred messages later');
  // The capsule in force (k60) keeps from message 55: earlier messages do not offer Compact Up to Here.
  assert.equal(tree().getTreeItem(m20).contextValue, 'capsule.message.summarized');
  assert.equal(tree().getTreeItem(newest.at(-1) ?? {}).contextValue, 'capsule.message');
  assert.match(String(tree().getTreeItem(m20).id), /^message\/s_test\/u20/);

  // Rewind Here on a message of the older page.
  const m30 = messages.find((n) => text(n) === 'message 30');
  assert.ok(m30);
  h.state.answer = (kind, prompt) => (kind === 'modal' && prompt.startsWith('Rewind') ? 'Rewind' : undefined);
  const mark = v.mark();
  await h.command('capsule.rewindHere', m30);
  await until(() => v.since(mark).some((m) => m.type === 'composer'), 'the message back in the composer');
  assert.deepEqual(
    v.since(mark).find((m) => m.type === 'composer'),
    { type: 'composer', text: 'message 30' },
  );
  const snap = lastOf(v.since(mark), 'snapshot');
  const users = (snap?.transcript.items ?? []).filter((i) => i.kind === 'user').map((i) => i.id);
  assert.equal(users.at(-1), 'u29', 'the chat shows the branch up to the message before');
  assert.ok(!users.includes('u30') && !users.includes('u129'));

  // The tree follows: thirty messages on one page, the rest on other branches, paged the same way.
  const after = await sessionRows();
  assert.deepEqual(
    after.filter((n) => n.kind === 'message').map(text),
    Array.from({ length: 30 }, (_, i) => `message ${i}`),
  );
  const branches = after.find((n) => n.kind === 'branches');
  assert.equal(branches?.count, TURNS - 30);
  const other = await tree().getChildren(branches);
  assert.equal(other[0]?.kind, 'older');
  const otherOlder = (await openAll(other[0] ?? {})).rows;
  const listed = [...otherOlder, ...other].filter((n) => n.kind === 'message').map(text);
  assert.deepEqual(
    listed,
    Array.from({ length: TURNS - 30 }, (_, i) => `message ${i + 30}`),
    'every message of the other branch, in order, over several pages',
  );
  assert.equal(tree().getTreeItem(otherOlder.find((n) => n.kind === 'message') ?? {}).contextValue, 'capsule.message.otherBranch');
});
