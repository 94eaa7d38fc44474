// run_command: approval and trust, exit codes the ledger can read, timeout and cancel kill the whole process group, huge output capped.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exitCodeIn } from '../../../src/engine/compaction/toolActions.js';
import { alive, diesSoon, files, makeHost, workspace } from './toolHelpers.js';

/** The file's first line once the shell has written all of it (`echo $! > f` creates the file before the pid is in it). */
async function waitForFile(p: string): Promise<string> {
  for (let i = 0; i < 3_000; i++) {
    const text = existsSync(p) ? await readFile(p, 'utf8') : '';
    if (text.endsWith('\n')) return text.trim();
    await sleep(10);
  }
  return (await readFile(p, 'utf8')).trim();
}

test('runs in the workspace root after approval; output then "exit code N", which the ledger reads', async (t) => {
  const { ws } = await workspace(t);
  const { call, asked } = makeHost(ws);
  const ok = await call('run_command', { command: 'pwd; echo to-stderr >&2' });
  assert.equal(ok.isError, false);
  const lines = ok.content.split('\n');
  assert.equal(lines.at(-1), 'exit code 0');
  assert.ok(lines.includes(await realpath(ws)));
  assert.ok(lines.includes('to-stderr'));
  assert.deepEqual(asked, [
    {
      kind: 'command',
      title: 'Run `pwd; echo to-stderr >&2` in the workspace root',
      detail: 'pwd; echo to-stderr >&2',
      command: 'pwd; echo to-stderr >&2',
      cwd: 'the workspace root',
    },
  ]);
  assert.equal(exitCodeIn(ok.content), 0);

  const fail = await call('run_command', { command: 'echo broken; exit 3' });
  assert.deepEqual(fail, { isError: true, content: 'broken\nexit code 3' });
  assert.equal(exitCodeIn(fail.content), 3);
  assert.deepEqual(await call('run_command', { command: 'true' }), { isError: false, content: '(no output)\nexit code 0' });
  const killed = await call('run_command', { command: 'kill -9 $$' });
  assert.deepEqual(killed, { isError: true, content: '(no output)\nkilled by signal SIGKILL' });
});

test('cwd must be a folder inside the workspace', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'sub/f.txt': '' });
  const { call } = makeHost(ws);
  const r = await call('run_command', { command: 'ls', cwd: 'sub' });
  assert.equal(r.content, 'f.txt\nexit code 0');
  const file = await call('run_command', { command: 'ls', cwd: 'sub/f.txt' });
  assert.equal(file.isError, true);
  assert.match(file.content, /cwd "sub\/f.txt" is not an existing folder/);
});

test('without approval the command does not run', async (t) => {
  const { ws } = await workspace(t);
  const { call, asked } = makeHost(ws, { approve: false });
  const r = await call('run_command', { command: 'touch ran.txt' });
  assert.equal(r.isError, true);
  assert.match(r.content, /^The user declined to run this command; it was not run\./);
  assert.equal(asked.length, 1);
  assert.equal(existsSync(join(ws, 'ran.txt')), false);
});

test('in an untrusted workspace commands are refused without asking', async (t) => {
  const { ws } = await workspace(t);
  const { call, asked } = makeHost(ws, { trusted: false });
  const r = await call('run_command', { command: 'touch ran.txt' });
  assert.equal(r.isError, true);
  assert.match(r.content, /run_command is disabled because this workspace is not trusted/);
  assert.equal(asked.length, 0);
  assert.equal(existsSync(join(ws, 'ran.txt')), false);
});

test('a timeout kills the command and everything it started', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws);
  const r = await call('run_command', { command: 'sleep 30 & echo $! > child.pid; wait', timeoutMs: 1_500 });
  assert.equal(r.isError, true);
  assert.match(r.content, /^(\(no output\)\n)?killed after timeout \(1500 ms\)$/);
  assert.equal(exitCodeIn(r.content), null, 'a timed-out command has no exit code for the ledger');
  // A slow login shell may be killed before it starts the child; when the child did start, it must be dead.
  const pidFile = join(ws, 'child.pid');
  if (existsSync(pidFile)) assert.equal(await diesSoon(Number(await waitForFile(pidFile))), true, 'the background child was killed too');
});

test('aborting the signal kills the running command', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws);
  const ac = new AbortController();
  const pending = call('run_command', { command: 'sleep 30 & echo $! > child.pid; wait' }, ac.signal);
  const pid = Number(await waitForFile(join(ws, 'child.pid')));
  assert.equal(await alive(pid), true);
  ac.abort();
  const r = await pending;
  assert.equal(r.isError, true);
  assert.match(r.content, /cancelled: the command was stopped before it finished$/);
  assert.equal(await diesSoon(pid), true, 'the command was killed');
  const before = await call('run_command', { command: 'touch never.txt' }, ac.signal);
  assert.equal(before.isError, true, 'an already-cancelled call does nothing');
  assert.equal(existsSync(join(ws, 'never.txt')), false);
});

test('a 50 MB output is capped to its head and tail with a marker saying how much was dropped', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws);
  const r = await call('run_command', { command: "echo BEGIN; head -c 50000000 /dev/zero | tr '\\0' 'a'; echo; echo END" });
  assert.equal(r.isError, false);
  assert.ok(r.content.length < 210 * 1024, `result is ${r.content.length} characters`);
  assert.ok(r.content.startsWith('BEGIN\naaaa'));
  assert.ok(r.content.endsWith('aaaa\nEND\nexit code 0'));
  const total = 6 + 50_000_000 + 1 + 4;
  const dropped = total - 2 * 100 * 1024;
  assert.match(
    r.content,
    new RegExp(`\\[\\.\\.\\. ${dropped} bytes of output dropped \\(${total} bytes in total\\); the first 102400 and last 102400 bytes are shown \\.\\.\\.\\]`),
  );
});

test('background processes that keep the output open do not hang the tool', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws);
  const r = await call('run_command', { command: 'echo parent; sleep 30 & echo $! > child.pid' });
  const [out, note, status, ...rest] = r.content.split('\n');
  assert.deepEqual([out, status, rest], ['parent', 'exit code 0', []], 'the output, one note, then the status line the ledger reads');
  assert.match(note ?? '', /^\[background .*stopped\]$/);
  assert.equal(await diesSoon(Number(await waitForFile(join(ws, 'child.pid')))), true, 'the background child was killed');
  const detached = await call('run_command', { command: 'sleep 30 > /dev/null 2>&1 & echo $! > bg.pid; echo done' });
  const bg = Number(await waitForFile(join(ws, 'bg.pid')));
  const [said, running, exit, ...more] = detached.content.split('\n');
  assert.deepEqual([said, exit, more], ['done', 'exit code 0', []], 'a properly redirected background job runs on until the turn ends');
  assert.match(running ?? '', new RegExp(`^\\[still running in the background: pid ${bg};.*\\]$`), 'the note names the job by its pid');
  assert.equal(await alive(bg), true);
  process.kill(bg, 'SIGKILL');
});

test('a timeout above the maximum is a clear argument error', async (t) => {
  const { ws } = await workspace(t);
  const r = await makeHost(ws).call('run_command', { command: 'true', timeoutMs: 600_001 });
  assert.equal(r.isError, true);
  assert.match(r.content, /"timeoutMs": an integer number of milliseconds from 1 to 600000/);
});

test('a command denied with feedback is not run and the model reads the feedback', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws, { approve: async () => ({ approved: false, feedback: 'Run only the unit tests: npm run test:unit' }) });
  const r = await call('run_command', { command: 'touch ran.txt' });
  assert.deepEqual(r, {
    isError: true,
    content: 'The user declined to run this command; it was not run. The user said: "Run only the unit tests: npm run test:unit"',
  });
  assert.equal(existsSync(join(ws, 'ran.txt')), false);
});
