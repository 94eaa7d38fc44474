// Rewind as one operation over a session file and its file snapshots: preview (what changes, what cannot), then conversation and/or files.
import type { Clock, IdSource } from '../engine/ports.js';
import { switchPoint } from '../engine/transcript/branches.js';
import { resolveRewindPoint, type RewindPoint } from '../engine/transcript/rewindPoint.js';
import type { LeafEntry, SystemUpdateEntry } from '../engine/transcript/schema.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import type { RefusedRecord } from './snapshots/changeLog.js';
import type { FileSnapshots } from './snapshots/fileSnapshots.js';
import { applyRestore, planRestore, type FilePlan, type RestorePlan, type RestoreResult } from './snapshots/restore.js';

/** "Conversation and files" (the default), "Conversation only", "Files only". */
export type RewindMode = 'both' | 'conversation' | 'files';

export interface RewindPreview {
  readonly ok: true;
  readonly point: RewindPoint;
  /** Files that differ from that moment; empty when the chat changed none (or keeps no snapshots). */
  readonly files: readonly FilePlan[];
  /** The session keeps file snapshots (a chat without workspace tools has none to restore). */
  readonly snapshots: boolean;
  /** Change-log records that are never applied (not Capsule's, outside the workspace, a link on the way), each with why. */
  readonly refused: readonly RefusedRecord[];
}

export type RewindFailure = { readonly ok: false; readonly error: string };

export interface RewindDone {
  readonly ok: true;
  readonly point: RewindPoint;
  readonly mode: RewindMode;
  /** The leaf move; absent for "Files only". */
  readonly leaf?: LeafEntry;
  readonly files?: RestoreResult;
  /** The system update that tells the model which files still differ ("Conversation only"). */
  readonly note?: SystemUpdateEntry;
  /** The files that differ from the moment the conversation moved to (and stay as they are) after a "Conversation only" move. */
  readonly differ?: readonly FilePlan[];
}

interface RewindDeps {
  readonly store: JsonlSessionStore;
  readonly snapshots: FileSnapshots | undefined;
  readonly ids: IdSource;
  readonly clock: Pick<Clock, 'now'>;
}

/** Changes are logged against the newest entry in file order: the file's order is the order things happened on disk, across branches. */
export function lastEntryId(store: JsonlSessionStore): string | null {
  return store.tree.lastId();
}

function positions(store: JsonlSessionStore): (id: string | null) => number {
  // From the links: a compact history's lines are not read back to be numbered.
  const at = new Map(store.tree.linksFrom(0).map((e, i) => [e.id, i]));
  return (id) => (id === null ? -1 : (at.get(id) ?? -1));
}

async function plan(d: RewindDeps, point: RewindPoint): Promise<RestorePlan> {
  if (d.snapshots === undefined) return { files: [], refused: [] };
  const pos = positions(d.store);
  // The moment of a point is "just after its target was written"; before the first entry, every change counts.
  const targetPos = point.targetId === null ? -1 : pos(point.targetId);
  return planRestore(d.snapshots, pos, targetPos);
}

export async function previewRewind(d: RewindDeps, ref: string): Promise<RewindPreview | RewindFailure> {
  // A point before the tail a tail-first store opened with is found only in the whole tree.
  await d.store.whenIndexed();
  const point = resolveRewindPoint(d.store.tree, ref);
  if (!point.ok) return point;
  const { ok: _ok, ...p } = point;
  const restore = await plan(d, p);
  return { ok: true, point: p, files: restore.files, refused: restore.refused, snapshots: d.snapshots !== undefined };
}

function describe(f: FilePlan): string {
  switch (f.action) {
    case 'delete':
      return `${f.path} (created after that point; still exists)`;
    case 'recreate':
      return `${f.path} (deleted after that point; still missing)`;
    case 'restore':
      return `${f.path} (modified after that point)`;
  }
}

/** The one system update a "Conversation only" rewind leaves: the model must not assume the files are as they were. */
function filesDifferNote(files: readonly FilePlan[]): string {
  return [
    'Note from Capsule: the conversation was rewound, but the workspace files were not.',
    `These files differ from how they were at this point of the conversation (later changes are still on disk):`,
    ...files.map((f) => `- ${describe(f)}`),
    'Read a file again before relying on its content.',
  ].join('\n');
}

/**
 * Rewinds: moves the leaf (unless "Files only"), restores the files (unless "Conversation only"; files changed since
 * Capsule recorded them only with `overwriteOutside`, after a copy of each is kept; refused records never), and after a "Conversation only" rewind that leaves files changed, appends one
 * system update listing them. The caller makes sure no turn runs.
 */
export async function rewindSession(
  d: RewindDeps,
  ref: string,
  opts: { readonly mode?: RewindMode; readonly overwriteOutside?: boolean } = {},
): Promise<RewindDone | RewindFailure> {
  const store = d.store;
  await store.whenIndexed();
  if (store.readOnly)
    return { ok: false, error: `This session is read-only (${store.readOnlyReason ?? 'open in another window'}); it cannot be rewound here.` };
  const point = resolveRewindPoint(store.tree, ref);
  if (!point.ok) return point;
  const { ok: _ok, ...p } = point;
  return moveTo(d, p, `rewind to ${p.checkpointId ?? ref}${p.adjusted ? ' (moved off an unanswered tool call)' : ''}`, opts);
}

/** A branch switch done (docs/rewind.md#branches): where the leaf went, and the note when files differ from that branch's moment. */
export interface SwitchDone extends RewindDone {
  /** The branch's newest entry (the leaf, unless it sat inside an unanswered tool call). */
  readonly tipId: string;
}

/**
 * Switches to the branch that starts at `entryId` (a message or an answer at a fork): the leaf moves to that branch's
 * newest entry, the conversation only. Files stay as they are; when they differ from that moment, the model is told
 * which, exactly as after a "Conversation only" rewind. Nothing is deleted. The caller makes sure no turn runs.
 */
export async function switchBranchSession(d: RewindDeps, entryId: string): Promise<SwitchDone | RewindFailure> {
  const store = d.store;
  if (store.readOnly)
    return { ok: false, error: `This session is read-only (${store.readOnlyReason ?? 'open in another window'}); its branches cannot be switched here.` };
  const at = switchPoint(store.tree, entryId);
  if (!at.ok) return at;
  if (store.tree.branch().some((e) => e.id === entryId)) return { ok: false, error: 'That branch is already the one shown.' };
  const r = await moveTo(d, { targetId: at.targetId, adjusted: at.adjusted }, `switch to the branch of ${entryId}`, { mode: 'conversation' });
  return r.ok ? { ...r, tipId: at.tipId } : r;
}

async function moveTo(
  d: RewindDeps,
  p: RewindPoint,
  reason: string,
  opts: { readonly mode?: RewindMode; readonly overwriteOutside?: boolean },
): Promise<RewindDone | RewindFailure> {
  const store = d.store;
  const mode = opts.mode ?? 'both';
  const restorePlan = await plan(d, p);
  const ts = (): string => new Date(d.clock.now()).toISOString();
  let leaf: LeafEntry | undefined;
  if (mode !== 'files') {
    leaf = { type: 'leaf', id: d.ids.next('e_'), parentId: store.leafId(), timestamp: ts(), targetId: p.targetId, reason };
    await store.append(leaf);
  }
  let files: RestoreResult | undefined;
  if (mode !== 'conversation' && d.snapshots !== undefined) {
    files = await applyRestore(d.snapshots, restorePlan, { overwriteOutside: opts.overwriteOutside === true, leaf: lastEntryId(store) });
  }
  let note: SystemUpdateEntry | undefined;
  if (mode === 'conversation' && restorePlan.files.length > 0) {
    note = {
      type: 'system_update',
      id: d.ids.next('e_'),
      parentId: store.leafId(),
      timestamp: ts(),
      mode: 'append',
      content: filesDifferNote(restorePlan.files),
      reason: 'rewind: files differ',
    };
    await store.append(note);
  }
  return {
    ok: true,
    point: p,
    mode,
    ...(leaf === undefined ? {} : { leaf }),
    ...(files === undefined ? {} : { files }),
    ...(note === undefined ? {} : { note, differ: restorePlan.files }),
  };
}
