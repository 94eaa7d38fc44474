// Undo/redo of one compaction (the model input equals the one before it, later turns kept) and "compact up to here" (an explicit cut before a message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planCutAt } from '../../../src/engine/compaction/cutAt.js';
import { isNothingToCompact } from '../../../src/engine/compaction/cut.js';
import { isUndone, planUndo } from '../../../src/engine/compaction/undo.js';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../../../src/engine/transcript/schema.js';
import { Chain, harness, session } from './harness.js';

const deps = { ids: { next: (p: string): string => `${p}${Math.random().toString(36).slice(2, 8)}` }, clock: { now: (): number => 0 } };
const input = (branch: readonly Entry[]): unknown => {
  const i = buildModelInput(branch, DEFAULT_SYSTEM_PROMPT);
  return { system: i.system, messages: i.messages };
};

async function compacted(turns = 12): Promise<{ h: ReturnType<typeof harness>; before: readonly Entry[]; capsule: CapsuleEntry }> {
  const h = harness(session(turns, 60));
  const before = h.store.tree.branch();
  const r = await h.barrier.compactNow();
  const done = r.outcomes.find((o) => o.outcome === 'completed');
  assert.ok(done?.outcome === 'completed', JSON.stringify(r.outcomes.map((o) => o.outcome)));
  return { h, before, capsule: done.capsule };
}

test('undo makes the model input exactly the one before the compaction; redo brings the capsule back; both are events', async () => {
  const { h, before, capsule } = await compacted();
  const withCapsule = input(h.store.tree.branch());
  assert.notDeepEqual(withCapsule, input(before));
  const undo = planUndo(h.store.tree.branch(), h.store.leafId(), capsule.checkpointId, 'undo', deps);
  assert.ok(undo.ok, undo.ok ? '' : undo.error);
  await h.store.append(undo.entry);
  assert.deepEqual(input(h.store.tree.branch()), input(before), 'as if the capsule did not exist');
  assert.equal(isUndone(h.store.tree.branch(), capsule.id), true);

  const again = planUndo(h.store.tree.branch(), h.store.leafId(), capsule.checkpointId, 'undo', deps);
  assert.match(again.ok ? '' : again.error, /already undone/);
  const redo = planUndo(h.store.tree.branch(), h.store.leafId(), capsule.checkpointId, 'redo', deps);
  assert.ok(redo.ok);
  await h.store.append(redo.entry);
  assert.deepEqual(input(h.store.tree.branch()), withCapsule, 'redo restores the compacted input');
  assert.equal(h.store.entries().filter((e) => e.type === 'compaction_undo').length, 2, 'append-only: both events stay');
  assert.ok(
    h.store.entries().some((e) => e.id === capsule.id),
    'the capsule is never removed',
  );
});

test('undo keeps the turns made after the compaction, and falls back to the previous capsule when there is one', async () => {
  const { h, capsule } = await compacted();
  const c = new Chain();
  const later: Entry[] = [];
  c.turn(98, 80);
  c.turn(99, 80);
  let parent = h.store.leafId();
  for (const e of c.entries) {
    const moved = { ...e, id: `later_${e.id}`, parentId: parent };
    parent = moved.id;
    later.push(moved);
    await h.store.append(moved);
  }
  const first = await h.barrier.compactNow();
  const second = first.outcomes.find((o) => o.outcome === 'completed');
  assert.ok(second?.outcome === 'completed', JSON.stringify(first.outcomes.map((o) => (o.outcome === 'completed' ? o.outcome : o.reason))));
  const u = planUndo(h.store.tree.branch(), h.store.leafId(), second.capsule.checkpointId, 'undo', deps);
  assert.ok(u.ok);
  await h.store.append(u.entry);
  const now = buildModelInput(h.store.tree.branch(), DEFAULT_SYSTEM_PROMPT);
  assert.equal(now.capsule?.id, capsule.id, 'the previous capsule is in force again');
  for (const e of later)
    if (e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result') assert.ok(now.entryIds.includes(e.id), `later entry ${e.id} kept`);
  const prevInput = buildModelInput(
    [...h.store.tree.branch()].filter((e) => e.id !== second.capsule.id && e.type !== 'compaction_undo'),
    DEFAULT_SYSTEM_PROMPT,
  );
  assert.deepEqual(now.messages, prevInput.messages, 'exactly the input as if the second capsule did not exist');
  const older = planUndo(h.store.tree.branch(), h.store.leafId(), 'ck_missing', 'undo', deps);
  assert.match(older.ok ? '' : older.error, /No compaction ck_missing/);
});

test('only the compaction in force can be undone (undoing an older one would change nothing)', async () => {
  const { h, capsule } = await compacted(16);
  const c = new Chain();
  c.turn(50, 80);
  c.turn(51, 80);
  let parent = h.store.leafId();
  for (const e of c.entries) {
    const moved = { ...e, id: `n_${e.id}`, parentId: parent };
    parent = moved.id;
    await h.store.append(moved);
  }
  const r = await h.barrier.compactNow();
  assert.ok(r.outcomes.some((o) => o.outcome === 'completed'));
  const u = planUndo(h.store.tree.branch(), h.store.leafId(), capsule.checkpointId, 'undo', deps);
  assert.match(u.ok ? '' : u.error, /not the one in force/);
});

test('compact up to here: everything before the message is summarized, the message and all after it stay verbatim', async () => {
  const h = harness(session(10, 40));
  const users = h.store.tree.branch().filter((e) => e.type === 'user');
  const target = users[6];
  assert.ok(target);
  const r = await h.barrier.compactWith('user', { cutBefore: target.id });
  const done = r.outcomes.find((o) => o.outcome === 'completed');
  assert.ok(done?.outcome === 'completed', JSON.stringify(r.outcomes));
  assert.equal(done.capsule.firstKeptEntryId, target.id);
  assert.equal(done.capsule.trigger, 'user');
  const now = buildModelInput(h.store.tree.branch(), DEFAULT_SYSTEM_PROMPT);
  const at = h.store.tree.branch().findIndex((e) => e.id === target.id);
  const expected = h.store.tree
    .branch()
    .slice(at)
    .filter((e) => e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result')
    .map((e) => e.id);
  assert.deepEqual(now.entryIds, expected, 'the kept tail is exactly the message and everything after it');
  assert.equal(now.messages[0]?.content, 'What did we do so far?');
});

test('compact up to here refuses cuts that are not safe or not new, in words, without touching the session', () => {
  const c = new Chain();
  for (let i = 1; i <= 4; i++) c.turn(i, 5);
  const branch = c.entries;
  const tokensOf = (): number => 10;
  const first = branch.find((e) => e.type === 'user');
  const tool = branch.find((e) => e.type === 'tool_result');
  const why = (id: string): string => {
    const r = planCutAt(branch, tokensOf, id);
    assert.ok(isNothingToCompact(r));
    return r.reason;
  };
  assert.match(why(first?.id ?? ''), /nothing before that message/);
  assert.match(why(tool?.id ?? ''), /not a user message/);
  assert.match(why('nope'), /not on the active branch/);
});
