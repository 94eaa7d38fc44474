// Tests for the docs/behaviour.md#model-input model-input builder and the session tree: capsule pair, kept tail, pins, truncation, system updates, branches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModelInput, CAPSULE_QUESTION, latestCapsule, systemPromptOf } from '../../../src/engine/transcript/modelInput.js';
import type { Entry, ToolCall } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { truncationMarker } from '../../../src/engine/transcript/truncation.js';

const T = '2025-01-01T00:00:00.000Z';

/** Appends entries the way the store does: each new entry is a child of the current leaf. */
class Session {
  readonly tree = new SessionTree();
  private leafMoves = 0;

  private add(e: Entry): this {
    assert.ok(this.tree.add(e), `entry ${e.id} rejected: ${JSON.stringify(this.tree.problems)}`);
    return this;
  }
  private get parent(): string | null {
    return this.tree.leafId;
  }
  user(id: string, content: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'user', content });
  }
  assistant(id: string, content: string, toolCalls: ToolCall[] = []): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'assistant', content, toolCalls });
  }
  tool(id: string, toolCallId: string, content: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'tool_result', toolCallId, toolName: 'read_file', content, isError: false });
  }
  system(id: string, mode: 'base' | 'append', content: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'system_update', mode, content });
  }
  capsule(id: string, summary: string, firstKeptEntryId: string | null, opts: { pinned?: string[]; truncateResults?: boolean } = {}): this {
    return this.add({
      id,
      parentId: this.parent,
      timestamp: T,
      type: 'capsule',
      summary,
      firstKeptEntryId,
      pinnedEntryIds: opts.pinned ?? [],
      tokensBefore: 1000,
      tokensAfter: 100,
      trigger: 'auto_threshold',
      level: 0,
      quality: 'full',
      truncateResults: opts.truncateResults ?? false,
      checkpointId: `ck_${id}`,
      details: {},
    });
  }
  checkpoint(id: string): this {
    return this.add({ id, parentId: this.parent, timestamp: T, type: 'checkpoint', checkpointId: `ck_${id}`, kind: 'user' });
  }
  rewind(targetId: string | null): this {
    this.leafMoves += 1;
    return this.add({ id: `leaf${this.leafMoves}`, parentId: this.parent, timestamp: T, type: 'leaf', targetId });
  }
}

const call = (id: string): ToolCall => ({ id, name: 'read_file', arguments: `{"path":"${id}.ts"}` });
const roles = (input: ReturnType<typeof buildModelInput>): string[] => input.messages.map((m) => `${m.role}:${m.content}`);
const longResult = (lines: number): string => Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n');

test('without a capsule every conversation entry becomes a message, in order, with the default system prompt', () => {
  const s = new Session()
    .user('u1', 'hi')
    .assistant('a1', 'reading', [call('c1')])
    .tool('t1', 'c1', 'file body')
    .checkpoint('k')
    .assistant('a2', 'done');
  const input = buildModelInput(s.tree.branch(), 'DEFAULT');
  assert.equal(input.system, 'DEFAULT');
  assert.equal(input.capsule, undefined);
  assert.deepEqual(roles(input), ['user:hi', 'assistant:reading', 'tool:file body', 'assistant:done']);
  assert.deepEqual(input.entryIds, ['u1', 'a1', 't1', 'a2']);
  const a1 = input.messages[1];
  assert.ok(a1?.role === 'assistant');
  assert.deepEqual(a1.toolCalls, [call('c1')]);
  assert.equal(input.messages[2]?.role === 'tool' ? input.messages[2].toolCallId : undefined, 'c1');
});

test('docs/behaviour.md#model-input: system + capsule pair + firstKept..capsule + everything after the capsule', () => {
  const s = new Session()
    .user('u1', 'task one')
    .assistant('a1', 'did one')
    .user('u2', 'task two')
    .assistant('a2', 'did two')
    .capsule('cap1', 'SUMMARY-1', 'u2')
    .user('u3', 'task three');
  const input = buildModelInput(s.tree.branch(), 'SYS');
  assert.deepEqual(roles(input), [`user:${CAPSULE_QUESTION}`, 'assistant:SUMMARY-1', 'user:task two', 'assistant:did two', 'user:task three']);
  assert.deepEqual(input.entryIds, ['u2', 'a2', 'u3'], 'the capsule pair is not a transcript entry');
  assert.equal(input.capsule?.id, 'cap1');
  assert.equal(input.system, 'SYS');
});

test('a capsule with firstKeptEntryId null keeps nothing from before it', () => {
  const s = new Session().user('u1', 'a').assistant('a1', 'b').capsule('cap', 'S', null).user('u2', 'c');
  assert.deepEqual(roles(buildModelInput(s.tree.branch(), '')), [`user:${CAPSULE_QUESTION}`, 'assistant:S', 'user:c']);
});

test('only the latest capsule on the branch enters the input; repeated compaction keeps from its own firstKept', () => {
  const s = new Session()
    .user('u1', 'one')
    .assistant('a1', 'r1')
    .user('u2', 'two')
    .assistant('a2', 'r2')
    .capsule('cap1', 'OLD', 'u2')
    .user('u3', 'three')
    .assistant('a3', 'r3')
    // docs/behaviour.md#cut: the second compaction summarizes from the previous firstKept (u2) and keeps from u3.
    .capsule('cap2', 'NEW', 'u3')
    .user('u4', 'four');
  const input = buildModelInput(s.tree.branch(), '');
  assert.deepEqual(roles(input), [`user:${CAPSULE_QUESTION}`, 'assistant:NEW', 'user:three', 'assistant:r3', 'user:four']);
  assert.ok(!input.messages.some((m) => m.content === 'OLD'));
  assert.equal(latestCapsule(s.tree.branch())?.capsule.id, 'cap2');
});

test('pinned entries inside the summarized span stay verbatim right after the pair, in branch order', () => {
  const s = new Session()
    .user('u1', 'THE TASK')
    .assistant('a1', 'step', [call('c1')])
    .tool('t1', 'c1', 'r1')
    .assistant('a2', 'step', [call('c2')])
    .tool('t2', 'c2', 'r2')
    .capsule('cap', 'S', 'a2', { pinned: ['u1'] });
  const input = buildModelInput(s.tree.branch(), '');
  assert.deepEqual(roles(input), [`user:${CAPSULE_QUESTION}`, 'assistant:S', 'user:THE TASK', 'assistant:step', 'tool:r2']);
  assert.deepEqual(input.entryIds, ['u1', 'a2', 't2']);
});

test('truncateResults shortens long tool results only in the retained tail before the capsule, never after it or in the transcript', () => {
  const big = longResult(100);
  const s = new Session()
    .user('u1', 'go')
    .assistant('a1', '', [call('c1')])
    .tool('t1', 'c1', big)
    .assistant('a2', '', [call('c2')])
    .tool('t2', 'c2', big)
    .assistant('a3', '', [call('c3')])
    .tool('t3', 'c3', longResult(39))
    .capsule('cap', 'S', 'a2', { truncateResults: true, pinned: ['u1'] })
    .assistant('a4', '', [call('c4')])
    .tool('t4', 'c4', big);
  const input = buildModelInput(s.tree.branch(), '');
  const tools = input.messages.filter((m) => m.role === 'tool');
  assert.deepEqual(
    tools.map((m) => m.entryId),
    ['t2', 't3', 't4'],
  );
  const [kept, short, after] = tools;
  assert.ok(kept && short && after);
  assert.ok(kept.content.includes(truncationMarker(60)), 'the long kept result is truncated');
  assert.ok(kept.content.startsWith('line 1\n') && kept.content.endsWith('line 100'));
  assert.equal(short.content, longResult(39), 'results under 40 lines are untouched');
  assert.equal(after.content, big, 'results after the capsule are never truncated');
  const stored = s.tree.get('t2');
  assert.equal(stored?.type === 'tool_result' ? stored.content : undefined, big, 'the transcript keeps the full result');
});

test('without truncateResults the retained tail is sent verbatim', () => {
  const big = longResult(100);
  const s = new Session()
    .user('u1', 'go')
    .assistant('a1', '', [call('c1')])
    .tool('t1', 'c1', big)
    .capsule('cap', 'S', 'a1');
  const tool = buildModelInput(s.tree.branch(), '').messages.find((m) => m.role === 'tool');
  assert.equal(tool?.content, big);
});

test('system updates: a base replaces the prompt and drops earlier appends; appends join in order', () => {
  const s = new Session().system('s1', 'append', 'rule A').user('u1', 'x');
  assert.equal(buildModelInput(s.tree.branch(), 'DEFAULT').system, 'DEFAULT\n\nrule A');
  s.system('s2', 'base', 'BASE2').system('s3', 'append', 'rule B').system('s4', 'append', 'rule C').assistant('a1', 'y');
  const input = buildModelInput(s.tree.branch(), 'DEFAULT');
  assert.equal(input.system, 'BASE2\n\nrule B\n\nrule C');
  assert.deepEqual(roles(input), ['user:x', 'assistant:y'], 'system updates are not chat messages');
  assert.equal(systemPromptOf([], 'DEFAULT'), 'DEFAULT');
});

test('system updates survive a capsule: they apply wherever they sit on the branch', () => {
  const s = new Session()
    .system('s1', 'base', 'EPOCH1')
    .user('u1', 'a')
    .system('s2', 'append', 'mode: plan')
    .assistant('a1', 'b')
    .capsule('cap', 'S', null)
    .user('u2', 'c');
  assert.equal(buildModelInput(s.tree.branch(), '').system, 'EPOCH1\n\nmode: plan');
});

test('after a rewind the new branch excludes the abandoned path, which stays readable by its own leaf', () => {
  const s = new Session()
    .user('u1', 'first')
    .assistant('a1', 'answer one')
    .system('s1', 'append', 'OLD RULE')
    .user('u2', 'old path')
    .capsule('cap', 'OLD CAPSULE', 'u2');
  s.rewind('a1').user('u3', 'new path').assistant('a3', 'answer three');
  assert.equal(s.tree.leafId, 'a3');
  const input = buildModelInput(s.tree.branch(), 'SYS');
  assert.deepEqual(roles(input), ['user:first', 'assistant:answer one', 'user:new path', 'assistant:answer three']);
  assert.equal(input.system, 'SYS', "the abandoned branch's system update does not apply");
  assert.equal(input.capsule, undefined, "the abandoned branch's capsule does not apply");
  const old = buildModelInput(s.tree.branch('cap'), 'SYS');
  assert.equal(old.capsule?.id, 'cap');
  assert.deepEqual(
    s.tree.children('a1').map((e) => e.id),
    ['s1', 'u3'],
  );
  assert.deepEqual(
    s.tree.branch().map((e) => e.id),
    ['u1', 'a1', 'u3', 'a3'],
    'leaf moves are not part of a branch',
  );
});

test('rewinding to the root (target null) gives an empty input; rewinding back restores it exactly', () => {
  const s = new Session().user('u1', 'a').assistant('a1', 'b');
  const before = buildModelInput(s.tree.branch(), 'SYS');
  s.rewind(null);
  assert.equal(s.tree.leafId, null);
  assert.deepEqual(buildModelInput(s.tree.branch(), 'SYS').messages, []);
  s.rewind('a1');
  assert.deepEqual(buildModelInput(s.tree.branch(), 'SYS'), before);
});

test('the tree rejects duplicates, unknown parents, self-parents and unknown leaf targets, and keeps going', () => {
  const t = new SessionTree();
  const u = (id: string, parentId: string | null): Entry => ({ id, parentId, timestamp: T, type: 'user', content: id });
  assert.equal(t.add(u('u1', null)), true);
  assert.equal(t.add(u('u1', null)), false);
  assert.equal(t.add(u('u2', 'nope')), false);
  assert.equal(t.add(u('u3', 'u3')), false);
  assert.equal(t.add({ id: 'l1', parentId: 'u1', timestamp: T, type: 'leaf', targetId: 'ghost' }), false);
  assert.equal(t.add(u('u4', 'u1')), true);
  assert.deepEqual(
    t.problems.map((p) => [p.kind, p.entryId]),
    [
      ['duplicate_id', 'u1'],
      ['unknown_parent', 'u2'],
      ['cycle', 'u3'],
      ['unknown_leaf_target', 'l1'],
    ],
  );
  assert.equal(t.leafId, 'u4');
  assert.equal(t.size, 2);
  assert.deepEqual(
    t.branch().map((e) => e.id),
    ['u1', 'u4'],
  );
  assert.equal(SessionTree.from(t.entries()).leafId, 'u4', 'rebuilding from the accepted entries gives the same leaf');
});
