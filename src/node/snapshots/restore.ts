// Restoring the workspace files of an earlier moment from the change log: which files would change, which were edited outside Capsule, which cannot come back.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { oneLine } from '../fsUtil.js';
import type { Change, FileState } from './changeLog.js';
import { readContent, stateLike, stateOf, type FileSnapshots } from './fileSnapshots.js';

export type FileAction = 'restore' | 'delete' | 'recreate';

export interface FilePlan {
  readonly path: string;
  readonly action: FileAction;
  /** The state the file had at the target moment. */
  readonly wanted: FileState;
  /** The file differs from what Capsule last left there: someone else edited it since. */
  readonly editedOutside: boolean;
  /** Why it cannot be restored (content not kept, snapshot missing or damaged); undefined when it can. */
  readonly unavailable?: string;
}

export interface RestorePlan {
  readonly files: readonly FilePlan[];
}

/**
 * The files as they were at the moment entry position `targetPos` was the newest (positions are indexes in the
 * session's file order, which is the order of changes on disk across every branch): for each path changed later,
 * its state before the first such change. Paths Capsule never changed after that moment are left alone.
 */
export async function planRestore(snapshots: FileSnapshots, positionOf: (entryId: string | null) => number, targetPos: number): Promise<RestorePlan> {
  const log = await snapshots.log.all();
  const wanted = new Map<string, FileState>();
  const lastAfter = new Map<string, FileState>();
  for (const c of log) {
    lastAfter.set(c.path, c.after);
    if (positionOf(c.leaf) >= targetPos && !wanted.has(c.path)) wanted.set(c.path, c.before);
  }
  const files: FilePlan[] = [];
  for (const [path, w] of wanted) {
    const content = await readContent(path, snapshots.limits.maxFileBytes);
    // Ids are compared in the scheme that recorded them (older chats used SHA-256, the shadow store git blob ids).
    const current = stateOf(content);
    if (stateLike(content, w) === w && w !== 'unavailable') continue;
    const expected = lastAfter.get(path);
    const editedOutside = expected !== undefined && expected !== 'unavailable' && stateLike(content, expected) !== expected;
    const action: FileAction = w === null ? 'delete' : current === null ? 'recreate' : 'restore';
    const unavailable = await whyUnavailable(snapshots, w);
    files.push({ path, action, wanted: w, editedOutside, ...(unavailable === undefined ? {} : { unavailable }) });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { files };
}

async function whyUnavailable(snapshots: FileSnapshots, w: FileState): Promise<string | undefined> {
  if (w === null) return undefined;
  if (w === 'unavailable') return 'its content was not kept (too large, or the snapshot store was full)';
  try {
    return (await snapshots.objects.get(w)) === undefined ? 'its snapshot is missing or damaged' : undefined;
  } catch (err) {
    return `its snapshot cannot be read: ${oneLine(err)}`;
  }
}

export interface RestoreResult {
  readonly restored: readonly string[];
  /** Left as they are: edited outside Capsule (and not confirmed), or not restorable; each with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  readonly changes: readonly Change[];
}

/** Writes the planned states; files edited outside are only overwritten with `overwriteOutside`. The restore itself is logged, so it can be undone by rewinding again. */
export async function applyRestore(snapshots: FileSnapshots, plan: RestorePlan, opts: { readonly overwriteOutside: boolean; readonly leaf: string | null }): Promise<RestoreResult> {
  const restored: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const before = new Map<string, Awaited<ReturnType<typeof readContent>>>();
  for (const f of plan.files) {
    if (f.unavailable !== undefined) {
      skipped.push({ path: f.path, reason: f.unavailable });
      continue;
    }
    if (f.editedOutside && !opts.overwriteOutside) {
      skipped.push({ path: f.path, reason: 'edited outside Capsule since; not overwritten' });
      continue;
    }
    try {
      before.set(f.path, await readContent(f.path, snapshots.limits.maxFileBytes));
      await writeState(snapshots, f);
      restored.push(f.path);
    } catch (err) {
      skipped.push({ path: f.path, reason: oneLine(err) });
    }
  }
  const changes = await snapshots.record(restored, before, opts.leaf, 'restore');
  return { restored, skipped, changes };
}

async function writeState(snapshots: FileSnapshots, f: FilePlan): Promise<void> {
  if (f.wanted === null) {
    await rm(f.path, { force: true });
    return;
  }
  if (f.wanted === 'unavailable') throw new Error('its content was not kept');
  const bytes = await snapshots.objects.get(f.wanted);
  if (bytes === undefined) throw new Error('its snapshot is missing or damaged');
  await mkdir(dirname(f.path), { recursive: true });
  const mode = (await stat(f.path).catch(() => undefined))?.mode;
  // Temp file in the same folder, then rename: an editor watching the file sees the old content or the restored one.
  const tmp = join(dirname(f.path), `.${basename(f.path)}.${randomBytes(4).toString('hex')}.capsule-tmp`);
  try {
    await writeFile(tmp, bytes);
    if (mode !== undefined) await chmod(tmp, mode & 0o7777);
    await rename(tmp, f.path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
