// Undo and redo of one compaction as data: the appended event that makes the model input ignore (or use again) one capsule, or why not.
import type { Clock, IdSource } from '../ports.js';
import { latestCapsule } from '../transcript/modelInput.js';
import type { CapsuleEntry, CompactionUndoEntry, Entry } from '../transcript/schema.js';

export type UndoAction = CompactionUndoEntry['action'];

export type UndoPlan =
  | { readonly ok: true; readonly entry: CompactionUndoEntry; readonly capsule: CapsuleEntry }
  | { readonly ok: false; readonly error: string };

/** Whether a capsule of the branch is undone: its latest undo/redo event on the branch decides. */
export function isUndone(branch: readonly Entry[], capsuleId: string): boolean {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'compaction_undo' && e.capsuleId === capsuleId) return e.action === 'undo';
  }
  return false;
}

/**
 * `ref` is the compaction's checkpoint id (`ck_…`) or its capsule entry id, on the active branch. Undo applies to the
 * capsule in force (undoing an older one would change nothing the model sees); redo to a capsule undone on this branch.
 */
export function planUndo(
  branch: readonly Entry[],
  leafId: string | null,
  ref: string,
  action: UndoAction,
  deps: { readonly ids: IdSource; readonly clock: Pick<Clock, 'now'> },
): UndoPlan {
  const capsule = [...branch].reverse().find((e): e is CapsuleEntry => e.type === 'capsule' && (e.checkpointId === ref || e.id === ref));
  if (capsule === undefined) return { ok: false, error: `No compaction ${ref} on the active branch of this chat.` };
  const undone = isUndone(branch, capsule.id);
  if (action === 'undo') {
    if (undone) return { ok: false, error: `Compaction ${capsule.checkpointId} is already undone; redo it to use its capsule again.` };
    if (latestCapsule(branch)?.capsule.id !== capsule.id) {
      return {
        ok: false,
        error: `Compaction ${capsule.checkpointId} is not the one in force (a later compaction replaced it); only the latest compaction can be undone.`,
      };
    }
  } else if (!undone) return { ok: false, error: `Compaction ${capsule.checkpointId} is not undone; there is nothing to redo.` };
  const entry: CompactionUndoEntry = {
    type: 'compaction_undo',
    id: deps.ids.next('e_'),
    parentId: leafId,
    timestamp: new Date(deps.clock.now()).toISOString(),
    capsuleId: capsule.id,
    checkpointId: capsule.checkpointId,
    action,
  };
  return { ok: true, entry, capsule };
}
