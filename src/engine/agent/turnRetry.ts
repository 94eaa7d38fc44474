// Where Retry of a failed turn starts (docs/behaviour.md#errors): the same user turn, sent again from just before its failed request.
import type { Entry } from '../transcript/schema.js';

export type RetryPoint =
  | {
      readonly ok: true;
      readonly turnId: string;
      /** The turn's user message: it stays, and is not sent twice. */
      readonly userEntryId: string;
      /** The leaf moves here: the entry before the failed request's output (its turn end, a broken-off answer). */
      readonly targetId: string;
    }
  | { readonly ok: false; readonly error: string };

/** Entries that may follow a failure without changing what Retry means: they are bookkeeping, recorded again as needed. */
const BOOKKEEPING: ReadonlySet<Entry['type']> = new Set(['checkpoint', 'leaf', 'model_change', 'system_update']);

/**
 * The last turn of the branch must have failed, with nothing said since (a new message, a compaction or a rewind
 * after it make "the failed request" something else). A broken-off answer of that turn is left on the old branch,
 * so the model is asked again with exactly the input it had.
 */
export function retryPoint(branch: readonly Entry[], turnId?: string): RetryPoint {
  let at = branch.length - 1;
  while (at >= 0 && BOOKKEEPING.has(branch[at]?.type ?? 'leaf')) at--;
  const end = branch[at];
  if (end?.type !== 'turn_end') return { ok: false, error: 'Only the last turn of the chat can be retried, and only right after it failed.' };
  if (end.status !== 'failed')
    return { ok: false, error: `The last turn ${end.status === 'cancelled' ? 'was stopped' : 'completed'}; send a message to continue.` };
  if (turnId !== undefined && end.turnId !== turnId)
    return { ok: false, error: 'That turn is no longer the last one of the chat; only the last failed turn can be retried.' };
  const user = branch.find((e) => e.type === 'user' && e.turnId === end.turnId);
  if (user === undefined) return { ok: false, error: 'The failed turn has no message to send again.' };
  let target = at - 1;
  while (target >= 0) {
    const e = branch[target];
    if (e?.type === 'assistant' && e.turnId === end.turnId && e.finishReason === 'error') target--;
    else break;
  }
  const targetEntry = branch[target];
  if (targetEntry === undefined) return { ok: false, error: 'The failed turn has no message to send again.' };
  return { ok: true, turnId: end.turnId, userEntryId: user.id, targetId: targetEntry.id };
}
