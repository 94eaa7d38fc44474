// Where a rewind lands: a checkpoint id or any entry id becomes a safe leaf (never between a tool call and its results), with the message text to put back.
import type { SessionTree } from './tree.js';
import type { Entry } from './schema.js';

const CHECKPOINTS: ReadonlySet<string> = new Set(['checkpoint']);

export interface RewindPoint {
  /** The entry the leaf moves to; null rewinds to before the first message. */
  readonly targetId: string | null;
  /** The checkpoint named or found for the point, when there is one. */
  readonly checkpointId?: string;
  /** The user message that followed the point: it goes back into the composer. */
  readonly message?: { readonly entryId: string; readonly text: string };
  /** The requested point sat inside a tool exchange and was moved to its nearest safe neighbour. */
  readonly adjusted: boolean;
}

export type RewindPointResult = ({ readonly ok: true } & RewindPoint) | { readonly ok: false; readonly error: string };

/** Calls of the latest assistant on `path` that no later entry of `path` answers. */
function openCalls(path: readonly Entry[]): { readonly assistant?: Entry; readonly ids: ReadonlySet<string> } {
  let at = path.length - 1;
  while (at >= 0 && path[at]?.type !== 'assistant') at--;
  const a = path[at];
  if (a?.type !== 'assistant' || a.toolCalls.length === 0) return { ids: new Set() };
  const answered = new Set(path.slice(at + 1).flatMap((e) => (e.type === 'tool_result' ? [e.toolCallId] : [])));
  return { assistant: a, ids: new Set(a.toolCalls.map((c) => c.id).filter((id) => !answered.has(id))) };
}

/** Moves `target` off an unanswered tool call: after the batch's last result when every result exists, else before the call. */
function safeTarget(tree: SessionTree, target: Entry): { readonly id: string | null; readonly adjusted: boolean } {
  const open = openCalls(tree.branch(target.id));
  if (open.ids.size === 0) return { id: target.id, adjusted: false };
  const pending = new Set(open.ids);
  let at: Entry = target;
  while (pending.size > 0) {
    const next = tree.children(at.id).find((e) => e.type === 'checkpoint' || (e.type === 'tool_result' && pending.has(e.toolCallId)));
    if (next === undefined) break;
    if (next.type === 'tool_result') pending.delete(next.toolCallId);
    at = next;
  }
  if (pending.size === 0) return { id: at.id, adjusted: true };
  return { id: open.assistant?.parentId ?? null, adjusted: true };
}

function userAfter(tree: SessionTree, checkpoint: Entry): Entry | undefined {
  if (checkpoint.type === 'checkpoint' && checkpoint.forEntryId !== undefined) {
    const u = tree.get(checkpoint.forEntryId);
    if (u?.type === 'user') return u;
  }
  return tree.children(checkpoint.id).find((e) => e.type === 'user');
}

/**
 * The rewind point of `ref` (a `ck_…` id or an entry id):
 * - a user message → the moment before it was sent (its parent, normally its own checkpoint), the text back in the composer;
 * - a message's checkpoint → the same;
 * - a compaction's checkpoint or capsule → just after the capsule, so the model input is the compacted one, under the hard
 *   limit (the checkpoint itself is taken before compaction, when the input was over it);
 * - any other entry → that entry, moved off an unanswered tool call.
 */
export function resolveRewindPoint(tree: SessionTree, ref: string): RewindPointResult {
  const byCheckpoint = ref.startsWith('ck_')
    ? tree
        .ofKinds(CHECKPOINTS)
        .filter((e) => e.type === 'checkpoint' && e.checkpointId === ref)
        .pop()
    : undefined;
  const entry = byCheckpoint ?? tree.get(ref);
  if (entry === undefined) return { ok: false, error: `${ref.startsWith('ck_') ? 'Checkpoint' : 'Entry'} ${ref} is not in this chat.` };
  switch (entry.type) {
    case 'leaf':
      return { ok: false, error: `Entry ${ref} moves the leaf; it is not a moment of the conversation.` };
    case 'user': {
      const parent = entry.parentId === null ? undefined : tree.get(entry.parentId);
      const ck = parent?.type === 'checkpoint' ? { checkpointId: parent.checkpointId } : {};
      const before = parent === undefined ? { id: null, adjusted: false } : safeTarget(tree, parent);
      return { ok: true, targetId: before.id, ...ck, message: { entryId: entry.id, text: entry.content }, adjusted: before.adjusted };
    }
    case 'capsule':
      return { ok: true, targetId: entry.id, checkpointId: entry.checkpointId, adjusted: false };
    case 'checkpoint': {
      const capsule = tree.children(entry.id).find((e) => e.type === 'capsule' && e.checkpointId === entry.checkpointId);
      if (capsule !== undefined) return { ok: true, targetId: capsule.id, checkpointId: entry.checkpointId, adjusted: false };
      const safe = safeTarget(tree, entry);
      const u = userAfter(tree, entry);
      return {
        ok: true,
        targetId: safe.id,
        checkpointId: entry.checkpointId,
        ...(u?.type === 'user' ? { message: { entryId: u.id, text: u.content } } : {}),
        adjusted: safe.adjusted,
      };
    }
    case 'assistant':
    case 'tool_result':
    case 'system_update':
    case 'model_change':
    case 'turn_end':
    case 'compaction_undo': {
      const safe = safeTarget(tree, entry);
      return { ok: true, targetId: safe.id, adjusted: safe.adjusted };
    }
  }
}
