// Which processes can be a command's: Linux's pid counter bounds them to the ids handed out since the command's shell started, while it cannot have gone round.
import { readFileSync } from 'node:fs';

/**
 * Linux hands out process ids in increasing order, wrapping at pid_max. So every process created after a command's
 * shell has an id from the shell's up to the last one handed out, counted round the wrap, as long as the counter has
 * not gone all the way round since. It cannot have when fewer ids were used than pid_max: each new process or thread
 * moves the counter one id on, plus one for each id it skips because it is taken, and taken ids are at most the tasks
 * that existed at the start plus those created since. Within that bound only the ids in the window are read.
 */
export interface PidWindow {
  /** The shell's pid (0 until it is known). */
  readonly firstPid: number;
  /** Processes and threads created since boot ("processes" in /proc/stat) before the shell started. */
  readonly forks: number;
  /** Tasks that existed then (the total in /proc/loadavg). */
  readonly tasks: number;
}

/** Ids below this are never handed out again after the wrap (RESERVED_PIDS). */
const RESERVED_PIDS = 300;

function forksSince(stat: string): number | undefined {
  const m = /^processes (\d+)$/m.exec(stat);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/** The pid counter's state now, read synchronously (before a shell is spawned). */
export function pidWindowNow(): PidWindow | undefined {
  try {
    const forks = forksSince(readFileSync('/proc/stat', 'latin1'));
    const tasks = Number(readFileSync('/proc/loadavg', 'latin1').split(' ')[3]?.split('/')[1]);
    return forks === undefined || !Number.isFinite(tasks) ? undefined : { firstPid: 0, forks, tasks };
  } catch {
    return undefined;
  }
}

/**
 * Which pids can belong to the commands: a test on a pid, or undefined when every process must be looked at (no
 * window known for some command, or the counter may have gone round since the oldest one).
 */
export async function pidFilter(
  marks: readonly { readonly window?: PidWindow }[],
  read: (path: string) => Promise<string>,
): Promise<((pid: number) => boolean) | undefined> {
  const windows = marks.flatMap((m) => (m.window === undefined || m.window.firstPid <= 0 ? [] : [m.window]));
  const oldest = windows.reduce<PidWindow | undefined>((a, b) => (a === undefined || b.forks < a.forks ? b : a), undefined);
  if (oldest === undefined || windows.length < marks.length) return undefined;
  try {
    const [stat, max, last] = await Promise.all([read('/proc/stat'), read('/proc/sys/kernel/pid_max'), read('/proc/sys/kernel/ns_last_pid')]);
    const forks = forksSince(stat);
    const pidMax = Number(max.trim());
    const lastPid = Number(last.trim());
    if (forks === undefined || !Number.isFinite(pidMax) || !Number.isFinite(lastPid) || pidMax <= RESERVED_PIDS) return undefined;
    const created = forks - oldest.forks;
    if (created < 0 || 2 * created + oldest.tasks >= pidMax - RESERVED_PIDS) return undefined;
    const ahead = (pid: number): number => (((pid - oldest.firstPid) % pidMax) + pidMax) % pidMax;
    const span = ahead(lastPid);
    return (pid) => ahead(pid) <= span;
  } catch {
    return undefined;
  }
}
