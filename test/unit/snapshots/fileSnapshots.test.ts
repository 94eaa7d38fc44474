// File snapshots for rewind: writes and commands are captured, the files of an earlier moment come back (git repo or not, binary, deleted, renamed), outside edits are never overwritten silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../agent/agentHelpers.js';
import { Timeline } from './snapshotHelpers.js';

async function setup(t: { after(fn: () => Promise<void>): void }): Promise<{ ws: string; tl: Timeline; store: string }> {
  const dir = await tempDir(t, 'capsule-snap-');
  const ws = join(dir, 'ws');
  await mkdir(ws);
  const store = join(dir, 'store');
  return { ws, tl: new Timeline(ws, store), store };
}

test('agent writes in a folder without git: each moment of the session can be restored, and the restore itself can be undone', async (t) => {
  const { ws, tl } = await setup(t);
  await writeFile(join(ws, 'a.txt'), 'a0\n');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1\n');
  await tl.write('new/b.txt', 'b1\n');
  const m1 = tl.next();
  await tl.write('a.txt', 'a2\n');

  const plan = await tl.plan(m0);
  assert.deepEqual(
    plan.files.map((f) => [f.path.slice(ws.length + 1), f.action, f.editedOutside]),
    [
      ['a.txt', 'restore', false],
      ['new/b.txt', 'delete', false],
    ],
  );
  const r = await tl.restore(m0);
  assert.deepEqual(r.skipped, []);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a0\n');
  assert.equal(existsSync(join(ws, 'new/b.txt')), false, 'a file created after the moment is removed');

  // Back to the later moment: the restore was logged like any change, so nothing is lost.
  await tl.restore(m1);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a1\n');
  assert.equal(await readFile(join(ws, 'new/b.txt'), 'utf8'), 'b1\n');
});

test('a write that changes nothing (or is refused) logs nothing', async (t) => {
  const { ws, tl } = await setup(t);
  await writeFile(join(ws, 'same.txt'), 'x');
  tl.next();
  await tl.snapshots.aroundWrite(join(ws, 'same.txt'), async () => undefined);
  await tl.write('same.txt', 'x');
  assert.deepEqual(await tl.snapshots.log.all(), []);
});

test('binary files come back byte for byte', async (t) => {
  const { ws, tl } = await setup(t);
  const original = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 128]);
  await writeFile(join(ws, 'img.bin'), original);
  const m0 = tl.now;
  tl.next();
  await tl.write('img.bin', Buffer.from([9, 9, 9]));
  await tl.restore(m0);
  assert.deepEqual(await readFile(join(ws, 'img.bin')), original);
});

test('files a command deleted, renamed, created or changed are measured on disk and restored', async (t) => {
  const { ws, tl } = await setup(t);
  await writeFile(join(ws, 'keep.txt'), 'keep\n');
  await writeFile(join(ws, 'gone.txt'), 'gone\n');
  await writeFile(join(ws, 'old-name.txt'), 'moved\n');
  await writeFile(join(ws, 'edit.txt'), 'before\n');
  const m0 = tl.now;
  tl.next();
  await tl.command('rm gone.txt && mv old-name.txt new-name.txt && echo made > made.txt && echo after >> edit.txt');

  const changes = await tl.snapshots.log.all();
  assert.deepEqual(changes.map((c) => c.path.slice(ws.length + 1)).sort(), ['edit.txt', 'gone.txt', 'made.txt', 'new-name.txt', 'old-name.txt']);
  assert.ok(changes.every((c) => c.why === 'command'));

  await tl.restore(m0);
  const names = (await readdir(ws)).sort();
  assert.deepEqual(names, ['edit.txt', 'gone.txt', 'keep.txt', 'old-name.txt']);
  assert.equal(await readFile(join(ws, 'edit.txt'), 'utf8'), 'before\n');
  assert.equal(await readFile(join(ws, 'old-name.txt'), 'utf8'), 'moved\n');
});

test("in a git repository, snapshots never touch the user's git: index, HEAD and status stay as they were", async (t) => {
  const { ws, tl } = await setup(t);
  const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: ws, encoding: 'utf8' });
  git('init', '-q');
  await writeFile(join(ws, 'src.ts'), 'v1\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  await writeFile(join(ws, 'src.ts'), 'v1 staged\n');
  git('add', 'src.ts');
  const index = await readFile(join(ws, '.git', 'index'));
  const head = git('rev-parse', 'HEAD');
  const status = git('status', '--porcelain');
  const m0 = tl.now;
  tl.next();
  await tl.write('src.ts', 'agent edit\n');
  await tl.command('echo generated > gen.txt');
  await tl.restore(m0);
  assert.equal(await readFile(join(ws, 'src.ts'), 'utf8'), 'v1 staged\n');
  assert.deepEqual(await readFile(join(ws, '.git', 'index')), index, 'the index is untouched');
  assert.equal(git('rev-parse', 'HEAD'), head);
  assert.equal(git('status', '--porcelain'), status);
  assert.equal(git('stash', 'list'), '', 'no stash, no commit, no ref');
  assert.ok(!(await tl.snapshots.log.all()).some((c) => c.path.includes(`${join(ws, '.git')}`)), '.git is never walked');
});

test('a file edited outside Capsule since is reported and not overwritten without asking', async (t) => {
  const { ws, tl } = await setup(t);
  await writeFile(join(ws, 'a.txt'), 'a0');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1');
  await writeFile(join(ws, 'a.txt'), 'the user typed this');
  const plan = await tl.plan(m0);
  assert.equal(plan.files[0]?.editedOutside, true);
  const r = await tl.restore(m0);
  assert.deepEqual(r.restored, []);
  assert.match(r.skipped[0]?.reason ?? '', /edited outside Capsule/);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'the user typed this');
  const forced = await tl.restore(m0, true);
  assert.equal(forced.restored.length, 1);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a0');
});

test('a missing or damaged snapshot is named; the other files are still restored', async (t) => {
  const { ws, tl, store } = await setup(t);
  await writeFile(join(ws, 'a.txt'), 'a0');
  await writeFile(join(ws, 'b.txt'), 'b0');
  const m0 = tl.now;
  tl.next();
  await tl.write('a.txt', 'a1');
  await tl.write('b.txt', 'b1');
  const [ca, cb] = await tl.snapshots.log.all();
  // With git on PATH, contents are loose objects of the shadow repository.
  const objectPath = (h: string): string => join(store, 'git', 'objects', h.slice(0, 2), h.slice(2));
  await writeFile(objectPath(String(ca?.before)), 'tampered');
  const plan = await tl.plan(m0);
  assert.match(plan.files.find((f) => f.path.endsWith('a.txt'))?.unavailable ?? '', /missing or damaged/);
  assert.equal(plan.files.find((f) => f.path.endsWith('b.txt'))?.unavailable, undefined);
  const r = await tl.restore(m0);
  assert.equal(await readFile(join(ws, 'b.txt'), 'utf8'), 'b0');
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a1', 'a file whose snapshot is damaged is left as it is');
  assert.match(r.skipped[0]?.reason ?? '', /missing or damaged/);
  await rm(objectPath(String(cb?.before)));
  const again = await tl.plan(m0);
  assert.ok(
    again.files.every((f) => f.path.endsWith('a.txt')),
    'b.txt is already as it was',
  );
});

test('size bounds: a file above the per-file limit and a full store are recorded as unavailable, never half-kept', async (t) => {
  const dir = await tempDir(t, 'capsule-snap-');
  const ws = join(dir, 'ws');
  await mkdir(ws);
  const tl = new Timeline(ws, join(dir, 'store'), { maxFileBytes: 20, maxStoreBytes: 12 });
  await writeFile(join(ws, 'big.txt'), 'x'.repeat(50));
  await writeFile(join(ws, 'small.txt'), 'twelve bytes');
  await writeFile(join(ws, 'late.txt'), 'late');
  const m0 = tl.now;
  tl.next();
  await tl.write('big.txt', 'y');
  await tl.write('small.txt', 'z');
  await tl.write('late.txt', 'w');
  const plan = await tl.plan(m0);
  const why = (name: string): string | undefined => plan.files.find((f) => f.path.endsWith(name))?.unavailable;
  assert.match(why('big.txt') ?? '', /not kept/);
  assert.equal(why('small.txt'), undefined, 'within the bounds');
  assert.match(why('late.txt') ?? '', /not kept/, 'the store was full');
  assert.ok((await tl.snapshots.storedBytes()) <= 12);
});
