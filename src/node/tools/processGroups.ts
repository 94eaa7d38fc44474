// Tracks every process run_command starts (its group, plus a tag in the environment that setsid children keep) so they die with their turn.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** Environment variable that marks every process a command starts: `<owner pid>:<command id>`. */
export const COMMAND_TAG_VAR = 'CAPSULE_COMMAND_TAG';

export interface TaggedProcess {
  readonly pid: number;
  readonly ownerPid: number;
  readonly commandId: string;
  /** The command line, for reports. */
  readonly command: string;
}

/** A fresh tag for one command of this process. */
export function newCommandTag(): { readonly id: string; readonly value: string } {
  const id = randomBytes(6).toString('hex');
  return { id, value: `${process.pid}:${id}` };
}

function parseTag(environ: string): { ownerPid: number; commandId: string } | undefined {
  const key = `${COMMAND_TAG_VAR}=`;
  for (const pair of environ.split('\0')) {
    if (!pair.startsWith(key)) continue;
    const m = /^(\d+):([0-9a-f]+)$/.exec(pair.slice(key.length));
    if (m?.[1] !== undefined && m[2] !== undefined) return { ownerPid: Number(m[1]), commandId: m[2] };
  }
  return undefined;
}

/** `pgid → command id` of groups whose members count as that command's even when their tag cannot be read. */
export type GroupOwners = ReadonlyMap<number, string>;

/** The process group in a /proc/N/stat line (the field after state and ppid; the name may hold spaces and parentheses). */
function pgidOf(stat: string): number | undefined {
  const m = /\) [A-Za-z] -?\d+ (\d+) /.exec(stat.slice(stat.lastIndexOf(')')));
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Every live process carrying a command tag, read from /proc (Linux; elsewhere the list is empty and only the
 * process groups apply). A process that clears its environment is not found; one started with setsid, nohup or a
 * double fork is, which is what the group alone misses. A process in one of `groups` counts as that command's
 * even with no readable tag: in the middle of an exec /proc briefly shows an empty environment, but the group stays.
 */
export async function findTaggedProcesses(groups: GroupOwners = new Map()): Promise<TaggedProcess[]> {
  if (process.platform !== 'linux') return [];
  const names = await readdir('/proc').catch(() => [] as string[]);
  const out: TaggedProcess[] = [];
  await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
      .map(async (n) => {
        const environ = await readFile(`/proc/${n}/environ`, 'latin1').catch(() => '');
        let tag = parseTag(environ);
        if (tag === undefined && groups.size === 0) return;
        const stat = await readFile(`/proc/${n}/stat`, 'latin1').catch(() => '');
        if (stat === '' || /^\d+ \(.*\) [ZX] /s.test(stat)) return; // gone, or a zombie waiting for its parent
        if (tag === undefined) {
          const owner = groups.get(pgidOf(stat) ?? -1);
          if (owner === undefined) return;
          tag = { ownerPid: process.pid, commandId: owner };
        }
        const cmdline = await readFile(`/proc/${n}/cmdline`, 'utf8').catch(() => '');
        out.push({ pid: Number(n), ...tag, command: cmdline.split('\0').filter(Boolean).join(' ').slice(0, 200) });
      }),
  );
  return out.sort((a, b) => a.pid - b.pid);
}

/** How one scan of the running processes is made (a parameter so that tests can script a scan that misses). */
export type ProcessScan = (groups: GroupOwners) => Promise<TaggedProcess[]>;

/** Pause between the scans that must agree before a command's background is reported. */
const SETTLE_MS = 50;
/** Scans at the most before reporting what was seen. */
const MAX_SCANS = 6;

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return typeof err === 'object' && err !== null && 'code' in err && err.code === 'EPERM';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: already gone.
  }
}

interface Tracked {
  readonly pgid: number;
  readonly commandId: string;
}

const trackers = new Set<CommandTracker>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: process.kill is, /proc scans are not, so only the groups are killed here.
  process.once('exit', () => {
    for (const t of trackers) t.killGroupsNow();
  });
}

/**
 * The commands of this process whose processes may still run: each is a process group (killed as `-pgid`) plus its
 * tag (found in /proc). Commands are forgotten once stopped or found finished; on exit every tracked group is killed.
 */
export class CommandTracker {
  private readonly live = new Map<string, Tracked>();
  /** Finished commands whose tags are still looked for (see forget). */
  private readonly finished = new Set<string>();

  constructor(private readonly scan: ProcessScan = findTaggedProcesses) {}

  add(pgid: number, commandId: string): void {
    this.live.set(commandId, { pgid, commandId });
    trackers.add(this);
    installExitHook();
  }

  /**
   * The command finished and a scan found nothing of it running. Its group is not signalled again (its id may be
   * reused), but its tag is still looked for until the turn ends: a scan can miss a child that is between fork and
   * exec, when /proc briefly shows no environment.
   */
  forget(commandId: string): void {
    if (this.live.delete(commandId)) this.finished.add(commandId);
  }

  get size(): number {
    return this.live.size + this.finished.size;
  }

  /** Processes of the tracked commands (or of one) still running, found by tag (or, for live commands, by group). */
  async running(commandId?: string): Promise<TaggedProcess[]> {
    const groups = new Map([...this.live.values()].map((g) => [g.pgid, g.commandId]));
    const all = await this.scan(groups);
    return all.filter((p) => p.ownerPid === process.pid && (commandId === undefined ? this.live.has(p.commandId) || this.finished.has(p.commandId) : p.commandId === commandId));
  }

  /**
   * What one command left running, for the report right after it exits: scans until two in a row (SETTLE_MS apart)
   * name the same processes, at most MAX_SCANS times. One scan can miss a child that is just being forked or is in
   * the middle of an exec; what any scan saw and still runs is reported.
   */
  async settled(commandId: string): Promise<TaggedProcess[]> {
    const seen = new Map<number, TaggedProcess>();
    let last = await this.running(commandId);
    for (const p of last) seen.set(p.pid, p);
    for (let i = 1; i < MAX_SCANS; i++) {
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const next = await this.running(commandId);
      for (const p of next) seen.set(p.pid, p);
      const same = next.length === last.length && next.every((p, j) => p.pid === last[j]?.pid);
      last = next;
      if (same) return next;
    }
    return [...seen.values()].filter((p) => pidAlive(p.pid)).sort((a, b) => a.pid - b.pid);
  }

  /** Stops every process of the tracked commands, or of one (TERM, then KILL after `graceMs`); returns what was running. */
  async stop(commandId?: string, graceMs = 1_000): Promise<TaggedProcess[]> {
    const before = await this.running(commandId);
    const groups = [...this.live.values()].filter((g) => commandId === undefined || g.commandId === commandId);
    for (const g of groups) signal(-g.pgid, 'SIGTERM');
    for (const p of before) signal(p.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    let left = before.filter((p) => pidAlive(p.pid));
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      left = (await this.running(commandId)).filter((p) => before.some((b) => b.pid === p.pid));
    }
    for (const g of groups) signal(-g.pgid, 'SIGKILL');
    for (const p of await this.running(commandId)) signal(p.pid, 'SIGKILL');
    for (const g of groups) this.live.delete(g.commandId);
    if (commandId === undefined) this.finished.clear();
    else this.finished.delete(commandId);
    return before;
  }

  /** Synchronous last resort at exit: every tracked group gets SIGKILL. */
  killGroupsNow(): void {
    for (const g of this.live.values()) signal(-g.pgid, 'SIGKILL');
    this.live.clear();
    this.finished.clear();
  }
}

/**
 * Processes left by an earlier Capsule process that died without cleaning up (SIGKILL, a crash): their tag names an
 * owner that no longer runs. They are stopped and returned for the report.
 */
export async function stopLeftovers(): Promise<TaggedProcess[]> {
  const orphans = (await findTaggedProcesses()).filter((p) => p.ownerPid !== process.pid && !pidAlive(p.ownerPid));
  for (const p of orphans) signal(p.pid, 'SIGKILL');
  return orphans;
}

/** One line for the user about leftovers that were stopped. */
export function leftoverReport(stopped: readonly TaggedProcess[]): string | undefined {
  if (stopped.length === 0) return undefined;
  const list = stopped.slice(0, 5).map((p) => `${p.pid} ${JSON.stringify(p.command)}`).join(', ');
  const more = stopped.length > 5 ? ` and ${stopped.length - 5} more` : '';
  return `Stopped ${stopped.length} process${stopped.length === 1 ? '' : 'es'} left running by an earlier Capsule run that was killed: ${list}${more}.`;
}
