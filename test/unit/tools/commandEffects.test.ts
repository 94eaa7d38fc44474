// run_command effects measured on disk: real commands in a temporary git repository and in a plain folder.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import type { Effects } from '../../../src/engine/transcript/effects.js';
import { files, makeHost, workspace } from './toolHelpers.js';

function gitInit(dir: string): void {
  const run = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  run('init', '-q');
  run('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
  run('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'init');
}

async function effectsOf(ws: string, command: string, extra: Record<string, unknown> = {}): Promise<Effects> {
  const { run } = makeHost(ws);
  const r = await run('run_command', { command, ...extra });
  assert.ok(r.effects, `no effects recorded for ${command}`);
  assert.equal(r.effects.source, 'measured');
  return r.effects;
}

const FILES = { 'src/a.py': 'x = 1\n', 'src/b.py': 'y = 2\n', 'README.md': 'hi\n', 'dirty.txt': 'one\n' };

for (const mode of ['git', 'plain'] as const) {
  test(`${mode}: sed -i, heredoc writes, mv, rm and appends are recorded exactly`, async (t) => {
    const { ws } = await workspace(t);
    await files(ws, FILES);
    if (mode === 'git') gitInit(ws);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${ws}/dirty.txt`, 'uncommitted\n'); // dirty before the command: only a real change may count

    const sed = await effectsOf(ws, "sed -i 's/x = 1/x = 3/' src/a.py");
    assert.deepEqual([sed.created, sed.modified, sed.deleted, sed.renamed], [[], ['src/a.py'], [], []]);
    assert.equal(sed.exitCode, 0);
    assert.equal(sed.failed, false);
    assert.equal(sed.unknown, undefined);

    const heredoc = await effectsOf(ws, "cat > src/new.py <<'EOF'\nprint('hi')\nEOF\necho more >> dirty.txt");
    assert.deepEqual(heredoc.created, ['src/new.py']);
    assert.deepEqual(heredoc.modified, ['dirty.txt']);

    const mv = await effectsOf(ws, 'mv src/b.py src/c.py');
    assert.deepEqual(mv.renamed, [{ from: 'src/b.py', to: 'src/c.py' }]);
    assert.deepEqual([mv.created, mv.deleted], [[], []]);

    const rm = await effectsOf(ws, 'rm README.md');
    assert.deepEqual(rm.deleted, ['README.md']);

    const none = await effectsOf(ws, 'cat src/a.py; grep -r "> foo" . || true');
    assert.deepEqual([none.created, none.modified, none.deleted, none.renamed], [[], [], [], []]);
  });
}

test('git: npm init -y creates package.json; a failing command records its exit code and what it still changed', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, FILES);
  gitInit(ws);
  const init = await effectsOf(ws, 'npm init -y >/dev/null');
  assert.deepEqual(init.created, ['package.json']);
  const fail = await effectsOf(ws, 'echo partial > out.log; exit 3');
  assert.equal(fail.exitCode, 3);
  assert.equal(fail.failed, true);
  assert.deepEqual(fail.created, ['out.log']);
});

test('git: a commit changes no file, a checkout of another branch changes the ones that differ', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, FILES);
  gitInit(ws);
  const id = '-c user.email=t@example.com -c user.name=t';
  const commit = await effectsOf(ws, `echo z >> src/a.py && git ${id} commit -qam change`);
  assert.deepEqual(commit.modified, ['src/a.py'], 'the append is a change; the commit itself is not');
  const pureCommit = await effectsOf(ws, `echo w >> src/b.py && git add -A && true`);
  assert.deepEqual(pureCommit.modified, ['src/b.py']);
  const onlyCommit = await effectsOf(ws, `git ${id} commit -qm again`);
  assert.deepEqual([onlyCommit.created, onlyCommit.modified, onlyCommit.deleted], [[], [], []]);
  const checkout = await effectsOf(ws, 'git checkout -q HEAD~2');
  assert.deepEqual(checkout.modified, ['src/a.py', 'src/b.py']);
});

test('a command that times out records the timeout and what it wrote before it was killed', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, FILES);
  const e = await effectsOf(ws, 'echo started > started.txt; sleep 30', { timeoutMs: 300 });
  assert.equal(e.timedOut, true);
  assert.equal(e.failed, true);
  assert.equal(e.exitCode, null);
  assert.deepEqual(e.created, ['started.txt']);
});

test('a command that deletes the workspace records "unknown" with the reason and the turn goes on', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, FILES);
  const e = await effectsOf(ws, `rm -rf "${ws}"`);
  assert.equal(e.exitCode, 0);
  assert.match(e.unknown ?? '', /no longer exists/);
});

test('a plain folder larger than the scan bound says so instead of guessing', async (t) => {
  const { ws } = await workspace(t);
  const { MAX_SCAN_ENTRIES } = await import('../../../src/node/effects/probe.js');
  execFileSync('bash', ['-c', `mkdir many && cd many && seq 1 ${MAX_SCAN_ENTRIES + 1} | xargs touch`], { cwd: ws });
  const e = await effectsOf(ws, 'echo x > new.txt');
  assert.match(e.unknown ?? '', /workspace too large/);
  assert.deepEqual(e.created, []);
});

test('a declined command records denied, and write/read tools record their file', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, FILES);
  const denied = await makeHost(ws, { approve: false }).run('run_command', { command: 'touch x' });
  assert.equal(denied.effects?.denied, true);
  const { run } = makeHost(ws);
  assert.deepEqual((await run('write_file', { path: 'n.txt', content: 'a\n' })).effects?.created, ['n.txt']);
  assert.deepEqual((await run('edit_file', { path: 'n.txt', oldText: 'a', newText: 'b' })).effects?.modified, ['n.txt']);
  assert.deepEqual((await run('read_file', { path: 'n.txt' })).effects?.read, ['n.txt']);
});
