// Moves of the open chat's leaf the user asks for — rewind, the ‹ › branch switcher, undo/redo of a compaction — always through a facade: the chat's when a model is set up, an offline one over the session file otherwise (docs/rewind.md).
import type { UndoAction } from '../../engine/compaction/undo.js';
import type { RewindOptions } from '../../node/agentSession.js';
import { OfflineChat, type ChatFacade, type LeafMoves } from '../../node/chatFacade.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { RewindDone, RewindFailure, RewindPreview, SwitchDone } from '../../node/sessionRewind.js';

/** What a leaf move needs of the chat service. */
export interface LeafMoveHost {
  readonly agent: ChatFacade | undefined;
  readonly store: JsonlSessionStore | undefined;
  /** Says why a move was refused. */
  notify(text: string): void;
  /** The appended leaf entry already moved the view; the facade may have changed more, so the meter measures again. */
  remeasure(): void;
}

/** The facade that moves `store`'s leaf: the running agent's, or (no model) one over the file alone, without file snapshots. */
function movesOf(h: LeafMoveHost, store: JsonlSessionStore): LeafMoves {
  return h.agent?.runsOn(store) === true ? h.agent : new OfflineChat(store);
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
  return movesOf(h, store).previewRewind(ref);
}

/** Rewind after the user confirmed; undefined (and a notice) when it could not be done. */
export async function rewindOf(h: LeafMoveHost, store: JsonlSessionStore, ref: string, opts: RewindOptions = {}): Promise<RewindDone | undefined> {
  if (h.store !== store) return undefined; // the chat changed while the dialog was open
  return moved(h, await movesOf(h, store).rewind(ref, opts));
}

/** The ‹ › switcher (docs/rewind.md#branches); undefined (and a notice) when refused. */
export async function switchBranchOf(h: LeafMoveHost, store: JsonlSessionStore, entryId: string): Promise<SwitchDone | undefined> {
  if (h.store !== store) return undefined;
  return moved(h, await movesOf(h, store).switchBranch(entryId));
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
