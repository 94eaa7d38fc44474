// Where a rewind lands for every entry kind: before a message (its text back), after a compaction's capsule, and never between a tool call and its results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRewindPoint } from '../../../src/engine/transcript/rewindPoint.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { unansweredAtLeaf } from '../../../src/engine/transcript/repair.js';

const ts = '2025-01-01T00:00:00.000Z';

/** ck1 → u1 → a1(call c1) → r1 → ans1 → end1 → ck2 → u2 → a2(calls c2,c3) → ckMid → r2 → r3 → ans2, plus a compaction ck3 → cap3 and an open call a4. */
function tree(): SessionTree {
  const e: Entry[] = [
    { type: 'checkpoint', id: 'ck1e', parentId: null, timestamp: ts, checkpointId: 'ck_1', kind: 'auto', forEntryId: 'u1' },
    { type: 'user', id: 'u1', parentId: 'ck1e', timestamp: ts, content: 'first task' },
    { type: 'assistant', id: 'a1', parentId: 'u1', timestamp: ts, content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] },
    { type: 'tool_result', id: 'r1', parentId: 'a1', timestamp: ts, toolCallId: 'c1', toolName: 'read_file', content: 'x', isError: false },
    { type: 'assistant', id: 'ans1', parentId: 'r1', timestamp: ts, content: 'done', toolCalls: [] },
    { type: 'turn_end', id: 'end1', parentId: 'ans1', timestamp: ts, turnId: 't1', status: 'completed' },
    { type: 'checkpoint', id: 'ck2e', parentId: 'end1', timestamp: ts, checkpointId: 'ck_2', kind: 'auto', forEntryId: 'u2' },
    { type: 'user', id: 'u2', parentId: 'ck2e', timestamp: ts, content: 'second task' },
    {
      type: 'assistant',
      id: 'a2',
      parentId: 'u2',
      timestamp: ts,
      content: '',
      toolCalls: [
        { id: 'c2', name: 'run_command', arguments: '{}' },
        { id: 'c3', name: 'checkpoint', arguments: '{}' },
      ],
    },
    { type: 'tool_result', id: 'r2', parentId: 'a2', timestamp: ts, toolCallId: 'c2', toolName: 'run_command', content: 'ok', isError: false },
    { type: 'checkpoint', id: 'ckMid', parentId: 'r2', timestamp: ts, checkpointId: 'ck_mid', kind: 'milestone', note: 'half way' },
    { type: 'tool_result', id: 'r3', parentId: 'ckMid', timestamp: ts, toolCallId: 'c3', toolName: 'checkpoint', content: 'ok', isError: false },
    { type: 'assistant', id: 'ans2', parentId: 'r3', timestamp: ts, content: 'done 2', toolCalls: [] },
    { type: 'system_update', id: 'su', parentId: 'ans2', timestamp: ts, mode: 'append', content: 'rules changed' },
    { type: 'model_change', id: 'mc', parentId: 'su', timestamp: ts, provider: 'p', model: 'm' },
    { type: 'checkpoint', id: 'ck3e', parentId: 'mc', timestamp: ts, checkpointId: 'ck_3', kind: 'auto' },
    {
      type: 'capsule',
      id: 'cap3',
      parentId: 'ck3e',
      timestamp: ts,
      summary: 'S',
      firstKeptEntryId: 'u2',
      pinnedEntryIds: [],
      tokensBefore: 10,
      tokensAfter: 5,
      trigger: 'hard_limit',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: 'ck_3',
      details: {},
    },
    { type: 'compaction_undo', id: 'undo3', parentId: 'cap3', timestamp: ts, capsuleId: 'cap3', checkpointId: 'ck_3', action: 'undo' },
    { type: 'user', id: 'u4', parentId: 'undo3', timestamp: ts, content: 'fourth' },
    { type: 'assistant', id: 'a4', parentId: 'u4', timestamp: ts, content: '', toolCalls: [{ id: 'c4', name: 'read_file', arguments: '{}' }] },
    { type: 'leaf', id: 'lf', parentId: 'a4', timestamp: ts, targetId: 'u4' },
  ];
  return SessionTree.from(e);
}

function land(ref: string): { targetId: string | null; message?: string; checkpointId?: string; adjusted: boolean } {
  const r = resolveRewindPoint(tree(), ref);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return {
    targetId: r.targetId,
    ...(r.message ? { message: r.message.text } : {}),
    ...(r.checkpointId ? { checkpointId: r.checkpointId } : {}),
    adjusted: r.adjusted,
  };
}

test('a user message rewinds to the moment before it, with its checkpoint and its text', () => {
  assert.deepEqual(land('u2'), { targetId: 'ck2e', message: 'second task', checkpointId: 'ck_2', adjusted: false });
  assert.deepEqual(land('ck_2'), { targetId: 'ck2e', message: 'second task', checkpointId: 'ck_2', adjusted: false });
  assert.deepEqual(land('u1'), { targetId: 'ck1e', message: 'first task', checkpointId: 'ck_1', adjusted: false });
  const input = buildModelInput(tree().branch('ck2e'), 'sys');
  assert.deepEqual(
    input.messages.map((m) => m.entryId),
    ['u1', 'a1', 'r1', 'ans1'],
    'the model input of the moment before the message',
  );
});

test('a compaction checkpoint and its capsule land after the capsule: the compacted input, not the one over the limit', () => {
  assert.deepEqual(land('ck_3'), { targetId: 'cap3', checkpointId: 'ck_3', adjusted: false });
  assert.deepEqual(land('cap3'), { targetId: 'cap3', checkpointId: 'ck_3', adjusted: false });
});

test('every other kind lands on itself unless that would leave a tool call unanswered', () => {
  for (const id of ['ans1', 'end1', 'r1', 'ans2', 'su', 'mc', 'undo3']) assert.deepEqual(land(id), { targetId: id, adjusted: false }, id);
  // Inside the exchange a2 → r2 → ckMid → r3: forward to the batch's last result.
  assert.deepEqual(land('a2'), { targetId: 'r3', adjusted: true });
  assert.deepEqual(land('r2'), { targetId: 'r3', adjusted: true });
  assert.deepEqual(land('ck_mid'), { targetId: 'r3', checkpointId: 'ck_mid', adjusted: true });
  // a4's result was never written: back to before the call.
  assert.deepEqual(land('a4'), { targetId: 'u4', adjusted: true });
});

test('no entry of any kind yields a point with an unanswered call', () => {
  const t = tree();
  for (const e of t.entries()) {
    const r = resolveRewindPoint(t, e.id);
    if (!r.ok) {
      assert.equal(e.type, 'leaf');
      continue;
    }
    assert.deepEqual(unansweredAtLeaf(r.targetId === null ? [] : t.branch(r.targetId)), [], `rewind to ${e.id} (${e.type})`);
  }
});

test('unknown ids and leaf moves are refused in words', () => {
  const t = tree();
  const miss = resolveRewindPoint(t, 'ck_nope');
  assert.equal(miss.ok, false);
  assert.match(miss.ok ? '' : miss.error, /Checkpoint ck_nope is not in this chat/);
  const e = resolveRewindPoint(t, 'e_nope');
  assert.match(e.ok ? '' : e.error, /Entry e_nope is not in this chat/);
  const l = resolveRewindPoint(t, 'lf');
  assert.match(l.ok ? '' : l.error, /moves the leaf/);
});
