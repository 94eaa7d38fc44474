// Rewind as data: the `leaf` entry that moves the active leaf back to a checkpoint, or the reason it cannot.
import type { Clock, IdSource } from '../ports.js';
import type { Entry, LeafEntry } from './schema.js';

export type RewindPlan = { readonly ok: true; readonly leaf: LeafEntry } | { readonly ok: false; readonly error: string };

/**
 * Nothing is rewritten: the new leaf entry points at the checkpoint entry, so the model input is rebuilt from that
 * branch and the next request is exactly what it was then. Later entries stay in the file on their branch. The
 * latest checkpoint entry with the id wins (a checkpoint id is unique in practice; a copied file may repeat one).
 */
export function planRewind(entries: readonly Entry[], leafId: string | null, checkpointId: string, deps: { readonly ids: IdSource; readonly clock: Clock }): RewindPlan {
  const target = entries.filter((e) => e.type === 'checkpoint' && e.checkpointId === checkpointId).pop();
  if (!target) return { ok: false, error: `Checkpoint ${checkpointId} is not in this chat.` };
  const leaf: LeafEntry = { type: 'leaf', id: deps.ids.next('e_'), parentId: leafId, timestamp: new Date(deps.clock.now()).toISOString(), targetId: target.id, reason: `rewind to ${checkpointId}` };
  return { ok: true, leaf };
}
