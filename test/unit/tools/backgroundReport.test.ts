// The background report after a command: group and tagged processes found without reading older processes' environments; one settle at most.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CommandTracker, scanProcesses, type ScanResult, type TaggedProcess } from '../../../src/node/tools/processGroups.js';
import { executeCommand } from '../../../src/node/tools/runCommand.js';
import { DEFAULT_TOOL_LIMITS } from '../../../src/node/tools/types.js';
import { alive, diesSoon, makeHost, workspace } from './toolHelpers.js';

function pidsIn(content: string): number[] {
  const m = /\[still running in the background: pid ([\d, ]+); stopped when this turn ends\]/.exec(content);
  return m?.[1] === undefined ? [] : m[1].split(', ').map(Number);
}

test('the report scans once when nothing is left, and settles once more only while the group has members or a process could not be told', async (t) => {
  const me: TaggedProcess = { pid: process.pid, ownerPid: process.pid, commandId: 'c1', command: 'sleep 30' };
  // A live process group standing for a command whose shell still has company.
  const member = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  t.after(() => member.kill('SIGKILL'));
  const scripted = (results: ScanResult[], pgid = 999_999): { tracker: CommandTracker; scans: () => number } => {
    let n = 0;
    const tracker = new CommandTracker(async () => results[Math.min(n++, results.length - 1)] ?? { found: [], uncertain: 0 });
    tracker.add(pgid, 'c1');
    return { tracker, scans: () => n };
  };
  const none = scripted([{ found: [], uncertain: 0 }]);
  assert.deepEqual(await none.tracker.settled('c1'), []);
  assert.equal(none.scans(), 1, 'nothing left: no settle, no second scan');

  const midExec = scripted([
    { found: [], uncertain: 1 },
    { found: [me], uncertain: 0 },
  ]);
  assert.deepEqual(
    (await midExec.tracker.settled('c1')).map((p) => p.pid),
    [process.pid],
    'a child the first scan could not tell (mid-exec) is reported',
  );
  assert.equal(midExec.scans(), 2);

  const detached = scripted([
    { found: [me], uncertain: 0 },
    { found: [], uncertain: 0 },
  ]);
  assert.deepEqual(
    (await detached.tracker.settled('c1')).map((p) => p.pid),
    [process.pid],
    'a tagged process outside the group is reported',
  );
  assert.equal(detached.scans(), 1, 'the group is empty: no settle');

  const grouped = scripted(
    [
      { found: [me], uncertain: 0 },
      { found: [], uncertain: 0 },
    ],
    member.pid ?? 0,
  );
  assert.deepEqual(
    (await grouped.tracker.settled('c1')).map((p) => p.pid),
    [process.pid],
    'what either scan saw and still runs',
  );
  assert.equal(grouped.scans(), 2, 'one settle at most, while the group has members');
});

test('a process the first scan saw that has died since is not reported as running, even before its parent collects it (a zombie)', async (t) => {
  // `sleep 0` ends at once; its parent, now `sleep 30`, never collects it: it stays a zombie while the parent lives.
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => parent.kill('SIGKILL'));
  const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (b: Buffer) => r(b.toString().trim()))));
  const zombie = (): boolean => {
    const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'latin1') : '';
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  };
  for (let i = 0; i < 1000 && !zombie(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(zombie(), true, 'the child is a zombie');
  const dead: TaggedProcess = { pid, ownerPid: process.pid, commandId: 'z1', command: 'sleep 0' };
  const tracker = new CommandTracker(async () => ({ found: [dead], uncertain: 0 }));
  tracker.add(999_999, 'z1');
  assert.deepEqual(await tracker.settled('z1'), []);
});

function startOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

test("a process of the command's group is found by its group even when its environment has no tag (mid-exec, or cleared)", async (t) => {
  // env -i leaves no tag, as an exec in progress briefly does; the group is what still ties it to the command.
  const child = spawn('env', ['-i', 'sleep', '30'], { detached: true, stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  const pid = child.pid ?? 0;
  const execed = async (): Promise<boolean> => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).startsWith('sleep\0');
  for (let i = 0; i < 500 && !(await execed()); i++) await new Promise((r) => setTimeout(r, 10));
  const mark = { commandId: 'g1', tag: `${process.pid}:g1`, ownerPid: process.pid, start: startOf(pid) };
  assert.deepEqual(
    (await scanProcesses([mark])).found.filter((p) => p.pid === pid),
    [],
    'no tag and no group: not found',
  );
  const byGroup = (await scanProcesses([{ ...mark, pgid: pid }])).found.filter((p) => p.pid === pid);
  assert.deepEqual(
    byGroup.map((p) => [p.pid, p.ownerPid, p.commandId]),
    [[pid, process.pid, 'g1']],
  );
});

test('a backgrounded setsid grandchild is found by its tag, and no environment of a process older than the command is read', async (t) => {
  const { ws } = await workspace(t);
  const reads: string[] = [];
  const spy = (path: string): Promise<string> => {
    reads.push(path);
    return readFile(path, 'latin1');
  };
  const tracker = new CommandTracker((marks) => scanProcesses(marks, spy));
  t.after(() => tracker.stop());
  // Anything that started before this marker is older than the command.
  const marker = spawn('sleep', ['5'], { stdio: 'ignore' });
  const floor = startOf(marker.pid ?? 0);
  marker.kill('SIGKILL');
  // The grandchild leaves the group (setsid) and its parent exits: only the tag ties it to the command.
  const o = await executeCommand('(setsid sleep 30 > /dev/null 2>&1 & echo $!) ; true', ws, 10_000, DEFAULT_TOOL_LIMITS, new AbortController().signal, {
    tracker,
    secrets: [],
  });
  const pid = Number(o.output.trim());
  assert.deepEqual(
    o.background.map((p) => p.pid),
    [pid],
    o.output,
  );
  assert.equal(await alive(pid), true);
  const environs = reads.filter((r) => r.endsWith('/environ')).map((r) => Number(r.split('/')[2]));
  assert.ok(environs.includes(pid), "the grandchild's tag was read");
  for (const other of [1, process.pid, process.ppid]) assert.ok(!environs.includes(other), `read the environment of ${other}, which is older than the command`);
  assert.ok(
    environs.every((p) => !existsSync(`/proc/${p}/stat`) || startOf(p) >= floor),
    'only processes that started with or after the command',
  );
  await tracker.stop();
  assert.equal(await diesSoon(pid), true);
});

test('a background child that detaches its output and then execs (setsid, bash, sleep) is named in the report', async (t) => {
  const { ws } = await workspace(t);
  const h = makeHost(ws);
  // The output closes (which ends the tool's wait) right before a chain of execs, the moment a single scan misses.
  for (const command of [
    "(exec > /dev/null 2>&1; exec setsid bash -c 'exec sleep 30') & echo $!",
    '(exec > /dev/null 2>&1; sleep 0.2; exec sleep 30) & echo $!',
  ]) {
    const r = await h.call('run_command', { command });
    const pid = Number(/^(\d+)$/m.exec(r.content)?.[1]);
    assert.ok(pidsIn(r.content).includes(pid), `${command}: ${r.content}`);
    assert.equal(await alive(pid), true);
    await h.host.endTurn();
    assert.equal(await diesSoon(pid), true);
  }
});
