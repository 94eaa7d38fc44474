// The JSONL store: round trip, explicit leaf and real branches, append-only bytes, append validation, queueing.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { assistant, capsule, checkpoint, fileLines, leafMove, tempDir, toolResult, user } from './storeHelpers.js';

const create = { id: 's_round', cwd: '/work/project', title: 'Round trip' };

test('entries of every kind survive a reopen with the same tree and leaf', async (t) => {
  const path = join(await tempDir(t), 's_round.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  assert.equal(store.readOnly, false);
  assert.equal(store.header.id, 's_round');
  assert.equal(store.header.title, 'Round trip');
  const written = [
    user('u1', null),
    assistant('a1', 'u1', 'call_1'),
    toolResult('t1', 'a1', 'call_1', 'x'.repeat(5000)),
    checkpoint('c1', 't1'),
    capsule('k1', 'c1', 't1'),
    user('u2', 'k1'),
    leafMove('l1', 'u2', 'c1'),
    user('u3', 'c1', 'a different direction'),
  ];
  for (const e of written) await store.append(e);
  assert.equal(store.leafId(), 'u3');
  await store.close();

  const again = await JsonlSessionStore.open(path);
  assert.deepEqual(again.problems, []);
  assert.deepEqual(again.entries(), store.entries());
  assert.deepEqual(
    again.entries().map((e) => e.id),
    written.map((e) => e.id),
  );
  assert.equal(again.leafId(), 'u3');
  // The leaf move made a real branch: u2 and u3 are both children of their own parents, and the
  // active branch goes through c1 to u3, skipping the abandoned k1/u2.
  assert.deepEqual(
    again.tree.branch().map((e) => e.id),
    ['u1', 'a1', 't1', 'c1', 'u3'],
  );
  assert.deepEqual(
    again.tree.branch('u2').map((e) => e.id),
    ['u1', 'a1', 't1', 'c1', 'k1', 'u2'],
  );
  assert.deepEqual(
    again.tree.children('c1').map((e) => e.id),
    ['k1', 'u3'],
  );
  await again.close();
});

test('appending never rewrites earlier bytes', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  await store.append(user('u1', null));
  await store.append(assistant('a1', 'u1'));
  const before = await readFile(path);
  await store.append(leafMove('l1', 'a1', 'u1'));
  await store.append(user('u2', 'u1'));
  await store.close();
  const after = await readFile(path);
  assert.ok(after.length > before.length);
  assert.ok(after.subarray(0, before.length).equals(before), 'the first bytes are unchanged');
  const lines = await fileLines(path);
  assert.equal(lines.at(-1), '', 'file ends in a newline');
  assert.equal(lines.length, 1 + 4 + 1);
  for (const l of lines.slice(0, -1)) JSON.parse(l);
});

test('the loaded entries are the validated form (defaults filled in)', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  // toolCalls omitted: the schema default ([]) is what gets written and what the tree holds.
  await store.append({ type: 'assistant', id: 'a1', parentId: null, timestamp: 'now', content: 'hi' } as Parameters<typeof store.append>[0]);
  assert.deepEqual(store.tree.get('a1'), { type: 'assistant', id: 'a1', parentId: null, timestamp: 'now', content: 'hi', toolCalls: [] });
  await store.close();
  const load = await loadSessionFile(path);
  assert.deepEqual(load.tree.get('a1'), store.tree.get('a1'));
});

test('append rejects invalid entries and bad parents without writing anything', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  await store.append(user('u1', null));
  await store.append(assistant('a1', 'u1'));
  const size = (await readFile(path)).length;

  const bad = { ...user('u2', 'a1'), content: 42 } as unknown as Parameters<typeof store.append>[0];
  await assert.rejects(store.append(bad), /invalid entry.*content/);
  await assert.rejects(store.append(user('u3', 'nope')), /parent nope is neither the current leaf \(a1\) nor an existing entry/);
  await assert.rejects(store.append(user('u4', null)), /parent null is neither the current leaf/);
  await assert.rejects(store.append(user('a1', 'a1')), /id a1 already exists/);
  await assert.rejects(store.append(leafMove('l1', 'a1', 'ghost')), /unknown target ghost/);
  assert.equal((await readFile(path)).length, size, 'no bytes written by rejected appends');

  // Branching from an existing entry that is not the leaf is allowed, and the store keeps working.
  await store.append(user('u5', 'u1'));
  assert.equal(store.leafId(), 'u5');
  await store.close();
  await assert.rejects(store.append(user('u6', 'u5')), /closed/);
});

test('concurrent appends are queued: each sees the previous one, lines never interleave', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  const big = 'y'.repeat(200_000);
  const pending = [];
  let parent: string | null = null;
  for (let i = 0; i < 40; i++) {
    const id = `e${i}`;
    // Mixed durable and non-durable kinds, big and small lines, all started without awaiting.
    pending.push(store.append(i % 5 === 4 ? checkpoint(id, parent) : user(id, parent, i % 2 === 0 ? big : 'small')));
    parent = id;
  }
  await Promise.all(pending);
  await store.close();
  const load = await loadSessionFile(path);
  assert.deepEqual(load.problems, []);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    Array.from({ length: 40 }, (_, i) => `e${i}`),
  );
});

test('a failed append does not block the queue', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  const a = store.append(user('u1', 'missing'));
  const b = store.append(user('u2', null));
  await assert.rejects(a);
  await b;
  assert.equal(store.leafId(), 'u2');
  await store.close();
});

test('an entry over the line limit is refused rather than written for the loader to skip', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create, maxLineBytes: 1000 });
  await assert.rejects(store.append(user('u1', null, 'z'.repeat(2000))), /exceeds the 1000-byte line limit/);
  await store.append(user('u2', null, 'fits'));
  await store.close();
});

test('a read-only open reads everything and refuses to append', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const w = await JsonlSessionStore.open(path, { create });
  await w.append(user('u1', null));
  await w.close();
  const r = await JsonlSessionStore.open(path, { readOnly: true });
  assert.equal(r.readOnly, true);
  assert.equal(r.readOnlyReason, 'Opened read-only');
  assert.deepEqual(
    r.entries().map((e) => e.id),
    ['u1'],
  );
  await assert.rejects(r.append(user('u2', 'u1')), /read-only/);
  await r.close();
});

test('opening a missing file without create throws one clear line', async (t) => {
  const path = join(await tempDir(t), 'missing.jsonl');
  await assert.rejects(JsonlSessionStore.open(path), (err: Error) => err.message === `Session file not found: ${path}`);
  await assert.rejects(loadSessionFile(path), (err: Error) => err.message === `Session file not found: ${path}`);
});

test('create on an existing file keeps its content; create on an empty file writes the header', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const first = await JsonlSessionStore.open(path, { create });
  await first.append(user('u1', null));
  await first.close();
  const second = await JsonlSessionStore.open(path, { create: { id: 'other', cwd: '/x' } });
  assert.equal(second.header.id, 's_round');
  assert.deepEqual(
    second.entries().map((e) => e.id),
    ['u1'],
  );
  await second.close();

  const empty = join(dir, 'empty.jsonl');
  await writeFile(empty, '');
  const s = await JsonlSessionStore.open(empty, { create: { id: 's_empty', cwd: '/w' } });
  assert.equal(s.readOnly, false);
  assert.equal(s.header.id, 's_empty');
  await s.close();
});

test('close() lets appends made before it finish, and refuses appends made after it', async (t) => {
  const path = join(await tempDir(t), 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create });
  const a = store.append(user('u1', null));
  const b = store.append(checkpoint('c1', 'u1'));
  const closing = store.close();
  await assert.rejects(store.append(user('u2', 'c1')), /closed/);
  await Promise.all([a, b, closing]);
  const load = await loadSessionFile(path);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1', 'c1'],
  );
});
