// The tree's reading of a chat: one moment per message with its checkpoints and compactions, other branches apart, titles that tell chats apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { distinctTitles, momentsOf } from '../../../src/engine/transcript/moments.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';

const ts = '2025-01-01T07:29:00.000Z';

test('messages become moments; checkpoints and compactions are their children; the message checkpoint is the row itself', () => {
  const entries: Entry[] = [
    { type: 'checkpoint', id: 'k1', parentId: null, timestamp: ts, checkpointId: 'ck_1', kind: 'auto', forEntryId: 'u1' },
    { type: 'user', id: 'u1', parentId: 'k1', timestamp: ts, content: 'read the files' },
    { type: 'assistant', id: 'a1', parentId: 'u1', timestamp: ts, content: 'ok', toolCalls: [], usage: { promptTokens: 16_200, completionTokens: 5 } },
    { type: 'checkpoint', id: 'm1', parentId: 'a1', timestamp: ts, checkpointId: 'ck_m', kind: 'milestone', note: 'parser done' },
    { type: 'checkpoint', id: 'k2', parentId: 'm1', timestamp: ts, checkpointId: 'ck_2', kind: 'auto', forEntryId: 'u2' },
    { type: 'user', id: 'u2', parentId: 'k2', timestamp: ts, content: 'now the tests' },
    { type: 'checkpoint', id: 'kc', parentId: 'u2', timestamp: ts, checkpointId: 'ck_c', kind: 'auto' },
    {
      type: 'capsule',
      id: 'c1',
      parentId: 'kc',
      timestamp: ts,
      summary: 'S',
      firstKeptEntryId: 'u2',
      pinnedEntryIds: [],
      tokensBefore: 48_000,
      tokensAfter: 9_000,
      trigger: 'hard_limit',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: 'ck_c',
      details: {},
    },
    { type: 'compaction_undo', id: 'x1', parentId: 'c1', timestamp: ts, capsuleId: 'c1', checkpointId: 'ck_c', action: 'undo' },
    { type: 'leaf', id: 'l1', parentId: 'x1', timestamp: ts, targetId: 'k2' },
    { type: 'user', id: 'u3', parentId: 'k2', timestamp: ts, content: 'edited: now the docs' },
  ];
  const tree = SessionTree.from(entries);
  const { active, other } = momentsOf(tree.entries(), tree.branch());
  assert.deepEqual(
    active.map((m) => [m.index, m.message?.content, m.checkpoint?.checkpointId, m.tokens]),
    [
      [1, 'read the files', 'ck_1', undefined],
      [2, 'edited: now the docs', undefined, 16_200],
    ],
  );
  assert.deepEqual(
    active[0]?.children.map((c) => (c.kind === 'checkpoint' ? c.entry.note : c.entry.id)),
    ['parser done'],
  );
  assert.deepEqual(
    other.map((m) => m.message?.content),
    ['now the tests'],
  );
  const compaction = other[0]?.children[0];
  assert.ok(compaction?.kind === 'compaction' && compaction.undone && compaction.events.length === 1, 'the compaction of the other branch, undone there');
});

test('chat titles: the first request, and the start time when two begin alike', () => {
  const when = (iso: string): string => iso.slice(11, 16);
  const titles = distinctTitles(
    [
      { id: 's_a', title: 'Fix the parser', createdAt: '2025-01-01T07:29:00Z' },
      { id: 's_b', title: 'Fix the parser', createdAt: '2025-01-01T08:10:00Z' },
      { id: 's_c', title: '  Write\n the   docs ', createdAt: '2025-01-01T09:00:00Z' },
      { id: 's_d', createdAt: '2025-01-01T10:00:00Z' },
      { id: 's_e', title: 'Fix the parser', createdAt: '2025-01-01T08:10:00Z' },
    ],
    when,
  );
  assert.equal(titles.get('s_a'), 'Fix the parser · 07:29');
  assert.equal(titles.get('s_b'), 'Fix the parser · 08:10');
  assert.equal(titles.get('s_e'), 'Fix the parser · 08:10 · s_e', 'same title, same minute: the id decides');
  assert.equal(titles.get('s_c'), 'Write the docs');
  assert.equal(titles.get('s_d'), 'Chat of 10:00');
});
