// The scan after a command looks only at what the folder watcher saw change while it ran (whole when the watcher cannot vouch for the window): every change the command made is still logged with the right pre-image.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ShadowRepo } from '../../../src/node/checkpoints/shadowRepo.js';
import type { ScanCounts } from '../../../src/node/checkpoints/gitCheckpoints.js';
import { Chat, git, makeWorkspace } from './checkpointHelpers.js';

const FILES = { 'a.txt': 'a0\n', 'sub/b.txt': 'b0\n', 'sub/c.txt': 'c0\n', 'keep.txt': 'keep\n', '.gitignore': 'ignored/\n*.log\n' };

async function scans(chat: Chat): Promise<{ before: ScanCounts; after: ScanCounts }> {
  const s = await chat.snapshots.checkpointScans();
  assert.ok(s !== undefined, 'the shadow git store is used');
  return { before: s.before, after: s.after };
}

async function withoutGit(chat: Chat): Promise<number | undefined> {
  return (await chat.snapshots.checkpointScans())?.beforeWithoutGit;
}

/** The newest record of `rel`: its pre-image as text (null when absent before) and its after state. */
async function last(chat: Chat, rel: string): Promise<{ before: string | null; after: string | null } | undefined> {
  const c = (await chat.snapshots.log.all()).filter((x) => x.path === join(chat.ws, rel)).at(-1);
  if (c === undefined) return undefined;
  const text = async (id: string | null): Promise<string | null> =>
    typeof id === 'string' ? Buffer.from((await chat.snapshots.objects.get(id)) ?? []).toString() : null;
  return { before: await text(c.before), after: typeof c.after === 'string' ? c.after : null };
}

function open(t: { after(fn: () => Promise<void>): void }, ws: string, store: string): Chat {
  const chat = new Chat(ws, store);
  t.after(async () => chat.snapshots.close());
  return chat;
}

for (const repo of [true, false]) {
  const kind = repo ? 'git workspace' : 'plain folder';

  test(`${kind}: after the first command, the scans after commands look only at the watched paths; creates in new folders, deletes, moves and ignored files come out right`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    chat.next();
    await chat.command('mkdir -p deep/er && echo x > deep/er/x.txt; rm sub/b.txt; mv sub/c.txt sub/c2.txt; echo log > out.log; echo a1 > a.txt');
    chat.next();
    await chat.command('true');
    // The first command's scan before is whole (the watcher is new); every scan after it is of the watched paths.
    assert.deepEqual(await scans(chat), { before: { full: 1, paths: 0, none: 2 }, after: { full: 0, paths: 1, none: 2 } });
    assert.deepEqual((await chat.logged()).sort(), ['a.txt', 'deep/er/x.txt', 'sub/b.txt', 'sub/c.txt', 'sub/c2.txt']);
    assert.equal((await last(chat, 'a.txt'))?.before, 'a0\n');
    assert.equal((await last(chat, 'sub/b.txt'))?.before, 'b0\n');
    assert.equal((await last(chat, 'deep/er/x.txt'))?.before, null);
  });

  test(`${kind}: a file the user edited before the command and the command set back to the recorded content is the command's change, with the user's version as pre-image`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    await writeFile(join(ws, 'a.txt'), 'user\n');
    await rm(join(ws, 'sub/b.txt'));
    await writeFile(join(ws, 'keep.txt'), 'user keep\n');
    const m = chat.next();
    // a.txt back to what the index holds (git reports nothing for it), b.txt made again, keep.txt left alone.
    await chat.command("printf 'a0\\n' > a.txt; echo b1 > sub/b.txt");
    assert.deepEqual(await scans(chat), { before: { full: 1, paths: 1, none: 0 }, after: { full: 0, paths: 1, none: 1 } });
    assert.deepEqual((await chat.logged()).sort(), ['a.txt', 'sub/b.txt']);
    assert.equal((await last(chat, 'a.txt'))?.before, 'user\n');
    assert.equal((await last(chat, 'sub/b.txt'))?.before, null, 'the user had deleted it: the command created it');
    await chat.snapshots.idle();
    await chat.restore(m);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'user\n');
    assert.equal(existsSync(join(ws, 'sub/b.txt')), false);
    assert.equal(await readFile(join(ws, 'keep.txt'), 'utf8'), 'user keep\n');
    // The next command starts from what is on disk now, the user's keep.txt included.
    chat.next();
    await chat.command('echo k2 > keep.txt');
    assert.equal((await last(chat, 'keep.txt'))?.before, 'user keep\n');
  });

  test(`${kind}: when the index update after a command fails, the next scan is whole, so the next command's pre-image is still right`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    const stage = ShadowRepo.prototype.stage;
    let failing = true;
    ShadowRepo.prototype.stage = function (...args: Parameters<typeof stage>) {
      if (failing && args[1].length > 0) return Promise.reject(new Error('index.lock: File exists'));
      return stage.apply(this, args);
    };
    t.after(() => void (ShadowRepo.prototype.stage = stage));
    chat.next();
    // A new file sends the scan after the command to git, which then updates the index (and fails to).
    await chat.command('echo a1 > a.txt; echo n > n.txt');
    await chat.snapshots.idle();
    failing = false;
    chat.next();
    await chat.command('echo a2 > a.txt');
    assert.deepEqual((await scans(chat)).before, { full: 2, paths: 0, none: 1 }, 'the scan after the failed update is whole');
    assert.equal((await last(chat, 'a.txt'))?.before, 'a1\n');
  });

  test(`${kind}: commands that change only tracked files run no git after them either; each pre-image is what the step before left, and restore goes back through all of them`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    // A new file: git looks, and the index learns every file (a plain folder's first scan only kept them in-process).
    await chat.command('echo s > s.txt');
    await chat.snapshots.idle();
    const setup = (await chat.snapshots.log.all()).length;
    const calls = { sweep: 0, stage: 0 };
    const { sweep, stage } = ShadowRepo.prototype;
    ShadowRepo.prototype.sweep = function (...args: Parameters<typeof sweep>) {
      calls.sweep++;
      return sweep.apply(this, args);
    };
    ShadowRepo.prototype.stage = function (...args: Parameters<typeof stage>) {
      calls.stage++;
      return stage.apply(this, args);
    };
    t.after(() => {
      ShadowRepo.prototype.sweep = sweep;
      ShadowRepo.prototype.stage = stage;
    });
    const m1 = chat.next();
    await chat.command('echo a1 > a.txt');
    chat.next();
    await chat.command('echo a2 > a.txt; rm sub/b.txt');
    await writeFile(join(ws, 'keep.txt'), 'user keep\n');
    chat.next();
    await chat.command("echo k1 > keep.txt; printf 'a1\\n' > a.txt; printf 'c0\\n' > sub/c.txt");
    chat.next();
    await chat.command('echo b2 > sub/b.txt');
    await chat.snapshots.idle();
    assert.deepEqual(calls, { sweep: 0, stage: 0 }, 'no git status and no index update for these commands');
    // In the order of the commands; within one, by path.
    const log = (await chat.snapshots.log.all()).slice(setup).sort((x, y) => String(x.leaf).localeCompare(String(y.leaf)) || x.path.localeCompare(y.path));
    assert.deepEqual(
      log.map((c) => c.path.slice(ws.length + 1)),
      ['a.txt', 'a.txt', 'sub/b.txt', 'a.txt', 'keep.txt', 'sub/b.txt'],
      'c.txt was set to what it held: no change',
    );
    const text = async (i: number): Promise<string | null> => {
      const id = log[i]?.before;
      return typeof id === 'string' ? Buffer.from((await chat.snapshots.objects.get(id)) ?? []).toString() : null;
    };
    assert.deepEqual(await Promise.all(log.map((_, i) => text(i))), ['a0\n', 'a1\n', 'b0\n', 'a2\n', 'user keep\n', null]);
    // A new file sends the next scan to git: every state kept in-process goes into the index, and later scans start from it.
    chat.next();
    await chat.command('echo n > n.txt; echo a3 > a.txt');
    await chat.snapshots.idle();
    assert.deepEqual(calls, { sweep: 1, stage: 1 });
    assert.equal((await last(chat, 'a.txt'))?.before, 'a1\n');
    chat.next();
    await chat.command('echo a4 > a.txt; echo b3 > sub/b.txt');
    await chat.snapshots.idle();
    assert.deepEqual(calls, { sweep: 1, stage: 1 }, 'tracked files only again: no git');
    assert.equal((await last(chat, 'a.txt'))?.before, 'a3\n');
    assert.equal((await last(chat, 'sub/b.txt'))?.before, 'b2\n');
    await chat.restore(m1);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a0\n');
    assert.equal(await readFile(join(ws, 'sub/b.txt'), 'utf8'), 'b0\n');
    assert.equal(await readFile(join(ws, 'keep.txt'), 'utf8'), 'user keep\n', "the user's edit is not undone");
    assert.equal(existsSync(join(ws, 'n.txt')), false);
  });
}

test("git workspace: a user's edits of tracked files before a command are kept without running git; the command's changes to them have the user's versions as pre-images and restore", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  // As an editor saves: a temp file renamed over the file (the watcher sees both names).
  await writeFile(join(ws, 'a.txt.swp'), 'user a\n');
  await rename(join(ws, 'a.txt.swp'), join(ws, 'a.txt'));
  await writeFile(join(ws, 'sub/b.txt'), 'user b\n');
  const m = chat.next();
  await chat.command('echo cmd >> a.txt');
  assert.equal(await withoutGit(chat), 1, 'only tracked files changed: no git before the command');
  assert.deepEqual(await chat.logged(), ['a.txt'], "the user's edit of b.txt is not the command's");
  assert.equal((await last(chat, 'a.txt'))?.before, 'user a\n');
  await chat.snapshots.idle();
  // The user removes a tracked file: still no git before the command; the command makes it again.
  await rm(join(ws, 'keep.txt'));
  chat.next();
  await chat.command('echo again > keep.txt; echo cmd2 >> sub/b.txt');
  assert.equal(await withoutGit(chat), 2);
  assert.equal((await last(chat, 'keep.txt'))?.before, null);
  assert.equal((await last(chat, 'sub/b.txt'))?.before, 'user b\n');
  await chat.restore(m);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'user a\n');
  assert.equal(await readFile(join(ws, 'sub/b.txt'), 'utf8'), 'user b\n');
  assert.equal(existsSync(join(ws, 'keep.txt')), false);
});

test('git workspace: a new, ignored or untracked file changed before a command sends the scan to git; an ignored file the command then changes is not logged', async (t) => {
  const { dir, ws } = await makeWorkspace(t, { ...FILES, 'out.log': 'log0\n' }, true);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  await writeFile(join(ws, 'out.log'), 'user log\n');
  await writeFile(join(ws, 'new.txt'), 'user new\n');
  chat.next();
  await chat.command('echo cmd >> out.log; echo cmd >> new.txt');
  assert.equal(await withoutGit(chat), 0);
  assert.deepEqual((await scans(chat)).before, { full: 1, paths: 1, none: 0 });
  assert.deepEqual(await chat.logged(), ['new.txt']);
  assert.equal((await last(chat, 'new.txt'))?.before, 'user new\n');
});

test('git workspace: a tracked folder the user removed before a command sends the scan to git; the command making a file there again is a creation', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  await rm(join(ws, 'sub'), { recursive: true });
  chat.next();
  await chat.command('mkdir sub && echo new > sub/b.txt');
  assert.equal(await withoutGit(chat), 0);
  assert.deepEqual(await chat.logged(), ['sub/b.txt']);
  assert.equal((await last(chat, 'sub/b.txt'))?.before, null);
});

test('git workspace mid-merge: a conflicted file the command changes never gets one side of the merge as its pre-image', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  git(ws, 'checkout', '-q', '-b', 'theirs');
  await writeFile(join(ws, 'a.txt'), 'theirs\n');
  git(ws, 'commit', '-qam', 'theirs');
  git(ws, 'checkout', '-q', '-');
  await writeFile(join(ws, 'a.txt'), 'ours\n');
  git(ws, 'commit', '-qam', 'ours');
  assert.throws(() => git(ws, 'merge', '-q', 'theirs'), 'the merge stops on a conflict');
  const onDisk = await readFile(join(ws, 'a.txt'), 'utf8');
  assert.match(onDisk, /^<<<<<<< /);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  chat.next();
  await chat.command('echo cmd > a.txt');
  const rec = await last(chat, 'a.txt');
  if (rec !== undefined) assert.equal(rec.before, onDisk, 'the pre-image is what was on disk');
});
