// A restore cannot hurt: crafted or tampered change-log records are refused and named, no link is followed out, changed-since files (even unknown ones) are kept, a forced overwrite keeps the user's copy first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REFUSED } from '../../../src/node/snapshots/changeLog.js';
import { hashOf } from '../../../src/node/snapshots/objectStore.js';
import { tempDir } from '../agent/agentHelpers.js';
import { Timeline } from './snapshotHelpers.js';

async function setup(
  t: { after(fn: () => Promise<void>): void },
  limits = {},
): Promise<{ dir: string; ws: string; outside: string; tl: Timeline; store: string }> {
  const dir = await tempDir(t, 'capsule-safe-');
  const ws = join(dir, 'ws');
  const outside = join(dir, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  const store = join(dir, 'store');
  return { dir, ws, outside, tl: new Timeline(ws, store, limits), store };
}

test('a crafted change log naming paths outside the workspace (absolute or through ..) is refused and named; nothing outside changes', async (t) => {
  const { ws, outside, store, ...rest } = await setup(t);
  let tl = rest.tl;
  await writeFile(join(outside, 'victim.txt'), 'precious\n');
  await writeFile(join(outside, 'delete-me.txt'), 'also precious\n');
  await writeFile(join(ws, 'a.txt'), 'a0');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1');
  // The bytes an attacker wants written: stored under their own hash, as a cloned repository could ship them.
  const evil = await tl.snapshots.objects.put(Buffer.from('pwned\n'));
  const at = new Date().toISOString();
  const crafted = [
    { path: join(outside, 'victim.txt'), leaf: 'm1', before: evil, after: hashOf(Buffer.from('precious\n')), why: 'write', at },
    { path: join(outside, 'delete-me.txt'), leaf: 'm1', before: null, after: hashOf(Buffer.from('also precious\n')), why: 'write', at },
    { path: join(outside, 'created.txt'), leaf: 'm1', before: evil, after: null, why: 'write', at },
    { v: 2, root: ws, path: '../outside/dotdot.txt', leaf: 'm1', before: evil, after: null, why: 'write', at, mac: '0'.repeat(64) },
    { path: join(ws, 'inside-unsigned.txt'), leaf: 'm1', before: evil, after: null, why: 'write', at },
  ];
  await appendFile(join(store, 'changes.jsonl'), `${crafted.map((c) => JSON.stringify(c)).join('\n')}\n`);
  tl = tl.reopen();

  const plan = await tl.plan(m0);
  assert.deepEqual(
    plan.files.map((f) => f.path),
    [join(ws, 'a.txt')],
    'only the genuine record is planned',
  );
  const refused = new Map(plan.refused.map((r) => [r.path, r.reason]));
  assert.equal(refused.get(join(outside, 'victim.txt')), REFUSED.outside);
  assert.equal(refused.get(join(outside, 'delete-me.txt')), REFUSED.outside);
  assert.equal(refused.get(join(outside, 'created.txt')), REFUSED.outside);
  assert.equal(refused.get(`${ws}/../outside/dotdot.txt`), REFUSED.outside);
  assert.equal(refused.get(join(ws, 'inside-unsigned.txt')), REFUSED.unsigned);

  const r = await tl.restore(m0);
  assert.deepEqual(r.restored, [join(ws, 'a.txt')]);
  assert.deepEqual(r.skipped, []);
  assert.equal(r.refused.length, 5, 'every refused record is reported');
  assert.equal(await readFile(join(outside, 'victim.txt'), 'utf8'), 'precious\n');
  assert.equal(await readFile(join(outside, 'delete-me.txt'), 'utf8'), 'also precious\n');
  assert.deepEqual((await readdir(outside)).sort(), ['delete-me.txt', 'victim.txt']);
  assert.equal(existsSync(join(ws, 'inside-unsigned.txt')), false);
});

test('a record changed after Capsule wrote it, or a log copied from another key, is refused', async (t) => {
  const { dir, ws, tl, store } = await setup(t);
  await writeFile(join(ws, 'a.txt'), 'a0');
  await writeFile(join(ws, 'b.txt'), 'b0');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1');
  await tl.write('b.txt', 'b1');
  const log = join(store, 'changes.jsonl');
  const lines = (await readFile(log, 'utf8')).split('\n').filter((l) => l !== '');
  // Point the record of a.txt at b.txt's path: the fields no longer match the integrity check.
  const tampered = lines.map((l) => (l.includes('"a.txt"') ? l.replace('"a.txt"', '"c.txt"') : l));
  await writeFile(log, `${tampered.join('\n')}\n`);
  const plan = await tl.reopen().plan(m0);
  assert.deepEqual(
    plan.files.map((f) => f.path),
    [join(ws, 'b.txt')],
  );
  assert.deepEqual(plan.refused, [{ path: join(ws, 'c.txt'), reason: REFUSED.badMac }]);

  // The same log read with another user's key: nothing in it is Capsule's on this machine.
  const other = tl.reopen(join(dir, 'other.key'));
  const foreign = await other.plan(m0);
  assert.deepEqual(foreign.files, []);
  assert.equal(foreign.refused.length, 2);
  assert.ok(foreign.refused.every((r) => r.reason === REFUSED.badMac));
});

test('the key file is created once with mode 0600, outside the workspace; the log holds root-relative paths', async (t) => {
  const { dir, ws, tl, store } = await setup(t);
  tl.next();
  await tl.write('sub/x.txt', 'x');
  const key = await stat(join(dir, 'snapshot.key'));
  assert.equal(key.mode & 0o777, 0o600);
  const rec = JSON.parse((await readFile(join(store, 'changes.jsonl'), 'utf8')).trim()) as { root: string; path: string; mac: string };
  assert.equal(rec.path, 'sub/x.txt');
  assert.equal(rec.root, ws);
  assert.match(rec.mac, /^[0-9a-f]{64}$/);
});

test('a folder replaced by a link to an outside folder is not followed: the file is not created outside, and the plan names it', async (t) => {
  const { ws, outside, tl } = await setup(t);
  tl.next();
  await tl.write('sub/x.txt', 'turn one\n');
  // The moment turn 2 starts: x.txt exists there.
  const m1 = tl.next();
  await tl.command('rm sub/x.txt');
  await rm(join(ws, 'sub'), { recursive: true });
  await symlink(outside, join(ws, 'sub'));

  const plan = await tl.plan(m1);
  assert.deepEqual(plan.files, []);
  assert.equal(plan.refused[0]?.path, join(ws, 'sub', 'x.txt'));
  assert.match(plan.refused[0]?.reason ?? '', /folder sub on its path is now a symbolic link/);
  const r = await tl.restore(m1);
  assert.deepEqual(r.restored, []);
  assert.equal(existsSync(join(outside, 'x.txt')), false, 'nothing was created through the link');
  assert.match(r.refused[0]?.reason ?? '', /symbolic link/);
});

test('the link check runs again at write time: a folder swapped for a link after the plan is not followed', async (t) => {
  const { ws, outside, tl } = await setup(t);
  tl.next();
  await tl.write('sub/x.txt', 'turn one\n');
  // The moment turn 2 starts: x.txt exists there.
  const m1 = tl.next();
  await tl.command('rm sub/x.txt');
  const plan = await tl.plan(m1);
  assert.equal(plan.files[0]?.action, 'recreate');
  await rm(join(ws, 'sub'), { recursive: true });
  await symlink(outside, join(ws, 'sub'));
  const { applyRestore } = await import('../../../src/node/snapshots/restore.js');
  const r = await applyRestore(tl.snapshots, plan, { overwriteOutside: true, leaf: tl.next() });
  assert.deepEqual(r.restored, []);
  assert.equal(existsSync(join(outside, 'x.txt')), false);
  assert.match(r.refused[0]?.reason ?? '', /symbolic link/);
});

test('a file whose last content was not kept (over the size cap) and that the user rewrote is changed since: kept and named; --force keeps a copy first and says where', async (t) => {
  const { ws, tl, store } = await setup(t, { maxFileBytes: 64 });
  await writeFile(join(ws, 'data.csv'), 'id,v\n1,a\n');
  const m0 = tl.now;
  tl.next();
  await tl.write('data.csv', `id,v\n${'2,b\n'.repeat(40)}`);
  const last = (await tl.snapshots.log.all()).at(-1);
  assert.equal(last?.after, 'unavailable', 'the agent grew it past the cap');
  await writeFile(join(ws, 'data.csv'), 'the user rewrote this\n');

  const plan = await tl.plan(m0);
  assert.equal(plan.files[0]?.editedOutside, true, '"unavailable" does not switch the check off');
  assert.equal(plan.files[0]?.unknownContent, true);
  const r = await tl.restore(m0);
  assert.deepEqual(r.restored, []);
  assert.match(r.skipped[0]?.reason ?? '', /cannot tell whether you edited it; left as it is/);
  assert.equal(await readFile(join(ws, 'data.csv'), 'utf8'), 'the user rewrote this\n');

  const forced = await tl.restore(m0, true);
  assert.deepEqual(forced.restored, [join(ws, 'data.csv')]);
  assert.equal(await readFile(join(ws, 'data.csv'), 'utf8'), 'id,v\n1,a\n');
  const copy = forced.kept[0]?.copy ?? '';
  assert.ok(copy.startsWith(join(store, 'kept')) && copy.endsWith(join('', 'data.csv')), copy);
  assert.equal(await readFile(copy, 'utf8'), 'the user rewrote this\n', "the user's version is where the result says");
});

test('a forced overwrite of an edited file (and a forced delete) keeps the user version first', async (t) => {
  const { ws, tl } = await setup(t);
  await writeFile(join(ws, 'a.txt'), 'a0');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1');
  await tl.write('dir/new.txt', 'agent');
  await writeFile(join(ws, 'a.txt'), 'user a');
  await writeFile(join(ws, 'dir/new.txt'), 'user new');
  const forced = await tl.restore(m0, true);
  assert.equal(forced.restored.length, 2);
  assert.equal(existsSync(join(ws, 'dir/new.txt')), false);
  const copies = new Map(forced.kept.map((k) => [k.path, k.copy]));
  assert.equal(await readFile(copies.get(join(ws, 'a.txt')) ?? '', 'utf8'), 'user a');
  assert.equal(await readFile(copies.get(join(ws, 'dir/new.txt')) ?? '', 'utf8'), 'user new');
  assert.ok((copies.get(join(ws, 'dir/new.txt')) ?? '').endsWith(join('dir', 'new.txt')));
});

test("Capsule's own files are never logged or restored, wherever they live", async (t) => {
  const dir = await tempDir(t, 'capsule-safe-');
  const ws = join(dir, 'ws');
  await mkdir(join(ws, '.vscode'), { recursive: true });
  const settings = join(ws, '.vscode', 'settings.json');
  const { FileSnapshots } = await import('../../../src/node/snapshots/fileSnapshots.js');
  let moment = 0;
  const snaps = new FileSnapshots({ dir: join(dir, 'store'), roots: [ws], leaf: () => `m${moment}`, keyFile: join(dir, 'k'), ownFiles: () => [settings] });
  moment = 1;
  // A command during which Capsule itself writes the settings file (the "Always allow" of an approval).
  await snaps.aroundCommand(async () => {
    await writeFile(settings, '{"capsule.approvals.allowedCommands":["npm test"]}\n');
    await writeFile(join(ws, 'out.txt'), 'made by the command\n');
  });
  assert.deepEqual(
    (await snaps.log.all()).map((c) => c.path),
    [join(ws, 'out.txt')],
  );
});
