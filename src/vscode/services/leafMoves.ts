// Moves of the open chat's leaf the user asks for — rewind, the ‹ › branch switcher, undo/redo of a compaction — through the facade when a model is set up, on the session file alone otherwise (docs/rewind.md).
import type { UndoAction } from '../../engine/compaction/undo.js';
import type { AgentSession, RewindOptions } from '../../node/agentSession.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import { nodeClock, nodeIds } from '../../node/nodeClock.js';
import { previewRewind, rewindSession, switchBranchSession, type RewindDone, type RewindFailure, type RewindPreview, type SwitchDone } from '../../node/sessionRewind.js';

/** What a leaf move needs of the chat service. */
export interface LeafMoveHost {
  readonly agent: AgentSession | undefined;
  readonly store: JsonlSessionStore | undefined;
  /** Says why a move was refused. */
  notify(text: string): void;
  /** The appended leaf entry already moved the view; the facade may have changed more, so the meter measures again. */
  remeasure(): void;
}

/** A chat opened without a model can still rewind its conversation (there are no file snapshots to restore). */
function storeOnly(store: JsonlSessionStore): Parameters<typeof rewindSession>[0] {
  return { store, snapshots: undefined, ids: nodeIds, clock: nodeClock };
}

function moved<T extends RewindDone>(h: LeafMoveHost, r: T | RewindFailure): T | undefined {
  if (!r.ok) {
    h.notify(r.error);
    return undefined;
  }
  h.remeasure();
  return r;
}

/** What a rewind to `ref` would do (files that differ, the message that comes back). */
export function previewRewindOf(h: LeafMoveHost, store: JsonlSessionStore, ref: string): Promise<RewindPreview | RewindFailure> {
  return h.agent && h.store === store ? h.agent.previewRewind(ref) : previewRewind(storeOnly(store), ref);
}

/** Rewind after the user confirmed; undefined (and a notice) when it could not be done. */
export async function rewindOf(h: LeafMoveHost, store: JsonlSessionStore, ref: string, opts: RewindOptions = {}): Promise<RewindDone | undefined> {
  if (h.store !== store) return undefined; // the chat changed while the dialog was open
  return moved(h, h.agent ? await h.agent.rewind(ref, opts) : await rewindSession(storeOnly(store), ref, opts));
}

/** The ‹ › switcher (docs/rewind.md#branches); undefined (and a notice) when refused. */
export async function switchBranchOf(h: LeafMoveHost, store: JsonlSessionStore, entryId: string): Promise<SwitchDone | undefined> {
  if (h.store !== store) return undefined;
  return moved(h, h.agent ? await h.agent.switchBranch(entryId) : await switchBranchSession(storeOnly(store), entryId));
}

/** Undo or redo one compaction; false (and a notice saying why) when refused. */
export async function undoCompactionOf(h: LeafMoveHost, ref: string, action: UndoAction): Promise<boolean> {
  if (!h.agent) {
    h.notify('Set up a model first: undoing a compaction measures the result against its context window.');
    return false;
  }
  const r = await h.agent.undoCompaction(ref, action);
  if (!r.ok) {
    h.notify(r.error);
    return false;
  }
  h.remeasure();
  return true;
}
