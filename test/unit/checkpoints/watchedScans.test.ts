// The scan before a command looks only at what the folder watcher saw change: edits between commands (the user's, the agent's, folders made, moved, removed) are still never the command's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TreeWatcher } from '../../../src/node/checkpoints/treeWatcher.js';
import { Chat, looseCount, makeWorkspace } from './checkpointHelpers.js';

const FILES = {
  'a.txt': 'a0\n',
  'sub/b.txt': 'b0\n',
  'sub/c.txt': 'c0\n',
  'keep.txt': 'keep\n',
  'build/tracked.txt': 't0\n',
  '.gitignore': 'ignored/\n*.log\n',
};

async function scans(chat: Chat): Promise<{ full: number; paths: number; none: number }> {
  const s = await chat.snapshots.checkpointScans();
  assert.ok(s !== undefined, 'the shadow git store is used');
  return s.before;
}

/** The pre-image the newest record of `rel` names, as text. */
async function before(chat: Chat, rel: string): Promise<string | null> {
  const c = (await chat.snapshots.log.all()).filter((x) => x.path === join(chat.ws, rel)).at(-1);
  return typeof c?.before === 'string' ? Buffer.from((await chat.snapshots.objects.get(c.before)) ?? []).toString() : null;
}

function open(t: { after(fn: () => Promise<void>): void }, ws: string, store: string, extra: ConstructorParameters<typeof Chat>[2] = {}): Chat {
  const chat = new Chat(ws, store, extra);
  t.after(async () => chat.snapshots.close());
  return chat;
}

for (const repo of [true, false]) {
  const kind = repo ? 'git workspace' : 'plain folder';

  test(`${kind}: with nothing changed between commands no scan runs before the command, and every change the command made is still logged`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    chat.next();
    await chat.command('echo a1 > a.txt; rm sub/b.txt; echo n > n.txt');
    chat.next();
    await chat.command('echo a2 > a.txt');
    assert.deepEqual(await scans(chat), { full: 1, paths: 0, none: 2 });
    const l = await chat.logged();
    assert.deepEqual([...l.slice(0, 3).sort(), ...l.slice(3)], ['a.txt', 'n.txt', 'sub/b.txt', 'a.txt']);
    assert.equal(await before(chat, 'a.txt'), 'a1\n');
  });

  test(`${kind}: a user's edits just before a command are not the command's; its pre-image is the user's version, and a rewind keeps the user's other edit`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    await writeFile(join(ws, 'a.txt'), 'user edit\n');
    await writeFile(join(ws, 'sub/b.txt'), 'user edit b\n');
    await rm(join(ws, 'sub/c.txt'));
    await writeFile(join(ws, 'user-new.txt'), 'new\n');
    const m = chat.now;
    chat.next();
    await chat.command('echo by-command > a.txt');
    assert.deepEqual(await scans(chat), { full: 1, paths: 1, none: 0 }, 'the scan before the command looked only at the watched paths');
    assert.deepEqual(await chat.logged(), ['a.txt'], "the user's edits, deletion and new file are not logged as the command's");
    assert.equal(await before(chat, 'a.txt'), 'user edit\n');
    await chat.restore(m);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'user edit\n');
    assert.equal(await readFile(join(ws, 'sub/b.txt'), 'utf8'), 'user edit b\n');
    assert.equal(existsSync(join(ws, 'user-new.txt')), true);
    assert.equal(existsSync(join(ws, 'sub/c.txt')), false);
  });

  test(`${kind}: folders made, moved and removed between commands are followed: what is written in them later is not a command's either`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    await mkdir(join(ws, 'new/deep'), { recursive: true });
    await writeFile(join(ws, 'new/deep/x.txt'), 'x0\n');
    await rename(join(ws, 'sub'), join(ws, 'moved'));
    chat.next();
    await chat.command('echo k1 > keep.txt');
    // Both folders' watches must be right now: the new one watched, the moved one watched where it is.
    await writeFile(join(ws, 'new/deep/x.txt'), 'x1 by the user\n');
    await writeFile(join(ws, 'moved/c.txt'), 'c1 by the user\n');
    await writeFile(join(ws, 'moved/late.txt'), 'late\n');
    chat.next();
    await chat.command('echo k2 > keep.txt');
    await rm(join(ws, 'new'), { recursive: true });
    await mkdir(join(ws, 'new'));
    await writeFile(join(ws, 'new/again.txt'), 'again\n');
    chat.next();
    await chat.command('echo x2 >> moved/c.txt; echo x3 > new/again.txt');
    assert.deepEqual(await scans(chat), { full: 1, paths: 3, none: 0 });
    const l = await chat.logged();
    assert.deepEqual([...l.slice(0, 2), ...l.slice(2).sort()], ['keep.txt', 'keep.txt', 'moved/c.txt', 'new/again.txt']);
    assert.equal(await before(chat, 'moved/c.txt'), 'c1 by the user\n');
    assert.equal(await before(chat, 'new/again.txt'), 'again\n');
  });

  test(`${kind}: an agent write between two commands is its own record, not the next command's`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    chat.next();
    await chat.snapshots.aroundWrite(join(ws, 'a.txt'), () => writeFile(join(ws, 'a.txt'), 'agent\n'));
    chat.next();
    await chat.command('cat a.txt > copy.txt; echo cmd >> a.txt');
    const log = await chat.snapshots.log.all();
    assert.deepEqual(
      log.map((c) => [c.path.slice(ws.length + 1), c.why]),
      [
        ['a.txt', 'write'],
        ['a.txt', 'command'],
        ['copy.txt', 'command'],
      ],
    );
    assert.equal(await before(chat, 'a.txt'), 'agent\n');
  });

  test(`${kind}: more changes than the watcher vouches for make the scan whole (and the next one, when the busy window just ended); attribution is the same`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = open(t, ws, join(dir, 'store'));
    await chat.command('true');
    await mkdir(join(ws, 'gen'));
    for (let i = 0; i < 1100; i++) await writeFile(join(ws, 'gen', `g${i}.txt`), `${i}\n`);
    await writeFile(join(ws, 'a.txt'), 'user\n');
    chat.next();
    await chat.command('echo cmd > a.txt');
    assert.deepEqual(await scans(chat), { full: 2, paths: 0, none: 0 }, "the user's busy window is scanned whole");
    chat.next();
    await chat.command('mkdir gen2 && for i in $(seq 1100); do echo $i > gen2/g$i.txt; done');
    chat.next();
    // The command's own window was busy: events right after it could have been lost, so this scan is whole too.
    await chat.command('echo cmd2 > a.txt');
    assert.deepEqual(await scans(chat), { full: 3, paths: 0, none: 1 });
    const l = await chat.logged();
    assert.deepEqual(
      l.filter((p) => !p.startsWith('gen2/')),
      ['a.txt', 'a.txt'],
    );
    assert.equal(l.filter((p) => p.startsWith('gen2/')).length, 1100);
    const first = (await chat.snapshots.log.all())[0]?.before;
    assert.equal(Buffer.from((await chat.snapshots.objects.get(String(first))) ?? []).toString(), 'user\n');
  });

  test(`${kind}: Capsule's own files changing between commands (the session beside the files) cause no scan`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const own = join(ws, 'chat.jsonl');
    const chat = open(t, ws, join(ws, 'chat.files'), { ownFiles: () => [own] });
    void dir;
    await chat.command('true');
    await appendFile(own, '{"entry":1}\n');
    chat.next();
    await chat.command('echo a1 > a.txt');
    assert.deepEqual(await scans(chat), { full: 1, paths: 0, none: 1 });
    assert.deepEqual(await chat.logged(), ['a.txt']);
  });
}

test("git workspace: a file the repository tracks inside a dependency folder (build/) is watched; the user's edit there is not the command's", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  await writeFile(join(ws, 'build/tracked.txt'), 'user t1\n');
  chat.next();
  await chat.command('echo cmd >> build/tracked.txt');
  assert.deepEqual(await scans(chat), { full: 1, paths: 1, none: 0 });
  assert.deepEqual(await chat.logged(), ['build/tracked.txt']);
  assert.equal(await before(chat, 'build/tracked.txt'), 'user t1\n');
});

test('a closed chat stops watching; its next command scans the whole folder again and still attributes right', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const chat = open(t, ws, join(dir, 'store'));
  await chat.command('true');
  chat.snapshots.close();
  await writeFile(join(ws, 'a.txt'), 'user\n');
  chat.next();
  await chat.command('echo cmd > a.txt');
  assert.deepEqual(await scans(chat), { full: 2, paths: 0, none: 0 });
  assert.equal(await before(chat, 'a.txt'), 'user\n');
});

test('plain folder: the first checkpoint of many files writes them as one pack, not one file each, and they restore', async (t) => {
  const files: Record<string, string> = { ...FILES };
  for (let i = 0; i < 1200; i++) files[`many/f${i}.txt`] = `file ${i}\n`;
  const { dir, ws } = await makeWorkspace(t, files, false);
  const store = join(dir, 'store');
  const chat = open(t, ws, store);
  const m0 = chat.now;
  chat.next();
  await chat.command('echo changed > many/f7.txt');
  const objects = join(store, 'git', 'objects');
  assert.ok((await looseCount(objects)) < 50, `loose objects: ${await looseCount(objects)}`);
  assert.ok((await readdir(join(objects, 'pack'))).some((n) => n.endsWith('.pack')));
  await chat.restore(m0);
  assert.equal(await readFile(join(ws, 'many/f7.txt'), 'utf8'), 'file 7\n');
});

test('the watcher answers for every change made before take() was called, even one whose event was not read yet', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, false);
  const w = new TreeWatcher({
    root: ws,
    syncDir: join(dir, 'sync'),
    skip: (_abs, name) => name === '.git',
    maxDirs: 100,
    maxEvents: 100,
    syncTimeoutMs: 60_000,
  });
  t.after(async () => w.close());
  await w.restart();
  assert.equal((await w.take()).kind, 'unknown', 'a new watcher vouches for nothing before its first window');
  assert.deepEqual(await w.take(), { kind: 'paths', paths: [] });
  // Written by another process while this one's event loop is blocked: no event can have been read yet.
  execFileSync('sh', ['-c', 'echo edit > sub/b.txt && mkdir -p n/m && echo x > n/m/x.txt'], { cwd: ws });
  const since = await w.take();
  assert.equal(since.kind, 'paths');
  assert.deepEqual(since.kind === 'paths' ? [...since.paths].sort() : [], [join(ws, 'n'), join(ws, 'sub/b.txt')]);
  execFileSync('sh', ['-c', 'echo y > n/m/y.txt'], { cwd: ws });
  const next = await w.take();
  assert.deepEqual(next.kind === 'paths' ? next.paths : next, [join(ws, 'n/m/y.txt')], 'the new folders are watched from the event that announced them');
});

test('a folder with more subfolders than the watcher may hold is not watched at all: every take says unknown, and it does not walk again', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, false);
  const w = new TreeWatcher({ root: ws, syncDir: join(dir, 'sync'), skip: () => false, maxDirs: 2, maxEvents: 100, syncTimeoutMs: 60_000 });
  t.after(async () => w.close());
  await w.restart();
  assert.equal(w.needsRestart, false);
  for (let i = 0; i < 2; i++) {
    const s = await w.take();
    assert.deepEqual(s, { kind: 'unknown', why: 'more than 2 folders' });
  }
});
