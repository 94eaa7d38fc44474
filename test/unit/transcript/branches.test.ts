// Where a chat forks and what the switcher shows: edit & resend and Retry siblings (two, three), nested forks, forks across a compaction, where a switch lands, and live folds equal to fresh ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BranchIndex, branchTip, switchPoint } from '../../../src/engine/transcript/branches.js';
import { EntrySchema, type Entry } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import type { CompactionCard, TranscriptItem } from '../../../src/protocol/messages.js';
import { branchItems, ItemFold, type ItemContext } from '../../../src/vscode/projection/transcriptItems.js';

const ts = '2026-01-01T00:00:00.000Z';
const CARD: CompactionCard = {
  checkpointId: 'ck_c',
  trigger: 'user',
  tokensBefore: 10,
  tokensAfter: 5,
  before: { system: 0, tools: 0, capsule: 0, messages: 10, toolResults: 0, reservedOutput: 0 },
  after: { system: 0, tools: 0, capsule: 5, messages: 0, toolResults: 0, reservedOutput: 0 },
  durationMs: 0,
  quality: 'full',
};

/** A chat written the way the turn loop and rewind write it: a checkpoint before each message, leaf moves for rewinds. */
class Chat {
  readonly tree = new SessionTree();
  readonly index = new BranchIndex(this.tree);
  #n = 0;
  /** Every entry as appended, for folding live. */
  readonly log: Entry[] = [];

  add<T extends Entry['type']>(type: T, fields: Omit<Extract<Entry, { type: T }>, 'id' | 'parentId' | 'timestamp' | 'type'>, id = `e_${++this.#n}`): string {
    const e = EntrySchema.parse({ id, parentId: this.tree.leafId, timestamp: ts, type, ...fields });
    assert.ok(this.tree.add(e), this.tree.lastProblem?.message);
    this.log.push(e);
    return id;
  }

  /** One turn: checkpoint, message, (a compaction inside the turn,) answer, turn end; the message's id. */
  turn(text: string, answer = `answer to ${text}`, opts: { readonly compactFirst?: boolean } = {}): string {
    const user = `u_${++this.#n}`;
    this.add('checkpoint', { checkpointId: `ck_${this.#n}`, kind: 'auto', forEntryId: user });
    this.add('user', { content: text }, user);
    if (opts.compactFirst) this.compact();
    this.add('assistant', { content: answer, toolCalls: [] });
    this.add('turn_end', { turnId: `t${this.#n}`, status: 'completed' });
    return user;
  }

  compact(): void {
    const ck = `ck_c${++this.#n}`;
    this.add('checkpoint', { checkpointId: ck, kind: 'auto' });
    this.add('capsule', {
      summary: 'S',
      firstKeptEntryId: 'x',
      pinnedEntryIds: [],
      tokensBefore: 10,
      tokensAfter: 5,
      trigger: 'user',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: ck,
      details: {},
    });
  }

  /** Rewind to before a message (its own checkpoint), as Edit and Retry do. */
  rewindBefore(userId: string): void {
    this.add('leaf', { targetId: this.tree.get(userId)?.parentId ?? null });
  }

  switchTo(entryId: string): void {
    const at = switchPoint(this.tree, entryId);
    assert.ok(at.ok, at.ok ? '' : at.error);
    this.add('leaf', { targetId: at.targetId });
  }

  ctx(): ItemContext {
    return { ephemeral: new Map(), card: () => CARD, forkOf: (id) => this.index.forkOf(id) };
  }

  items(): TranscriptItem[] {
    return branchItems(this.tree.branch(), this.ctx());
  }

  /** [text, "index/count"] of every message and answer that shows a switcher. */
  switchers(): [string, string][] {
    return this.items().flatMap((i): [string, string][] =>
      i.kind === 'user' && i.branch
        ? [[i.text, `${i.branch.index}/${i.branch.count}`]]
        : i.kind === 'assistant' && i.branch
          ? [[i.markdown, `${i.branch.index}/${i.branch.count}`]]
          : [],
    );
  }
}

test('edit & resend: the two messages sent at one moment are branches 1 and 2 of it, each naming the other', () => {
  const c = new Chat();
  c.turn('first');
  const b1 = c.turn('second');
  c.rewindBefore(b1);
  const b2 = c.turn('second, edited');
  assert.deepEqual(c.index.forkOf(b1), { index: 1, count: 2, next: b2, retry: false });
  assert.deepEqual(c.index.forkOf(b2), { index: 2, count: 2, previous: b1, retry: false });
  assert.deepEqual(c.switchers(), [['second, edited', '2/2']], 'the first message does not fork; only the edited one shows ‹ 2/2 ›');
  const shown = c.items().find((i) => i.id === b2);
  assert.deepEqual(shown?.kind === 'user' ? shown.branch : undefined, { index: 2, count: 2, previous: b1 });
});

test('three siblings: the middle one has both neighbours; a switch shows that branch whole and deletes nothing', () => {
  const c = new Chat();
  const a1 = c.turn('task A');
  c.rewindBefore(a1);
  const a2 = c.turn('task B');
  c.rewindBefore(a2);
  const a3 = c.turn('task C');
  assert.deepEqual(c.switchers(), [['task C', '3/3']]);
  c.switchTo(a2);
  assert.deepEqual(c.switchers(), [['task B', '2/3']]);
  assert.deepEqual(c.index.forkOf(a2), { index: 2, count: 3, previous: a1, next: a3, retry: false });
  assert.deepEqual(
    c.items().map((i) => (i.kind === 'assistant' ? i.markdown : i.kind)),
    ['user', 'answer to task B'],
    'the branch with its answer',
  );
  c.switchTo(a1);
  assert.deepEqual(c.switchers(), [['task A', '1/3']]);
  assert.equal(c.tree.entries().filter((e) => e.type === 'user').length, 3, 'every message is still in the file');
});

test('Retry: siblings that ask the same question put the switcher on the answer, not on the question', () => {
  const c = new Chat();
  const q1 = c.turn('why?', 'because A');
  c.rewindBefore(q1);
  const q2 = c.turn('why?', 'because B');
  assert.equal(c.index.forkOf(q2)?.retry, true);
  assert.deepEqual(c.switchers(), [['because B', '2/2']]);
  const question = c.items().find((i) => i.id === q2);
  assert.equal(question?.kind === 'user' ? question.branch : 'not a user item', undefined);
  // A retried turn that ended without an answer (stopped) shows the switcher on its message instead.
  c.rewindBefore(q2);
  c.add('checkpoint', { checkpointId: 'ck_r', kind: 'auto', forEntryId: 'u_r' });
  c.add('user', { content: 'why?' }, 'u_r');
  c.add('turn_end', { turnId: 'tr', status: 'cancelled', error: 'Stopped.' });
  assert.deepEqual(c.switchers(), [['why?', '3/3']]);
  // An edit among retries makes the question the difference: the switcher goes back on the message.
  c.rewindBefore('u_r');
  c.turn('why not?');
  assert.deepEqual(c.switchers(), [['why not?', '4/4']]);
});

test('nested forks: switching the outer fork lands on the newest entry of that branch, inner fork included', () => {
  const c = new Chat();
  c.turn('setup');
  const outer1 = c.turn('plan 1');
  c.turn('plan 1 detail');
  c.rewindBefore(outer1);
  const outer2 = c.turn('plan 2');
  const inner1 = c.turn('step X');
  c.rewindBefore(inner1);
  const inner2 = c.turn('step Y');
  assert.deepEqual(c.switchers(), [
    ['plan 2', '2/2'],
    ['step Y', '2/2'],
  ]);
  c.switchTo(outer1);
  assert.deepEqual(c.switchers(), [['plan 1', '1/2']], 'the inner fork is not on this branch');
  assert.equal(c.tree.branch().at(-1)?.type, 'turn_end', "the leaf is the end of that branch's newest turn");
  assert.ok(c.items().some((i) => i.kind === 'user' && i.text === 'plan 1 detail'));
  c.switchTo(outer2);
  assert.deepEqual(
    c.switchers(),
    [
      ['plan 2', '2/2'],
      ['step Y', '2/2'],
    ],
    'back where the newest entry is: the inner branch written last',
  );
  assert.equal(branchTip(c.tree, outer2)?.id, c.tree.branch().at(-1)?.id);
  assert.ok(
    c.tree.branch().some((e) => e.id === inner2),
    'the branch shown ends on the inner fork written last',
  );
  c.switchTo(inner1);
  assert.deepEqual(c.switchers(), [
    ['plan 2', '2/2'],
    ['step X', '1/2'],
  ]);
});

test('forks across a compaction: a compaction between the rewind and the resend, and one inside a branch, keep the siblings', () => {
  const c = new Chat();
  c.turn('one');
  const m1 = c.turn('two');
  c.rewindBefore(m1);
  c.compact(); // /compact after the rewind, before the edited message
  const m2 = c.turn('two, after compacting');
  c.rewindBefore(m2);
  const m3 = c.turn('two, third try', 'answer', { compactFirst: true });
  assert.deepEqual([c.index.forkOf(m1)?.count, c.index.forkOf(m2)?.index, c.index.forkOf(m3)?.index], [3, 2, 3]);
  assert.deepEqual(c.switchers(), [['two, third try', '3/3']]);
  assert.ok(
    c.items().some((i) => i.kind === 'compaction'),
    'the compaction inside the branch shows',
  );
  // After the compaction, a later message forks too.
  const after1 = c.turn('after the capsule');
  c.rewindBefore(after1);
  c.turn('after the capsule, edited');
  assert.deepEqual(c.switchers(), [
    ['two, third try', '3/3'],
    ['after the capsule, edited', '2/2'],
  ]);
  c.switchTo(m2);
  assert.deepEqual(c.switchers(), [['two, after compacting', '2/3']]);
  assert.equal(c.items().filter((i) => i.kind === 'compaction').length, 1, 'the compaction made before the edited message is on its branch');
});

test('a model switch or a files note between the rewind and the resend is the same moment', () => {
  const c = new Chat();
  const m1 = c.turn('go');
  c.rewindBefore(m1);
  c.add('system_update', { mode: 'append', content: 'files differ', reason: 'rewind: files differ' });
  c.add('model_change', { provider: 'p', model: 'other' });
  const m2 = c.turn('go again');
  assert.deepEqual(c.index.forkOf(m2), { index: 2, count: 2, previous: m1, retry: false });
});

test('a switch lands off an unanswered tool call, and refuses what does not start a branch', () => {
  const c = new Chat();
  const m1 = c.turn('first');
  c.rewindBefore(m1);
  c.add('checkpoint', { checkpointId: 'ck_o', kind: 'auto', forEntryId: 'u_o' });
  c.add('user', { content: 'open call' }, 'u_o');
  c.add('assistant', { content: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }, 'a_o');
  c.switchTo(m1);
  const back = switchPoint(c.tree, 'u_o');
  assert.deepEqual(back, { ok: true, targetId: 'u_o', tipId: 'a_o', adjusted: true }, 'never a leaf between a call and its result');
  const ck = c.tree.entries().find((e) => e.type === 'checkpoint');
  assert.equal(switchPoint(c.tree, ck?.id ?? '').ok, false);
  assert.deepEqual(switchPoint(c.tree, 'nope'), { ok: false, error: 'Entry nope is not in this chat.' });
});

test('folding each appended entry (a new fold after each leaf move) gives the items a fresh fold gives', () => {
  const c = new Chat();
  let fold = new ItemFold(c.ctx());
  const play = (from: number): number => {
    for (const e of c.log.slice(from)) {
      if (e.type === 'leaf' || e.parentId !== fold.tip) {
        fold = new ItemFold(c.ctx());
        for (const b of c.tree.branch()) fold.add(b);
        continue;
      }
      fold.add(e);
    }
    return c.log.length;
  };
  let seen = 0;
  const q = c.turn('same question', 'first try');
  seen = play(seen);
  c.rewindBefore(q);
  c.turn('same question', 'second try');
  seen = play(seen);
  assert.deepEqual(fold.items, c.items());
  assert.deepEqual(c.switchers(), [['second try', '2/2']]);
  const e1 = c.turn('edit me');
  c.rewindBefore(e1);
  c.turn('edited');
  seen = play(seen);
  c.switchTo(e1);
  play(seen);
  assert.deepEqual(fold.items, c.items());
  assert.deepEqual(c.switchers(), [
    ['second try', '2/2'],
    ['edit me', '1/2'],
  ]);
});
