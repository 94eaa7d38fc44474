// One writer per session file: proper-lockfile, plus quick reclaim of a lock left by a dead process on this host.
import { lockHolderName } from './lockHolder.js';
import { unlinkSync } from 'node:fs';
import { rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { errCode } from './fsUtil.js';
import { readRegularFile } from './regularFile.js';

/** A lock whose mtime has not been refreshed for this long belongs to a hung or dead writer. */
const LOCK_STALE_MS = 10_000;
const LOCK_UPDATE_MS = 2_500;
/**
 * A lock younger than this is never reclaimed, even if the owner file names a dead process: the
 * owner file is written just after the lock directory is created, so a brand-new lock may still
 * show the previous holder's owner file for a moment.
 */
const RECLAIM_MIN_AGE_MS = 1_000;
const MAX_ATTEMPTS = 3;

/** When the holder cannot be named (an owner file from an older version, or none yet). */
export const HELD_ELSEWHERE_REASON = 'Session is open for writing in another process; opened read-only';

/** Who holds the lock, for the read-only reason: the program and its PID. */
function heldElsewhereReason(owner: { readonly pid: number; readonly app?: string } | undefined): string {
  if (owner === undefined) return HELD_ELSEWHERE_REASON;
  return `Session is open for writing in ${owner.app ?? 'another process'} (PID ${owner.pid}); opened read-only`;
}

export interface HeldLock {
  /** Idempotent; never throws. */
  release(): Promise<void>;
}

export type LockOutcome = { readonly ok: true; readonly lock: HeldLock } | { readonly ok: false; readonly reason: string };

interface Owner {
  readonly pid: number;
  readonly host: string;
  /** The program holding it, e.g. "the capsule CLI" or "a VS Code window". */
  readonly app?: string;
}

export function lockDirPath(file: string): string {
  return `${file}.lock`;
}

/** Names the process holding the lock, so a crashed window's lock can be reclaimed at once instead of after LOCK_STALE_MS. */
export function ownerPath(file: string): string {
  return `${file}.lock.owner`;
}

// Owner files of locks this process holds; removed on exit (proper-lockfile removes the lock itself).
const ownedFiles = new Set<string>();
let exitHookInstalled = false;
function trackOwner(path: string): void {
  ownedFiles.add(path);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of ownedFiles) {
      try {
        unlinkSync(p);
      } catch {
        // already gone
      }
    }
  });
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return errCode(err) !== 'ESRCH';
  }
}

async function readOwner(path: string): Promise<Owner | undefined> {
  try {
    const raw: unknown = JSON.parse((await readRegularFile(path, 'lock owner file')).toString('utf8'));
    if (typeof raw !== 'object' || raw === null) return undefined;
    const o = raw as Record<string, unknown>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string') return undefined;
    return typeof o.app === 'string' ? { pid: o.pid, host: o.host, app: o.app.slice(0, 100) } : { pid: o.pid, host: o.host };
  } catch {
    return undefined;
  }
}

function ownerIsDead(o: Owner | undefined): boolean {
  // Unknown owner or another machine: we cannot tell, so only proper-lockfile's staleness applies.
  return o !== undefined && o.host === hostname() && !pidAlive(o.pid);
}

/** Removes a lock whose owner is dead. Returns false when someone else got there first or the owner lives. */
async function reclaim(file: string): Promise<boolean> {
  // Renaming the owner file is the claim: of several openers racing here, exactly one succeeds.
  const claim = `${ownerPath(file)}.reclaim-${process.pid}-${Date.now()}`;
  try {
    await rename(ownerPath(file), claim);
  } catch {
    return false;
  }
  if (!ownerIsDead(await readOwner(claim))) {
    await rename(claim, ownerPath(file)).catch(() => undefined);
    return false;
  }
  try {
    await rmdir(lockDirPath(file));
  } catch (err) {
    if (errCode(err) !== 'ENOENT') return false;
  } finally {
    await unlink(claim).catch(() => undefined);
  }
  return true;
}

/**
 * Takes the writer lock on `file` (which must exist). When another live process or another store
 * in this process holds it, returns `ok: false` with the user-facing reason instead of throwing.
 */
/**
 * proper-lockfile, loaded on first use: importing it patches `fs` (graceful-fs) and installs exit handlers
 * (signal-exit), work that activation need not wait for since the chat opens after it returns.
 */
async function lockfile(): Promise<typeof import('proper-lockfile')> {
  return (await import('proper-lockfile')).default;
}

export async function acquireSessionLock(file: string, onCompromised: (err: Error) => void): Promise<LockOutcome> {
  const owner = ownerPath(file);
  let released = false;
  const compromised = (err: Error): void => {
    // The lock may already belong to someone else: never delete their owner file.
    ownedFiles.delete(owner);
    released = true;
    onCompromised(err);
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let release: () => Promise<void>;
    try {
      release = await (await lockfile()).lock(file, { stale: LOCK_STALE_MS, update: LOCK_UPDATE_MS, realpath: false, onCompromised: compromised });
    } catch (err) {
      if (errCode(err) !== 'ELOCKED') {
        const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
        return { ok: false, reason: `Cannot lock the session file (${msg}); opened read-only` };
      }
      const holder = await readOwner(ownerPath(file));
      if (!ownerIsDead(holder)) return { ok: false, reason: heldElsewhereReason(holder) };
      const st = await stat(lockDirPath(file)).catch(() => undefined);
      const age = st ? Date.now() - st.mtimeMs : RECLAIM_MIN_AGE_MS;
      if (age < RECLAIM_MIN_AGE_MS) {
        await sleep(RECLAIM_MIN_AGE_MS - age + 50);
        continue;
      }
      await reclaim(file);
      continue;
    }
    const body: Owner & { readonly since: string } = { pid: process.pid, host: hostname(), app: lockHolderName(), since: new Date().toISOString() };
    await writeFile(owner, JSON.stringify(body)).catch(() => undefined);
    trackOwner(owner);
    return {
      ok: true,
      lock: {
        async release(): Promise<void> {
          if (released) return;
          released = true;
          // Owner file first: once the lock is gone another process may already have written its own.
          ownedFiles.delete(owner);
          await unlink(owner).catch(() => undefined);
          await release().catch(() => undefined);
        },
      },
    };
  }
  return { ok: false, reason: HELD_ELSEWHERE_REASON };
}

/** True when a live writer (another window, or a recently active unknown holder) holds the lock on `file`. */
export async function isLockedElsewhere(file: string): Promise<boolean> {
  let held: boolean;
  try {
    held = await (await lockfile()).check(file, { stale: LOCK_STALE_MS, realpath: false });
  } catch {
    return false;
  }
  if (!held) return false;
  return !ownerIsDead(await readOwner(ownerPath(file)));
}
