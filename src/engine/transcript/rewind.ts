// Rewind as data (docs/behaviour.md#rewind): the `leaf` entry that moves the leaf to a checkpoint, never to a point with an unanswered tool call.
/**
 * `planRewind` is what the engine facade's rewind (the CLI's `capsule rewind <session> <ck_…>` and the checkpoints
 * tree's "Rewind Here") uses; `rewindTo` applies it to a store. It appends one `leaf` entry (nothing is rewritten) and returns the entry the leaf
 * now points at. A checkpoint that sits between an assistant's tool calls and their results (older sessions, where
 * the agent's checkpoint tool wrote it mid-batch) is not a safe place: the leaf lands after the batch's last result
 * instead, or before the call when the results were never written, so the model input never holds an open call.
 */
import type { Clock, IdSource, TranscriptStore } from '../ports.js';
import type { Entry, LeafEntry } from './schema.js';

export type RewindResult =
  | { readonly ok: true; readonly checkpointId: string; readonly targetId: string; readonly leafEntryId: string; readonly adjusted: boolean }
  | { readonly ok: false; readonly error: string };

export type RewindTarget = { readonly ok: true; readonly targetId: string; readonly adjusted: boolean } | { readonly ok: false; readonly error: string };

/** Calls of the latest assistant on `path` that no later entry of `path` answers. */
function openCalls(path: readonly Entry[]): { readonly assistant?: Entry; readonly ids: ReadonlySet<string> } {
  let at = path.length - 1;
  while (at >= 0 && path[at]?.type !== 'assistant') at--;
  const a = path[at];
  if (a?.type !== 'assistant' || a.toolCalls.length === 0) return { ids: new Set() };
  const answered = new Set(path.slice(at + 1).flatMap((e) => (e.type === 'tool_result' ? [e.toolCallId] : [])));
  return { assistant: a, ids: new Set(a.toolCalls.map((c) => c.id).filter((id) => !answered.has(id))) };
}

/** The safe entry to move the leaf to for a checkpoint; pure, over the file's entries. */
export function rewindTarget(entries: readonly Entry[], checkpointId: string): RewindTarget {
  const target = entries.filter((e) => e.type === 'checkpoint' && e.checkpointId === checkpointId).pop();
  if (target === undefined) return { ok: false, error: `Checkpoint ${checkpointId} is not in this chat.` };
  const byId = new Map(entries.filter((e) => e.type !== 'leaf').map((e) => [e.id, e]));
  const path: Entry[] = [];
  for (let cur: Entry | undefined = target; cur !== undefined && path.length <= byId.size; cur = cur.parentId === null ? undefined : byId.get(cur.parentId)) path.unshift(cur);
  const open = openCalls(path);
  if (open.ids.size === 0) return { ok: true, targetId: target.id, adjusted: false };
  // Walk down from the checkpoint along the entries that answer the open calls (and checkpoints among them).
  const pending = new Set(open.ids);
  let at: Entry = target;
  while (pending.size > 0) {
    const next = entries.find((e) => e.parentId === at.id && e.type !== 'leaf' && (e.type === 'checkpoint' || (e.type === 'tool_result' && pending.has(e.toolCallId))));
    if (next === undefined) break;
    if (next.type === 'tool_result') pending.delete(next.toolCallId);
    at = next;
  }
  if (pending.size === 0) return { ok: true, targetId: at.id, adjusted: true };
  // The results were never written: rewind to just before the call instead.
  const before = open.assistant?.parentId ?? null;
  if (before === null) return { ok: false, error: `checkpoint ${checkpointId} sits inside a tool call whose results were never written, and nothing precedes it` };
  return { ok: true, targetId: before, adjusted: true };
}

export type RewindPlan = { readonly ok: true; readonly leaf: LeafEntry; readonly adjusted: boolean } | { readonly ok: false; readonly error: string };

/**
 * Nothing is rewritten: the new leaf entry points at the checkpoint (or, for a checkpoint inside a tool batch, just
 * past the batch's results), so the model input is rebuilt from that branch. Later entries stay in the file.
 */
export function planRewind(entries: readonly Entry[], leafId: string | null, checkpointId: string, deps: { readonly ids: IdSource; readonly clock: Pick<Clock, 'now'> }): RewindPlan {
  const t = rewindTarget(entries, checkpointId);
  if (!t.ok) return t;
  const leaf: LeafEntry = {
    type: 'leaf',
    id: deps.ids.next('e_'),
    parentId: leafId,
    timestamp: new Date(deps.clock.now()).toISOString(),
    targetId: t.targetId,
    reason: `rewind to ${checkpointId}${t.adjusted ? ' (moved off an unanswered tool call)' : ''}`,
  };
  return { ok: true, leaf, adjusted: t.adjusted };
}

/** Appends the `leaf` entry that makes the rewind; the store must be writable. */
export async function rewindTo(store: TranscriptStore, checkpointId: string, deps: { readonly ids: IdSource; readonly clock: Pick<Clock, 'now'> }): Promise<RewindResult> {
  if (store.readOnly) return { ok: false, error: `the session is read-only (${store.readOnlyReason ?? 'open elsewhere'}); it cannot be rewound` };
  const plan = planRewind(store.entries(), store.leafId(), checkpointId, deps);
  if (!plan.ok) return plan;
  await store.append(plan.leaf);
  return { ok: true, checkpointId, targetId: plan.leaf.targetId ?? '', leafEntryId: plan.leaf.id, adjusted: plan.adjusted };
}
