// Restoring the workspace files of an earlier moment from the change log: which files would change, which changed since Capsule recorded them, which cannot or must not come back.
import { constants, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { oneLine } from '../fsUtil.js';
import { openRegularFile } from '../regularFile.js';
import { REFUSED, type Change, type FileState, type RefusedRecord } from './changeLog.js';
import { checkedParent, ConfinementError, deleteConfined, partsBelow, writeConfined } from './confine.js';
import { readContent, stateLike, stateOf, type FileSnapshots } from './fileSnapshots.js';

type FileAction = 'restore' | 'delete' | 'recreate';

export interface FilePlan {
  readonly path: string;
  readonly action: FileAction;
  /** The state the file had at the target moment. */
  readonly wanted: FileState;
  /**
   * "Changed since": the file is not what Capsule last recorded there (someone edited it), or Capsule did not keep
   * that content (too large) and so cannot tell. Never overwritten unless asked, and then only after a copy is kept.
   */
  readonly editedOutside: boolean;
  /** Set when Capsule cannot tell whether the file was edited (its last content was not kept). */
  readonly unknownContent?: true;
  /** Why it cannot be restored (content not kept, snapshot missing or damaged); undefined when it can. */
  readonly unavailable?: string;
  /** The workspace folder (real path) the file lies in. */
  readonly root: string;
}

export interface RestorePlan {
  readonly files: readonly FilePlan[];
  /** Records that are never applied (not Capsule's, outside the workspace, a link on the way), each with why. */
  readonly refused: readonly RefusedRecord[];
}

function rootOf(roots: readonly string[], path: string): string | undefined {
  return roots.filter((r) => partsBelow(r, path) !== undefined).sort((a, b) => b.length - a.length)[0];
}

/**
 * The files as they were at the moment entry position `targetPos` was the newest (positions are indexes in the
 * session's file order, which is the order of changes on disk across every branch): for each path changed later,
 * its state before the first such change. Paths Capsule never changed after that moment are left alone, and so are
 * Capsule's own files, whatever an older log says about them.
 */
export async function planRestore(snapshots: FileSnapshots, positionOf: (entryId: string | null) => number, targetPos: number): Promise<RestorePlan> {
  const log = await snapshots.log.all();
  const refused = new Map<string, RefusedRecord>();
  for (const r of await snapshots.log.refused()) refused.set(`${r.path}\0${r.reason}`, r);
  const roots = await snapshots.log.roots();
  const own = await snapshots.log.ownTest();
  const wanted = new Map<string, FileState>();
  const lastAfter = new Map<string, FileState>();
  for (const c of log) {
    if (own(c.path)) continue;
    lastAfter.set(c.path, c.after);
    if (positionOf(c.leaf) >= targetPos && !wanted.has(c.path)) wanted.set(c.path, c.before);
  }
  const files: FilePlan[] = [];
  for (const [path, w] of wanted) {
    const root = rootOf(roots, path);
    if (root === undefined) {
      refused.set(`${path}\0outside`, { path, reason: REFUSED.outside });
      continue;
    }
    try {
      // Read nothing through a folder that became a link: the dry run names it just as the restore would.
      await checkedParent(root, path, false);
    } catch (err) {
      refused.set(`${path}\0link`, { path, reason: err instanceof ConfinementError ? err.message : oneLine(err) });
      continue;
    }
    const content = await readContent(path, snapshots.limits.maxFileBytes);
    // Ids are compared in the scheme that recorded them (older chats used SHA-256, the shadow store git blob ids).
    const current = stateOf(content);
    if (stateLike(content, w) === w && w !== 'unavailable') continue;
    const expected = lastAfter.get(path);
    // "unavailable" means Capsule does not know what it left there: that is unknown content, never "unchanged".
    const unknownContent = expected === 'unavailable' && current !== null;
    const editedOutside = unknownContent || (expected !== undefined && stateLike(content, expected) !== expected);
    const action: FileAction = w === null ? 'delete' : current === null ? 'recreate' : 'restore';
    const unavailable = await whyUnavailable(snapshots, w);
    files.push({
      path,
      action,
      wanted: w,
      editedOutside,
      root,
      ...(unknownContent ? { unknownContent: true as const } : {}),
      ...(unavailable === undefined ? {} : { unavailable }),
    });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { files, refused: [...refused.values()].sort((a, b) => a.path.localeCompare(b.path)) };
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

/** Why a changed-since file is left as it is. */
function changedSinceReason(f: FilePlan): string {
  return f.unknownContent === true
    ? 'changed since: Capsule did not keep its last content (too large, or the snapshot store was full), so it cannot tell whether you edited it; left as it is'
    : 'changed since Capsule last recorded it (edited outside Capsule); left as it is';
}

interface KeptCopy {
  readonly path: string;
  /** Where the user's version was copied before it was overwritten or deleted. */
  readonly copy: string;
}

export interface RestoreResult {
  readonly restored: readonly string[];
  /** Left as they are: changed since (and not confirmed), not restorable, or stopped at write time (a link on the way); each with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  /** Change-log records never applied (not Capsule's, outside the workspace, a link on the way), each with why. */
  readonly refused: readonly RefusedRecord[];
  /** Changed-since files overwritten on request, and where their content was kept first. */
  readonly kept: readonly KeptCopy[];
  readonly changes: readonly Change[];
}

/** `kept/<time>/` in the snapshot folder: Capsule's own, never walked, never restored. */
function keptFolder(snapshots: FileSnapshots): string {
  return join(dirname(snapshots.log.file), 'kept', new Date().toISOString().replace(/[:.]/g, '-'));
}

/** Copies the file as it is now (a regular file only, no link followed) to the kept folder, under its workspace-relative path. */
async function keepCopy(f: FilePlan, folder: string, multiRoot: boolean): Promise<string> {
  const parts = partsBelow(f.root, f.path) ?? [basename(f.path)];
  const copy = join(folder, ...(multiRoot ? [basename(f.root)] : []), ...parts);
  await mkdir(dirname(copy), { recursive: true });
  const handle = await openRegularFile(f.path, 'file', constants.O_NOFOLLOW);
  try {
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(copy, { flags: 'wx', mode: 0o600 }));
  } finally {
    await handle.close();
  }
  return copy;
}

/**
 * Writes the planned states, each confined to its workspace folder at the moment it is written. Changed-since files
 * are only overwritten with `overwriteOutside`, and only after their content is copied to the kept folder; refused
 * records are reported, never applied. The restore itself is logged, so it can be undone by rewinding again.
 */
export async function applyRestore(
  snapshots: FileSnapshots,
  plan: RestorePlan,
  opts: { readonly overwriteOutside: boolean; readonly leaf: string | null },
): Promise<RestoreResult> {
  const restored: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const kept: KeptCopy[] = [];
  const refused: RefusedRecord[] = [...plan.refused];
  const before = new Map<string, Awaited<ReturnType<typeof readContent>>>();
  const folder = keptFolder(snapshots);
  const multiRoot = new Set(plan.files.map((f) => f.root)).size > 1 || (await snapshots.log.roots()).length > 1;
  for (const f of plan.files) {
    if (f.unavailable !== undefined) {
      skipped.push({ path: f.path, reason: f.unavailable });
      continue;
    }
    if (f.editedOutside && !opts.overwriteOutside) {
      skipped.push({ path: f.path, reason: changedSinceReason(f) });
      continue;
    }
    try {
      // The parents are checked before anything is read, so no content is read through a link either.
      await checkedParent(f.root, f.path, false);
      const now = await readContent(f.path, snapshots.limits.maxFileBytes);
      const copy =
        f.editedOutside && now.kind !== 'absent'
          ? await keepCopy(f, folder, multiRoot).catch((err: unknown) => {
              throw new Error(`your version could not be kept (${oneLine(err)}); not overwritten`);
            })
          : undefined;
      before.set(f.path, now);
      await writeState(snapshots, f);
      restored.push(f.path);
      if (copy !== undefined) kept.push({ path: f.path, copy });
    } catch (err) {
      if (err instanceof ConfinementError) refused.push({ path: f.path, reason: err.message });
      else skipped.push({ path: f.path, reason: err instanceof Error ? err.message : oneLine(err) });
    }
  }
  const changes = await snapshots.record(restored, before, opts.leaf, 'restore');
  return { restored, skipped, refused, kept, changes };
}

async function writeState(snapshots: FileSnapshots, f: FilePlan): Promise<void> {
  if (f.wanted === null) {
    await deleteConfined(f.root, f.path);
    return;
  }
  if (f.wanted === 'unavailable') throw new Error('its content was not kept');
  const bytes = await snapshots.objects.get(f.wanted);
  if (bytes === undefined) throw new Error('its snapshot is missing or damaged');
  await writeConfined(f.root, f.path, bytes);
}
