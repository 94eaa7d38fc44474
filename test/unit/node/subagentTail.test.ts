// A session file that ends in a subagent's entries: the tail-first open and the full load agree that the leaf is the parent's.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { assistant, headerLine, line, tempDir, user } from './storeHelpers.js';

test('entries of a child at the end of the file never become the leaf, tail-first or not', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const ts = '2025-01-01T00:00:00.000Z';
  const ref = { id: 'sa_1', toolCallId: 'call_1' };
  const entries: Entry[] = [
    user('u1', null),
    { type: 'assistant', id: 'a1', parentId: 'u1', timestamp: ts, content: '', toolCalls: [{ id: 'call_1', name: 'task', arguments: '{}' }] },
    { type: 'user', id: 'cu', parentId: null, timestamp: ts, content: 'child prompt', subagent: { ...ref, description: 'look' } },
    { ...assistant('ca', 'cu'), subagent: ref },
  ];
  await writeFile(path, `${[headerLine(), ...entries.map(line)].join('\n')}\n`);
  const full = await loadSessionFile(path);
  assert.equal(full.tree.leafId, 'a1');
  assert.equal(full.tree.get('cu')?.subagent?.description, 'look', 'the mark survives a load');
  const store = await JsonlSessionStore.open(path, { tailFirst: true });
  t.after(() => store.close());
  assert.equal(store.leafId(), 'a1');
  await store.whenIndexed();
  assert.equal(store.leafId(), 'a1');
  // The parent answers its call: appended after the child's lines, under its own leaf.
  await store.append({
    type: 'tool_result',
    id: 'r1',
    parentId: 'a1',
    timestamp: ts,
    toolCallId: 'call_1',
    toolName: 'task',
    content: 'answer',
    isError: false,
  });
  assert.deepEqual(
    store.tree.branch().map((e) => e.id),
    ['u1', 'a1', 'r1'],
  );
});
