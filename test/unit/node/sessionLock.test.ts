// One writer per session file: a second opener is read-only with a reason until the first one closes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { HELD_ELSEWHERE_REASON, lockDirPath, ownerPath } from '../../../src/node/sessionLock.js';
import { tempDir, user } from './storeHelpers.js';

const create = { id: 's_lock', cwd: '/w' };

/** The reason names the program holding the lock and its PID (the wording around them is the UI's to choose). */
function assertNamesHolder(reason: string | undefined, app: string, pid: number | undefined): void {
  assert.ok(reason?.includes(app), `${reason} names ${app}`);
  assert.match(reason ?? '', new RegExp(`\\b${pid}\\b`));
}

test('a second open is read-only with a reason, rejects appends, and can write once the first closes', async (t) => {
  const path = join(await tempDir(t), 's_lock.jsonl');
  const first = await JsonlSessionStore.open(path, { create });
  await first.append(user('u1', null));

  const second = await JsonlSessionStore.open(path);
  assert.equal(second.readOnly, true);
  // The holder is named: which program, with its PID.
  assertNamesHolder(second.readOnlyReason, 'a VS Code window', process.pid);
  assert.deepEqual(
    second.entries().map((e) => e.id),
    ['u1'],
    'the read-only view still shows the chat',
  );
  await assert.rejects(second.append(user('u2', 'u1')), (err: Error) => err.message === second.readOnlyReason);
  await second.close();

  await first.append(user('u2', 'u1'));
  await first.close();
  assert.ok(!existsSync(lockDirPath(path)), 'close released the lock');
  assert.ok(!existsSync(ownerPath(path)));

  const third = await JsonlSessionStore.open(path);
  assert.equal(third.readOnly, false);
  await third.append(user('u3', 'u2'));
  assert.deepEqual(
    third.entries().map((e) => e.id),
    ['u1', 'u2', 'u3'],
  );
  await third.close();
});

test('a lock held by another live process keeps us read-only', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_lock.jsonl');
  const w = await JsonlSessionStore.open(path, { create });
  await w.close();
  // Simulate another window: a fresh lock whose owner is a live process other than us.
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  t.after(() => other.kill('SIGKILL'));
  await mkdir(lockDirPath(path));
  await writeFile(ownerPath(path), JSON.stringify({ pid: other.pid, host: hostname(), app: 'the capsule CLI' }));
  const s = await JsonlSessionStore.open(path);
  assert.equal(s.readOnly, true);
  assertNamesHolder(s.readOnlyReason, 'the capsule CLI', other.pid);
  assert.notEqual(s.readOnlyReason, HELD_ELSEWHERE_REASON);
  await s.close();
  assert.ok(existsSync(lockDirPath(path)), "a read-only opener never removes the other window's lock");
});

test('a lock left by a dead process on this machine is reclaimed without waiting for it to go stale', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_lock.jsonl');
  const w = await JsonlSessionStore.open(path, { create });
  await w.close();
  const dead = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((res) => dead.once('exit', res));
  await mkdir(lockDirPath(path));
  await writeFile(ownerPath(path), JSON.stringify({ pid: dead.pid, host: hostname() }));
  const s = await JsonlSessionStore.open(path);
  assert.equal(s.readOnly, false, s.readOnlyReason);
  await s.append(user('u1', null));
  await s.close();
});
