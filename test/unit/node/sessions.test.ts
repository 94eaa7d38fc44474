// SessionDirectory: one file per chat in the storage folder; list, create, open, delete (with its archive).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { nodeClock, nodeIds } from '../../../src/node/nodeClock.js';
import { lockDirPath, ownerPath } from '../../../src/node/sessionLock.js';
import { SessionDirectory } from '../../../src/node/sessions.js';
import { assistant, tempDir, user } from './storeHelpers.js';

test('create, list newest first with titles and counts, reopen, delete with sidecars and archive', async (t) => {
  const root = await tempDir(t);
  const dir = new SessionDirectory(root);
  assert.deepEqual(await dir.list(), [], 'no sessions folder yet is an empty list');

  const a = await dir.create('/work/a', 'Fix the parser');
  await a.append(user('u1', null));
  await a.append(assistant('a1', 'u1'));
  await a.close();
  const b = await dir.create('/work/b');
  await b.append(user('u1', null, 'Why does the build fail on Windows?\nIt says EPERM.'));
  await b.close();
  assert.notEqual(a.header.id, b.header.id);
  assert.equal(a.path, dir.sessionPath(a.header.id));
  assert.equal(a.path, join(root, 'sessions', `${a.header.id}.jsonl`));
  // Make the order deterministic: a was touched last.
  const later = new Date(Date.now() + 60_000);
  await utimes(a.path, later, later);

  const list = await dir.list();
  assert.deepEqual(
    list.map((s) => s.id),
    [a.header.id, b.header.id],
  );
  assert.equal(list[0]?.title, 'Fix the parser');
  assert.equal(list[0]?.entries, 2);
  assert.equal(list[0]?.createdAt, a.header.createdAt);
  assert.equal(list[1]?.title, 'Why does the build fail on Windows?', 'untitled chats show their first question');
  assert.equal(list[1]?.entries, 1);
  assert.ok((list[1]?.bytes ?? 0) > 0);

  const reopened = await dir.open(a.header.id);
  assert.equal(reopened.readOnly, false);
  assert.equal(reopened.leafId(), 'a1');
  const second = await dir.open(a.header.id);
  assert.equal(second.readOnly, true, 'the same chat open twice: the second is read-only');
  await second.close();
  const ro = await dir.open(a.header.id, { readOnly: true });
  assert.equal(ro.readOnly, true);
  await ro.close();

  // Evidence archive, the .corrupt and .counts sidecars belong to the chat and go with it.
  const archive = dir.archiveDir(a.header.id);
  assert.equal(archive, join(root, 'archive', a.header.id));
  await mkdir(join(archive, 'op_1'), { recursive: true });
  await writeFile(join(archive, 'op_1', 'snapshot.json'), '{}');
  await writeFile(`${a.path}.corrupt`, 'junk\n');
  await writeFile(`${a.path}.counts`, `{"capsuleCounts":1,"session":"${a.header.id}"}\n`);
  await dir.delete(a.header.id); // closes the writer this process still has open
  await assert.rejects(reopened.append(user('u2', 'a1')), /closed/);
  assert.ok(!existsSync(a.path));
  assert.ok(!existsSync(`${a.path}.corrupt`));
  assert.ok(!existsSync(`${a.path}.counts`), 'its token counts go with it');
  assert.ok(!existsSync(`${a.path}.lock`));
  assert.ok(!existsSync(archive));
  assert.deepEqual(
    (await dir.list()).map((s) => s.id),
    [b.header.id],
  );
  await assert.rejects(dir.open(a.header.id), /not found/);
});

test('unreadable or foreign files are listed with what could be read; bad ids are refused', async (t) => {
  const root = await tempDir(t);
  const dir = new SessionDirectory(root);
  await mkdir(dir.sessionsDir, { recursive: true });
  await writeFile(join(dir.sessionsDir, 's_garbage.jsonl'), 'this is not a session\n\u0000\u0001');
  await writeFile(join(dir.sessionsDir, 's_empty.jsonl'), '');
  await writeFile(join(dir.sessionsDir, 'notes.txt'), 'ignored');
  const list = await dir.list();
  assert.deepEqual(list.map((s) => s.id).sort(), ['s_empty', 's_garbage']);
  const g = list.find((s) => s.id === 's_garbage');
  assert.equal(g?.title, undefined);
  assert.ok(g && !Number.isNaN(Date.parse(g.createdAt)));

  const garbage = await dir.open('s_garbage');
  assert.equal(garbage.readOnly, true);
  await garbage.close();
  for (const bad of ['../escape', 'a/b', '', 'x'.repeat(200)]) {
    assert.throws(() => dir.sessionPath(bad), /Invalid session id/);
    await assert.rejects(dir.delete(bad), /Invalid session id/);
  }
});

test('the list reflects appends made after it was first read', async (t) => {
  const dir = new SessionDirectory(await tempDir(t));
  const s = await dir.create('/w', 'growing');
  assert.equal((await dir.list())[0]?.entries, 0);
  await s.append(user('u1', null));
  const later = new Date(Date.now() + 5_000);
  await utimes(s.path, later, later); // coarse mtime filesystems: make the change visible
  assert.equal((await dir.list())[0]?.entries, 1);
  await s.close();
});

test('node clock and ids', async () => {
  const ids = new Set(Array.from({ length: 1000 }, () => nodeIds.next('e_')));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^e_[0-9a-z]{12}$/);
  assert.ok(Math.abs(nodeClock.now() - Date.now()) < 1000);
  await nodeClock.sleep(1);
  const ac = new AbortController();
  const p = nodeClock.sleep(60_000, ac.signal);
  ac.abort();
  await assert.rejects(p, { name: 'AbortError' });
});

test('a store opened directly is seen by the directory', async (t) => {
  const root = await tempDir(t);
  const dir = new SessionDirectory(root);
  const s = await JsonlSessionStore.open(dir.sessionPath('s_direct'), { create: { id: 's_direct', cwd: '/w' } });
  await s.close();
  assert.deepEqual(
    (await dir.list()).map((x) => x.id),
    ['s_direct'],
  );
});

test('deleting a chat that another window is writing is refused and deletes nothing', async (t) => {
  const dir = new SessionDirectory(await tempDir(t));
  const s = await dir.create('/w');
  await s.close();
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  t.after(() => other.kill('SIGKILL'));
  await mkdir(lockDirPath(s.path));
  await writeFile(ownerPath(s.path), JSON.stringify({ pid: other.pid, host: hostname() }));
  await assert.rejects(dir.delete(s.header.id), /open in another VS Code window/);
  assert.ok(existsSync(s.path));
});
