// The checkpoint store without git (real files): compressed contents, the same exclusions, a stat index that outlives the process, and chats kept by the older SHA-256 store still restore.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { Chat, makeWorkspace } from './checkpointHelpers.js';

const FILES = { 'a.txt': 'a0 '.repeat(200), 'sub/b.txt': 'b0\n', 'node_modules/dep/i.js': 'dep\n' };

test('without git on PATH the object store is used: changes logged and restored, contents compressed, own files and dependency folders left out', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, false);
  const store = join(dir, 'store');
  // As on a machine without git: the PATH it is looked up in has none.
  const chat = new Chat(ws, store, { git: { git: 'git', path: '/nonexistent' }, ownFiles: () => [join(ws, 'chat.jsonl')] });
  assert.equal(await chat.snapshots.storeKind(), 'objects');
  const m0 = chat.now;
  chat.next();
  await chat.command('echo a1 > a.txt; rm sub/b.txt; echo n > n.txt; echo x >> chat.jsonl; echo y > node_modules/dep/i.js');
  assert.deepEqual((await chat.logged()).sort(), ['a.txt', 'n.txt', 'sub/b.txt']);
  const before = (await chat.snapshots.log.all()).find((c) => c.path.endsWith('a.txt'))?.before;
  assert.ok(typeof before === 'string' && /^[0-9a-f]{40}$/.test(before));
  const file = await readFile(join(store, 'objects', before.slice(0, 2), before.slice(2)));
  assert.ok(file.byteLength < 100, `kept compressed (${file.byteLength} bytes for 600)`);
  assert.equal(inflateSync(file).toString('latin1'), `blob 600\0${'a0 '.repeat(200)}`, "in git's loose format");
  await chat.restore(m0);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a0 '.repeat(200));
  assert.equal(await readFile(join(ws, 'sub/b.txt'), 'utf8'), 'b0\n');
  assert.equal(existsSync(join(ws, 'n.txt')), false);
});

test('the stat index outlives the process: a new one does not read (and keep) every file again', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, false);
  const store = join(dir, 'store');
  const first = new Chat(ws, store, { git: false });
  await first.command('true');
  assert.ok(existsSync(join(store, 'stat-index.json')));
  // A later process whose store has no room left: had it rebuilt its stat cache, every pre-image would be "unavailable".
  const later = new Chat(ws, store, { git: false, limits: { maxStoreBytes: 1 } });
  later.next();
  await later.command('echo a1 > a.txt');
  const c = (await later.snapshots.log.all()).at(-1);
  assert.equal(c?.path, join(ws, 'a.txt'));
  assert.match(String(c?.before), /^[0-9a-f]{40}$/, 'the state known from the index, still restorable');
  assert.equal(later.logs.filter((l) => l.fields?.userNotice === true).length, 0, 'nothing was refused');
});

test('a chat from before the shadow store (SHA-256 ids, raw files in objects/) still restores, without calling the file edited outside', async (t) => {
  const { dir, ws } = await makeWorkspace(t, { 'a.txt': 'new\n' }, true);
  const store = join(dir, 'store');
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  const old = sha('old\n');
  await mkdir(join(store, 'objects', old.slice(0, 2)), { recursive: true });
  await writeFile(join(store, 'objects', old.slice(0, 2), old.slice(2)), 'old\n');
  const record = { path: join(ws, 'a.txt'), leaf: 'm1', before: old, after: sha('new\n'), why: 'write' as const, at: '2026-01-01T00:00:00.000Z' };
  const chat = new Chat(ws, store);
  // Signed on this machine (unsigned records are refused, docs/rewind.md#safety): only the ids are of the older scheme.
  await chat.snapshots.log.append([record]);
  chat.next();
  chat.next();
  const r = await chat.restore('m1');
  assert.deepEqual(r.skipped, []);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'old\n');
});
