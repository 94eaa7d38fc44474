// Tracks the processes each run_command starts (its process group, plus a tag in the environment that setsid children keep) so they die with their turn, and with a killed CLI's next run.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type PidWindow, pidFilter, pidWindowNow } from './pidWindow.js';
import * as z from '../../engine/zod.js';

/**
 * Environment variable that marks every process a command starts: `<owner pid>:<command id>`. (Earlier versions
 * used another name and stopped every orphan carrying it anywhere on the machine; this name keeps them off.)
 */
export const COMMAND_TAG_VAR = 'CAPSULE_COMMAND_ID';

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

/** The fields of /proc/N/stat the bookkeeping needs. */
export interface ProcStat {
  readonly pid: number;
  readonly zombie: boolean;
  readonly ppid: number;
  readonly pgid: number;
  /** Clock ticks after boot when the process started: with the pid, it names one process even after pid reuse. */
  readonly start: number;
}

/** Parses a /proc/N/stat line (the name in parentheses may hold spaces and parentheses, so fields count from the last one). */
function parseStat(pid: number, line: string): ProcStat | undefined {
  const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgid] = [f[0], Number(f[1]), Number(f[2])];
  const start = Number(f[19]);
  if (state === undefined || !Number.isFinite(ppid) || !Number.isFinite(pgid) || !Number.isFinite(start)) return undefined;
  return { pid, zombie: state === 'Z' || state === 'X', ppid, pgid, start };
}

function statSync(pid: number): ProcStat | undefined {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

/** One command to look for: its group, when it started, and its tag. */
export interface CommandMark {
  readonly commandId: string;
  /** The tag value in its processes' environment (`owner:id`). */
  readonly tag: string;
  readonly ownerPid: number;
  /** Its process group while it may still have members (undefined once the id may have been reused). */
  readonly pgid?: number;
  /** The shell's start (clock ticks): nothing that started earlier can be the command's. */
  readonly start: number;
  /** Where the kernel's pid counter stood when the command was noted (see pidWindow); absent: every process is looked at. */
  readonly window?: PidWindow;
}

export interface ScanResult {
  readonly found: readonly TaggedProcess[];
  /** Processes that may be the command's but could not be told yet (an exec in progress shows no environment). */
  readonly uncertain: number;
}

/** How processes are looked for (a parameter so that tests can script a scan that misses). */
export type ProcessScan = (marks: readonly CommandMark[]) => Promise<ScanResult>;

/** Reads one /proc file as text (a parameter of the scan, so a test can see which files it read). */
export type ProcReader = (path: string) => Promise<string>;
/**
 * Synchronous: a /proc file is made by the kernel on read, in microseconds, while the asynchronous path queues each
 * read on the thread pool, where a loaded machine made a command's one scan take 10 to 20 ms.
 */
const readProc: ProcReader = (path) => {
  try {
    return Promise.resolve(readFileSync(path, 'latin1'));
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
};

function procNames(): string[] {
  try {
    return readdirSync('/proc');
  } catch {
    return [];
  }
}

async function cmdline(pid: number, read: ProcReader): Promise<string> {
  const raw = await read(`/proc/${pid}/cmdline`).catch(() => '');
  return raw.split('\0').filter(Boolean).join(' ').slice(0, 200);
}

/**
 * The live processes of the given commands (Linux; elsewhere only the process groups apply, through signals). A
 * process counts when it is in a command's group (its stat says so), or when it started after the command did and
 * its environment carries the command's tag: only those few environments are read, never every process's, and only
 * the processes created since the command started are read at all when the pid counter allows it (see PidWindow). A
 * process that started after a command, whose group is not one of ours and whose environment is still empty (an
 * exec in progress), is counted as uncertain.
 */
export async function scanProcesses(marks: readonly CommandMark[], read: ProcReader = readProc): Promise<ScanResult> {
  if (process.platform !== 'linux' || marks.length === 0) return { found: [], uncertain: 0 };
  const inWindow = await pidFilter(marks, read);
  const all = procNames();
  const names = inWindow === undefined ? all : all.filter((n) => inWindow(Number(n)));
  const earliest = Math.min(...marks.map((m) => m.start));
  const byGroup = new Map(marks.flatMap((m) => (m.pgid === undefined ? [] : [[m.pgid, m] as const])));
  const byTag = new Map(marks.map((m) => [m.tag, m]));
  const found: TaggedProcess[] = [];
  let uncertain = 0;
  await Promise.all(
    names.map(async (n) => {
      const pid = Number(n);
      if (!/^\d+$/.test(n) || pid === process.pid) return;
      const st = parseStat(pid, await read(`/proc/${n}/stat`).catch(() => ''));
      if (st === undefined || st.zombie) return; // gone, or a zombie waiting for its parent
      let mark = byGroup.get(st.pgid);
      // A group id outlives nothing: a member that started before the shell is another group that got the same id.
      if (mark !== undefined && st.start < mark.start) mark = undefined;
      if (mark === undefined) {
        if (st.start < earliest || st.ppid === KTHREADD) return;
        const environ = await read(`/proc/${n}/environ`).catch(() => undefined);
        if (environ === '') uncertain++;
        const tag = environ === undefined ? undefined : tagIn(environ);
        mark = tag === undefined ? undefined : byTag.get(tag);
        if (mark === undefined || st.start < mark.start) return;
      }
      found.push({ pid, ownerPid: mark.ownerPid, commandId: mark.commandId, command: await cmdline(pid, read) });
    }),
  );
  return { found: found.sort((a, b) => a.pid - b.pid), uncertain };
}

/** The parent of every kernel thread (whose environment is always empty). */
const KTHREADD = 2;

function tagIn(environ: string): string | undefined {
  const key = `${COMMAND_TAG_VAR}=`;
  for (const pair of environ.split('\0')) if (pair.startsWith(key)) return pair.slice(key.length);
  return undefined;
}

/** Pause before the one rescan made while a finished command still has processes (one may be mid-fork or mid-exec). */
const SETTLE_MS = 50;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return typeof err === 'object' && err !== null && 'code' in err && err.code === 'EPERM';
  }
}

/**
 * Whether a process still runs: a zombie (dead, waiting for its parent to collect it, which for an orphan is init's
 * job and may take a moment after a kill) does not. Where /proc cannot tell, whether a signal reaches it.
 */
function stillRunning(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  const st = process.platform === 'linux' ? statSync(pid) : undefined;
  return st === undefined ? process.platform !== 'linux' || pidAlive(pid) : !st.zombie;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: already gone.
  }
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

const JournalSchema = z.array(
  z.object({ commandId: z.string(), tag: z.string(), ownerPid: z.number(), ownerStart: z.number(), pgid: z.optional(z.number()), start: z.number() }),
);
type JournalEntry = z.infer<typeof JournalSchema>[number];

/** The journal's name in a session's snapshot folder: the commands a process started and had not stopped yet. */
export const COMMAND_JOURNAL = 'running-commands.json';

function readJournal(path: string): JournalEntry[] {
  try {
    const parsed = JournalSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Synchronous on purpose: the entry must be on disk before the shell runs, since the CLI may be SIGKILLed at any moment after. */
function writeJournal(path: string, entries: readonly JournalEntry[]): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(entries));
    renameSync(tmp, path);
  } catch {
    // A journal that cannot be written only means a killed run's leftovers are not found next time.
  }
}

/**
 * The commands of this process whose processes may still run: each is a process group (killed as `-pgid`) plus its
 * tag. Commands are forgotten once stopped or found finished; on exit every tracked group is killed. With a journal
 * file, each command is noted there while it may run, so the next run finds it if this process is SIGKILLed.
 */
export class CommandTracker {
  private readonly live = new Map<string, CommandMark>();
  /** Finished commands whose tags are still looked for until the turn ends (see forget). */
  private readonly finished = new Map<string, CommandMark>();
  private readonly selfStart = statSync(process.pid)?.start ?? 0;

  constructor(
    private readonly scan: ProcessScan = scanProcesses,
    private readonly journal?: string,
  ) {}

  /** Notes a command about to start (its tag is in the environment it is given); `started` adds its group. */
  begin(commandId: string): void {
    // Read before the shell exists, so the window's counts cover everything the command creates.
    const window = pidWindowNow();
    this.live.set(commandId, { commandId, tag: `${process.pid}:${commandId}`, ownerPid: process.pid, start: 0, ...(window === undefined ? {} : { window }) });
    trackers.add(this);
    installExitHook();
    this.saveJournal();
  }

  /** The shell runs as process group `pgid`: what started after it, in its group or with its tag, is the command's. */
  add(pgid: number, commandId: string): void {
    if (!this.live.has(commandId)) this.begin(commandId);
    const start = statSync(pgid)?.start ?? 0;
    const was = this.live.get(commandId)?.window;
    const window = was === undefined ? {} : { window: { ...was, firstPid: pgid } };
    this.live.set(commandId, { commandId, tag: `${process.pid}:${commandId}`, ownerPid: process.pid, pgid, start, ...window });
    this.saveJournal();
  }

  /**
   * The command finished and nothing of it runs. Its group is not signalled again (its id may be reused), but its tag
   * is still looked for until the turn ends.
   */
  forget(commandId: string): void {
    const m = this.live.get(commandId);
    if (m === undefined) return;
    this.live.delete(commandId);
    const { pgid: _gone, ...rest } = m;
    this.finished.set(commandId, rest);
    this.saveJournal();
  }

  get size(): number {
    return this.live.size + this.finished.size;
  }

  private marks(commandId?: string): CommandMark[] {
    return [...this.live.values(), ...this.finished.values()].filter((m) => commandId === undefined || m.commandId === commandId);
  }

  /** Processes of the tracked commands (or of one) still running. */
  async running(commandId?: string): Promise<TaggedProcess[]> {
    return [...(await this.scan(this.marks(commandId))).found];
  }

  /**
   * What one command left running, for the report right after it exits. When a scan finds nothing and nothing
   * uncertain, that is the answer at once. One more scan after SETTLE_MS is made only while the command's group still
   * has members or a process could not be told yet: a child being forked or exec'd then shows in the second scan.
   * What either scan saw and still runs is reported.
   */
  async settled(commandId: string): Promise<TaggedProcess[]> {
    const marks = this.marks(commandId);
    const first = await this.scan(marks);
    if (first.found.length === 0 && first.uncertain === 0) return [];
    const group = this.live.get(commandId)?.pgid;
    const members = group !== undefined && pidAlive(-group);
    if (!members && first.uncertain === 0) return first.found.filter((p) => stillRunning(p.pid));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const second = await this.scan(marks);
    const seen = new Map([...first.found, ...second.found].map((p) => [p.pid, p]));
    return [...seen.values()].filter((p) => stillRunning(p.pid)).sort((a, b) => a.pid - b.pid);
  }

  /** Stops every process of the tracked commands, or of one (TERM, then KILL after `graceMs`); returns what was running. */
  async stop(commandId?: string, graceMs = 1_000): Promise<TaggedProcess[]> {
    const marks = this.marks(commandId);
    const before = (await this.scan(marks)).found;
    const groups = marks.flatMap((m) => (m.pgid === undefined || !this.live.has(m.commandId) ? [] : [m.pgid]));
    for (const g of groups) signal(-g, 'SIGTERM');
    for (const p of before) signal(p.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (before.some((p) => pidAlive(p.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    for (const g of groups) signal(-g, 'SIGKILL');
    for (const p of before) if (pidAlive(p.pid)) signal(p.pid, 'SIGKILL');
    // Something forked while the others were being stopped.
    for (const p of (await this.scan(marks)).found) signal(p.pid, 'SIGKILL');
    for (const m of marks) {
      this.live.delete(m.commandId);
      this.finished.delete(m.commandId);
    }
    this.saveJournal();
    return [...before];
  }

  /** Synchronous last resort at exit: every tracked group gets SIGKILL (the journal keeps the commands for the next run). */
  killGroupsNow(): void {
    for (const m of this.live.values()) if (m.pgid !== undefined) signal(-m.pgid, 'SIGKILL');
  }

  private saveJournal(): void {
    if (this.journal === undefined) return;
    const others = readJournal(this.journal).filter((e) => e.ownerPid !== process.pid);
    const mine = this.marks().map((m) => ({ ...m, ownerStart: this.selfStart }));
    writeJournal(this.journal, [...others, ...mine]);
  }
}

/**
 * Processes left by an earlier Capsule process of the same session that died without cleaning up (SIGKILL, a
 * crash): the journal names its commands, their owner no longer runs (or its pid now names another process). Only
 * those commands' groups and tags are looked for; what is found is stopped and returned for the report.
 */
export async function stopLeftovers(journal: string): Promise<TaggedProcess[]> {
  const entries = readJournal(journal);
  const dead = entries.filter((e) => !pidAlive(e.ownerPid) || statSync(e.ownerPid)?.start !== e.ownerStart);
  if (dead.length === 0) return [];
  const { found } = await scanProcesses(dead.map(({ ownerStart: _o, ...m }) => m));
  for (const p of found) signal(p.pid, 'SIGKILL');
  for (const e of dead) if (e.pgid !== undefined && found.some((p) => p.commandId === e.commandId)) signal(-e.pgid, 'SIGKILL');
  const gone = new Set(dead.map((e) => e.tag));
  writeJournal(
    journal,
    readJournal(journal).filter((e) => !gone.has(e.tag)),
  );
  return [...found];
}

/** One line for the user about leftovers that were stopped. */
export function leftoverReport(stopped: readonly TaggedProcess[]): string | undefined {
  if (stopped.length === 0) return undefined;
  const list = stopped
    .slice(0, 5)
    .map((p) => `${p.pid} ${JSON.stringify(p.command)}`)
    .join(', ');
  const more = stopped.length > 5 ? ` and ${stopped.length - 5} more` : '';
  return `Stopped ${stopped.length} process${stopped.length === 1 ? '' : 'es'} left running by an earlier Capsule run that was killed: ${list}${more}.`;
}
