// Tests for `verifySession`: load problems, split/orphan tool pairs, capsule cut, first-kept and pin checks over all branches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadProblem } from '../../../src/engine/ports.js';
import type { Entry, ToolCall } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { treeLeaves, verifySession, type VerifyReport } from '../../../src/engine/transcript/verify.js';

const T = '2025-01-01T00:00:00.000Z';

/** Appends entries the way the store does: each new entry is a child of the current leaf. */
class Session {
  readonly tree = new SessionTree();
  private moves = 0;

  add(e: Entry): this {
    assert.ok(this.tree.add(e), `entry ${e.id} rejected`);
    return this;
  }
  private get parent(): string | null {
    return this.tree.leafId;
  }
  user(id: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'user', content: id });
  }
  assistant(id: string, ...callIds: string[]): this {
    const toolCalls: ToolCall[] = callIds.map((c) => ({ id: c, name: 'read_file', arguments: '{}' }));
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'assistant', content: id, toolCalls });
  }
  tool(id: string, toolCallId: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'tool_result', toolCallId, toolName: 'read_file', content: 'ok', isError: false });
  }
  capsule(id: string, firstKeptEntryId: string | null, pinnedEntryIds: string[] = []): this {
    return this.add({
      id,
      parentId: this.parent,
      timestamp: T,
      type: 'capsule',
      summary: 'S',
      firstKeptEntryId,
      pinnedEntryIds,
      tokensBefore: 10,
      tokensAfter: 5,
      trigger: 'turn_complete',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: `ck_${id}`,
      details: {},
    });
  }
  checkpoint(id: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'checkpoint', checkpointId: `ck_${id}`, kind: 'auto' });
  }
  turnEnd(id: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'turn_end', turnId: 'turn', status: 'completed' });
  }
  rewind(targetId: string | null): this {
    this.moves += 1;
    return this.add({ id: `leaf${this.moves}`, parentId: this.parent, timestamp: T, type: 'leaf', targetId });
  }
  verify(problems: LoadProblem[] = []): VerifyReport {
    return verifySession(this.tree, problems);
  }
}

const summary = (r: VerifyReport): string[] => r.issues.map((i) => `${i.severity}:${i.kind}:${i.entryId ?? ''}`);

/** Two completed turns with parallel tool calls, two capsules, a checkpoint and a rewind branch. */
function goodSession(): Session {
  return new Session()
    .user('u1')
    .assistant('a1', 'c1', 'c2')
    .tool('t2', 'c2')
    .tool('t1', 'c1')
    .assistant('a2')
    .turnEnd('e1')
    .user('u2')
    .assistant('a3', 'c3')
    .tool('t3', 'c3')
    .assistant('a4')
    .checkpoint('ck1')
    .capsule('cap1', 'u2', ['u1'])
    .user('u3')
    .assistant('a5', 'c4')
    .tool('t4', 'c4')
    .assistant('a6')
    .capsule('cap2', 'u3')
    .rewind('a2')
    .user('u4')
    .assistant('a7', 'c5')
    .tool('t5', 'c5')
    .assistant('a8');
}

test('a good session with parallel calls, capsules and branches has no issues', () => {
  const s = goodSession();
  const r = s.verify();
  assert.deepEqual(summary(r), []);
  assert.equal(r.ok, true);
  assert.equal(r.branches, 2);
  assert.deepEqual(treeLeaves(s.tree), ['cap2', 'a8']);
  assert.equal(r.activeBranchLength, 9); // u1 a1 t2 t1 a2 u4 a7 t5 a8
  assert.equal(r.entries, s.tree.size);
});

test('an assistant whose tool results are cut off by the next message is a split pair', () => {
  const r = new Session().user('u1').assistant('a1', 'c1', 'c2').tool('t1', 'c1').user('u2').verify();
  assert.deepEqual(summary(r), ['error:split_tool_pair:a1']);
  assert.match(r.issues[0]?.message ?? '', /c2/);
  assert.equal(r.ok, false);
  const r2 = new Session().user('u1').assistant('a1', 'c1').assistant('a2').verify();
  assert.deepEqual(summary(r2), ['error:split_tool_pair:a1']);
});

test('a trailing assistant still waiting for results is a warning on the active branch and an error on an abandoned one', () => {
  const active = new Session().user('u1').assistant('a1', 'c1', 'c2').tool('t1', 'c1').verify();
  assert.deepEqual(summary(active), ['warning:split_tool_pair:a1']);
  assert.equal(active.ok, true);

  const abandoned = new Session().user('u1').assistant('a1', 'c1').rewind('u1').assistant('a2').verify();
  assert.deepEqual(summary(abandoned), ['error:split_tool_pair:a1']);
  assert.equal(abandoned.ok, false);
});

test('rewinding to an assistant in the middle of a complete exchange reports a turn in progress, not an error', () => {
  const s = new Session().user('u1').assistant('a1', 'c1').tool('t1', 'c1').assistant('a2').rewind('a1');
  const r = s.verify();
  assert.deepEqual(summary(r), ['warning:split_tool_pair:a1']);
  assert.equal(r.branches, 1);
  assert.equal(r.activeBranchLength, 2);
});

test('a tool result with no call, after the turn moved on, or answered twice is reported', () => {
  const unknown = new Session().user('u1').assistant('a1', 'c1').tool('t1', 'c1').tool('t9', 'zzz').verify();
  assert.deepEqual(summary(unknown), ['error:orphan_tool_result:t9']);

  const late = new Session().user('u1').assistant('a1', 'c1').user('u2').tool('t1', 'c1').verify();
  assert.deepEqual(summary(late), ['error:split_tool_pair:a1', 'error:orphan_tool_result:t1']);
  assert.match(late.issues[1]?.message ?? '', /earlier assistant/);

  const twice = new Session().user('u1').assistant('a1', 'c1').tool('t1', 'c1').tool('t1b', 'c1').assistant('a2').verify();
  assert.deepEqual(summary(twice), ['warning:orphan_tool_result:t1b']);
});

test('a capsule whose first kept entry is not before it on its branch is dangling', () => {
  const s = new Session().user('u1').assistant('a1').rewind('u1').assistant('a2');
  s.add({
    id: 'cap',
    parentId: 'a2',
    timestamp: T,
    type: 'capsule',
    summary: 'S',
    firstKeptEntryId: 'a1',
    pinnedEntryIds: [],
    tokensBefore: 1,
    tokensAfter: 1,
    trigger: 'user',
    level: 0,
    quality: 'full',
    truncateResults: false,
    checkpointId: 'ck_x',
    details: {},
  });
  assert.deepEqual(summary(s.verify()), ['error:dangling_first_kept:cap']);
  const missing = new Session().user('u1').capsule('cap', 'ghost').verify();
  assert.deepEqual(summary(missing), ['error:dangling_first_kept:cap']);
});

test('a capsule pinning entries that are not on its branch before it is reported', () => {
  const s = new Session().user('u1').assistant('a1').capsule('cap', 'a1', ['u1', 'nowhere']);
  const r = s.verify();
  assert.deepEqual(summary(r), ['error:capsule_pin_missing:cap']);
  assert.match(r.issues[0]?.message ?? '', /nowhere/);
  assert.doesNotMatch(r.issues[0]?.message ?? '', /u1/);
});

test('a capsule that summarizes a tool call but keeps its result splits the pair', () => {
  const r = new Session().user('u1').assistant('a1', 'c1').tool('t1', 'c1').assistant('a2').capsule('cap', 't1').verify();
  assert.deepEqual(summary(r), ['error:split_tool_pair:cap']);
  // Pinning the call keeps the pair together in the model input.
  const pinned = new Session().user('u1').assistant('a1', 'c1').tool('t1', 'c1').assistant('a2').capsule('cap', 't1', ['a1']).verify();
  assert.deepEqual(summary(pinned), []);
});

test('an issue on a prefix shared by several branches is reported once', () => {
  const s = new Session().user('u1').assistant('a1', 'c1').user('u2').assistant('a2').rewind('u2').assistant('a3').rewind('u2').assistant('a4');
  const r = s.verify();
  assert.equal(r.branches, 3);
  assert.deepEqual(summary(r), ['error:split_tool_pair:a1']);
});

test('load problems are errors, torn_tail included, with their line numbers', () => {
  const problems: LoadProblem[] = [
    { kind: 'torn_tail', line: 7, message: 'line 7 is incomplete; moved to .corrupt' },
    { kind: 'invalid_entry', line: 3, message: 'line 3: invalid entry' },
  ];
  const r = goodSession().verify(problems);
  assert.equal(r.ok, false);
  assert.deepEqual(
    r.issues.map((i) => [i.kind, i.severity, i.line]),
    [
      ['torn_tail', 'error', 7],
      ['invalid_entry', 'error', 3],
    ],
  );
});

test('tree problems are reported once whether or not the loader already forwarded them', () => {
  const s = new Session().user('u1');
  s.tree.add({ id: 'x', parentId: 'missing', timestamp: T, type: 'user', content: 'x' });
  const own = s.verify();
  assert.deepEqual(summary(own), ['error:unknown_parent:x']);
  const forwarded = s.verify([{ kind: 'unknown_parent', line: 3, message: s.tree.problems[0]?.message ?? '' }]);
  assert.deepEqual(
    forwarded.issues.map((i) => [i.kind, i.line]),
    [['unknown_parent', 3]],
  );
});

test('an empty session is ok with no branches', () => {
  const r = verifySession(new SessionTree(), []);
  assert.deepEqual(r, { ok: true, issues: [], entries: 0, branches: 0, activeBranchLength: 0 });
});
