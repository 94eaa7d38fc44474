// The shadow git checkpoint store with real git and real files: incremental pre-images, restore, .gitignore, own files, the user's repository untouched, alternates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Chat, git, looseCount, makeWorkspace, userGitState } from './checkpointHelpers.js';

const FILES = { 'a.txt': 'a0\n', 'sub/b.txt': 'b0\n', 'sub/c.txt': 'c0\n', 'keep.txt': 'keep\n', '.gitignore': 'ignored/\n*.log\n' };

for (const repo of [true, false]) {
  test(`${repo ? 'git workspace' : 'plain folder (git on PATH)'}: a command's create, modify, delete and rename are logged with their pre-images, and restore brings them back`, async (t) => {
    const { dir, ws } = await makeWorkspace(t, FILES, repo);
    const chat = new Chat(ws, join(dir, 'store'));
    assert.equal(await chat.snapshots.storeKind(), 'git');
    const m0 = chat.now;
    chat.next();
    await chat.command('echo a1 > a.txt; rm sub/b.txt; mv sub/c.txt sub/c2.txt; echo new > n.txt');
    const log = await chat.snapshots.log.all();
    const by = (rel: string) => log.find((c) => c.path === join(ws, rel));
    assert.deepEqual((await chat.logged()).sort(), ['a.txt', 'n.txt', 'sub/b.txt', 'sub/c.txt', 'sub/c2.txt']);
    assert.equal(by('n.txt')?.before, null);
    assert.equal(by('sub/b.txt')?.after, null);
    assert.equal(by('sub/c.txt')?.before, by('sub/c2.txt')?.after, 'a move keeps its content id');
    for (const [rel, text] of [
      ['a.txt', 'a0\n'],
      ['sub/b.txt', 'b0\n'],
      ['sub/c.txt', 'c0\n'],
    ] as const) {
      const id = by(rel)?.before;
      assert.ok(typeof id === 'string' && /^[0-9a-f]{40}$/.test(id), `${rel}: ${String(id)}`);
      assert.equal(Buffer.from((await chat.snapshots.objects.get(id)) ?? []).toString(), text, `${rel}'s pre-image`);
    }
    // A second command sees only its own change: the first command's results are the new "before".
    const m2 = chat.next();
    await chat.command('echo a2 > a.txt');
    const last = (await chat.snapshots.log.all()).at(-1);
    assert.equal(last?.path, join(ws, 'a.txt'));
    assert.equal(Buffer.from((await chat.snapshots.objects.get(String(last?.before))) ?? []).toString(), 'a1\n');
    await chat.restore(m2);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a1\n');
    const r = await chat.restore(m0);
    assert.deepEqual(r.skipped, []);
    assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'a0\n');
    assert.equal(await readFile(join(ws, 'sub/b.txt'), 'utf8'), 'b0\n');
    assert.equal(await readFile(join(ws, 'sub/c.txt'), 'utf8'), 'c0\n');
    assert.equal(existsSync(join(ws, 'sub/c2.txt')), false);
    assert.equal(existsSync(join(ws, 'n.txt')), false);
  });
}

test("edits made between commands are not the next command's: its pre-image is the edited content", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const chat = new Chat(ws, join(dir, 'store'));
  await chat.command('true');
  await writeFile(join(ws, 'a.txt'), 'user edit\n');
  await writeFile(join(ws, 'sub/b.txt'), 'user edit b\n');
  chat.next();
  await chat.command('echo by-command > a.txt');
  const log = await chat.snapshots.log.all();
  assert.deepEqual(
    log.map((c) => c.path),
    [join(ws, 'a.txt')],
    "the user's edit of b.txt is not logged as the command's",
  );
  assert.equal(Buffer.from((await chat.snapshots.objects.get(String(log[0]?.before))) ?? []).toString(), 'user edit\n');
});

test(".gitignore is honoured, and Capsule's own files (session, sidecars, .capsule/, the store) are never kept", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  // The CLI's default: the session and its snapshot folder inside the workspace.
  const chat = new Chat(ws, join(ws, 'chat.files'), { ownFiles: () => [join(ws, 'chat.jsonl'), join(ws, 'chat.jsonl.lock')] });
  void dir;
  chat.next();
  await chat.command(
    'mkdir -p ignored .capsule && echo x > ignored/x.txt && echo y > build.log && echo s >> chat.jsonl && echo l > chat.jsonl.lock && echo c > .capsule/other.jsonl && echo k > keep.txt',
  );
  assert.deepEqual(await chat.logged(), ['keep.txt']);
  await chat.command('echo s2 >> chat.jsonl; echo z > ignored/x.txt');
  assert.deepEqual(await chat.logged(), ['keep.txt']);
});

test("the user's repository is never changed: HEAD, refs, stash, index, config and status stay as they were", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  await writeFile(join(ws, 'a.txt'), 'dirty\n');
  git(ws, 'stash', '-q');
  await writeFile(join(ws, 'staged.txt'), 'staged\n');
  git(ws, 'add', 'staged.txt');
  await writeFile(join(ws, 'keep.txt'), 'unstaged edit\n');
  const before = await userGitState(ws);
  const chat = new Chat(ws, join(dir, 'store'));
  chat.next();
  await chat.command('echo c > a.txt; echo n > new.txt; rm sub/b.txt');
  const m = chat.now;
  chat.next();
  await chat.command('echo d > a.txt');
  await chat.restore(m);
  await chat.command('rm new.txt; echo b0 > sub/b.txt');
  await chat.command('echo c > a.txt');
  await chat.restore(m);
  const after = await userGitState(ws);
  assert.deepEqual({ ...after, status: '' }, { ...before, status: '' });
  assert.equal(after.status, before.status);
});

test("in a clean git workspace the first checkpoint copies nothing: tracked files are served by the user's objects; a changed one's pre-image is then copied in", async (t) => {
  const files: Record<string, string> = { ...FILES };
  for (let i = 0; i < 200; i++) files[`many/f${i}.txt`] = `file ${i}\n`.repeat(50);
  const { dir, ws } = await makeWorkspace(t, files, true);
  const store = join(dir, 'store');
  const chat = new Chat(ws, store);
  await chat.command('true');
  const objects = join(store, 'git', 'objects');
  assert.equal(await looseCount(objects), 0, 'no tracked file was copied');
  assert.match(await readFile(join(objects, 'info', 'alternates'), 'utf8'), /\.git\/objects/);
  const m0 = chat.now;
  chat.next();
  await chat.command('echo changed > many/f7.txt');
  const c = (await chat.snapshots.log.all())[0];
  assert.equal(c?.path, join(ws, 'many/f7.txt'));
  // The copy is made after the command's result is out; the next checkpoint waits for it.
  await chat.command('true');
  assert.ok(
    existsSync(join(objects, String(c?.before).slice(0, 2), String(c?.before).slice(2))),
    "the pre-image is now the store's own, whatever the user does to their history",
  );
  await chat.restore(m0);
  assert.equal(await readFile(join(ws, 'many/f7.txt'), 'utf8'), 'file 7\n'.repeat(50));
});

test('a file over the size limit is named once for the whole chat, with what it means for rewind; its changes are still listed', async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const store = join(dir, 'store');
  const chat = new Chat(ws, store, { limits: { maxFileBytes: 100 } });
  chat.next();
  await chat.command(`head -c 500 /dev/zero > big1.bin; head -c 600 /dev/zero > big2.bin`);
  await chat.command('head -c 700 /dev/zero > big1.bin');
  const notices = chat.logs.filter((l) => l.fields?.userNotice === true);
  assert.equal(notices.length, 1, JSON.stringify(chat.logs));
  assert.match(notices[0]?.message ?? '', /could not keep a copy of ".*big1\.bin" \(it is 500 bytes, over the 100 bytes limit for one file\)/);
  assert.match(notices[0]?.message ?? '', /Rewinding cannot bring back/);
  const log = await chat.snapshots.log.all();
  assert.deepEqual(
    log.map((c) => [c.path.slice(ws.length + 1), c.before, c.after]),
    [
      ['big1.bin', null, 'unavailable'],
      ['big2.bin', null, 'unavailable'],
      ['big1.bin', 'unavailable', 'unavailable'],
    ],
  );
  const again = new Chat(ws, store, { limits: { maxFileBytes: 100 } });
  await again.command('head -c 900 /dev/zero > big3.bin');
  assert.equal(again.logs.filter((l) => l.fields?.userNotice === true).length, 0, 'said once per chat, not once per process');
});

test("a lock left in the shadow repository by a killed run does not stop the next run's checkpoints", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const store = join(dir, 'store');
  await new Chat(ws, store).command('true');
  const index = (await readdir(join(store, 'git'))).find((n) => n.startsWith('index-'));
  assert.ok(index !== undefined);
  await writeFile(join(store, 'git', `${index}.lock`), '');
  const later = new Chat(ws, store);
  later.next();
  await later.command('echo a1 > a.txt');
  assert.deepEqual(await later.logged(), ['a.txt']);
  assert.deepEqual(
    later.logs.filter((l) => l.level === 'warn'),
    [],
  );
});

test("when the commit the shadow repository started from is gone from the user's history, checkpoints go on", async (t) => {
  const { dir, ws } = await makeWorkspace(t, FILES, true);
  const store = join(dir, 'store');
  const chat = new Chat(ws, store);
  await chat.command('true');
  // The user rewrites their only commit and prunes the old one.
  await writeFile(join(ws, 'keep.txt'), 'amended\n');
  git(ws, 'commit', '-qam', 'amended', '--amend');
  git(ws, 'reflog', 'expire', '--expire=now', '--all');
  git(ws, 'gc', '-q', '--prune=now');
  chat.next();
  await chat.command('echo a1 > a.txt');
  assert.deepEqual(await chat.logged(), ['a.txt']);
  assert.deepEqual(
    chat.logs.filter((l) => l.level === 'warn'),
    [],
  );
});
