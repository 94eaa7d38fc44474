// The report after a command reads /proc only for processes created since the command began, and reads every process when the pid counter may have gone round.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { pidWindowNow } from '../../../src/node/tools/pidWindow.js';
import { CommandTracker, scanProcesses } from '../../../src/node/tools/processGroups.js';
import { executeCommand } from '../../../src/node/tools/runCommand.js';
import { DEFAULT_TOOL_LIMITS } from '../../../src/node/tools/types.js';
import { diesSoon, workspace } from './toolHelpers.js';

/** A /proc reader that notes each pid whose stat it read; `forks` replaces the kernel's count of created processes. */
function spy(forks?: number): { read: (path: string) => Promise<string>; stats: Set<number> } {
  const stats = new Set<number>();
  const read = async (path: string): Promise<string> => {
    const m = /^\/proc\/(\d+)\/stat$/.exec(path);
    if (m?.[1] !== undefined) stats.add(Number(m[1]));
    const text = await readFile(path, 'latin1');
    return path === '/proc/stat' && forks !== undefined ? text.replace(/^processes \d+$/m, `processes ${forks}`) : text;
  };
  return { read, stats };
}

const SETSID = '(setsid sleep 30 > /dev/null 2>&1 & echo $!) ; true';

test('a setsid grandchild is found while no process older than the command has its stat read', async (t) => {
  if (process.platform !== 'linux' || pidWindowNow() === undefined) return t.skip('needs /proc/stat and /proc/loadavg');
  const { ws } = await workspace(t);
  const s = spy();
  const tracker = new CommandTracker((marks) => scanProcesses(marks, s.read));
  t.after(() => tracker.stop());
  const o = await executeCommand(SETSID, ws, 10_000, DEFAULT_TOOL_LIMITS, new AbortController().signal, { tracker, secrets: [] });
  const pid = Number(o.output.trim());
  assert.deepEqual(
    o.background.map((p) => p.pid),
    [pid],
    o.output,
  );
  assert.ok(s.stats.has(pid), "the grandchild's stat was read");
  for (const older of [1, process.ppid]) assert.ok(!s.stats.has(older), `read the stat of ${older}, which is older than the command`);
  await tracker.stop();
  assert.equal(await diesSoon(pid), true);
});

test('when more processes were created than the pid counter can hold apart, every process is read, and the grandchild is still found', async (t) => {
  if (process.platform !== 'linux' || pidWindowNow() === undefined) return t.skip('needs /proc/stat and /proc/loadavg');
  const { ws } = await workspace(t);
  // As if billions of processes had been created since the command began: the counter may have wrapped past it.
  const s = spy(Number.MAX_SAFE_INTEGER);
  const tracker = new CommandTracker((marks) => scanProcesses(marks, s.read));
  t.after(() => tracker.stop());
  const o = await executeCommand(SETSID, ws, 10_000, DEFAULT_TOOL_LIMITS, new AbortController().signal, { tracker, secrets: [] });
  const pid = Number(o.output.trim());
  assert.deepEqual(
    o.background.map((p) => p.pid),
    [pid],
    o.output,
  );
  assert.ok(s.stats.has(process.ppid), 'the whole process table was read');
  await tracker.stop();
  assert.equal(await diesSoon(pid), true);
});
