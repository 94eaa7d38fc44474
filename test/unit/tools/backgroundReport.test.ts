// The "still running in the background" report right after a command: one /proc scan can miss a child in the middle
// of a fork or exec, so the report waits for two scans that agree, and a child still in the command's group counts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CommandTracker, findTaggedProcesses, type TaggedProcess } from '../../../src/node/tools/processGroups.js';
import { alive, diesSoon, makeHost, workspace } from './toolHelpers.js';

function pidsIn(content: string): number[] {
  const m = /\[still running in the background: pid ([\d, ]+); stopped when this turn ends\]/.exec(content);
  return m?.[1] === undefined ? [] : m[1].split(', ').map(Number);
}

test('a scan that misses the child (between fork and exec) is followed by more scans before the report', async () => {
  const me: TaggedProcess = { pid: process.pid, ownerPid: process.pid, commandId: 'c1', command: 'sleep 30' };
  const scripted: TaggedProcess[][] = [[], [me], [me]];
  let scans = 0;
  const tracker = new CommandTracker(async () => scripted[Math.min(scans++, scripted.length - 1)] ?? []);
  tracker.add(999_999, 'c1');
  assert.deepEqual((await tracker.settled('c1')).map((p) => p.pid), [process.pid], 'the child the first scan missed is reported');
  assert.equal(scans, 3, 'scanned until two scans in a row agreed');

  let flips = 0;
  const flaky = new CommandTracker(async () => (flips++ % 2 === 0 ? [] : [me]));
  flaky.add(999_998, 'c1');
  assert.deepEqual((await flaky.settled('c1')).map((p) => p.pid), [process.pid], 'scans that never agree: what any of them saw and still runs');
  assert.equal(flips, 6, 'the number of scans is bounded');
});

test('a process of the command\'s group is found even when its environment cannot be read (mid-exec, or cleared)', async (t) => {
  // env -i leaves no tag, as an exec in progress briefly does; the group is what still ties it to the command.
  const child = spawn('env', ['-i', 'sleep', '30'], { detached: true, stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  const pid = child.pid ?? 0;
  const execed = async (): Promise<boolean> => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).startsWith('sleep\0');
  for (let i = 0; i < 500 && !(await execed()); i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual((await findTaggedProcesses()).filter((p) => p.pid === pid), [], 'no tag: not found by tag');
  const byGroup = (await findTaggedProcesses(new Map([[pid, 'g1']]))).filter((p) => p.pid === pid);
  assert.deepEqual(byGroup.map((p) => [p.pid, p.ownerPid, p.commandId]), [[pid, process.pid, 'g1']]);
});

test('a background child that detaches its output and then execs (setsid, bash, sleep) is named in the report', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws);
  // The output closes (which ends the tool's wait) right before a chain of execs, the moment a single scan misses.
  for (const command of [
    "(exec > /dev/null 2>&1; exec setsid bash -c 'exec sleep 30') & echo $!",
    "(exec > /dev/null 2>&1; sleep 0.2; exec sleep 30) & echo $!",
  ]) {
    const r = await h.call('run_command', { command });
    const pid = Number(/^(\d+)$/m.exec(r.content)?.[1]);
    assert.ok(pidsIn(r.content).includes(pid), `${command}: ${r.content}`);
    assert.equal(await alive(pid), true);
    await h.host.endTurn();
    assert.equal(await diesSoon(pid), true);
  }
});
