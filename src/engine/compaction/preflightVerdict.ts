// What a preflight returns, and the verdict on a request after its compactions: sent, or blocked and why (docs/behaviour.md#barrier).
import type { Limits } from '../tokens/tokenLimits.js';
import type { BarrierEvent } from './barrierEvents.js';
import { COMPACTION_EXHAUSTED_MESSAGE, MAX_COMPACTIONS_PER_TURN } from './cut.js';
import type { CompactionOutcome } from './outcome.js';

export interface PreflightResult {
  /** False: the caller must not send the request (cancelled, stale, or still over the hard limit). */
  readonly mayProceed: boolean;
  /** Every compaction this barrier ran, in order (empty when no trigger was due). */
  readonly outcomes: readonly CompactionOutcome[];
  /** One persistent result line per compaction (docs/behaviour.md#barrier). */
  readonly lines: readonly string[];
  /** Effective tokens of the request as it stands after the barrier. */
  readonly tokens: number;
  readonly source: 'provider_usage' | 'estimated';
  readonly limits: Limits;
  /** Set with mayProceed false: the one-line reason for the user. */
  readonly error?: string;
  /** The docs/behaviour.md#cut cap was hit (or nothing was left to compact) and the request is still over the hard limit. */
  readonly exhausted: boolean;
}

export interface Verdict {
  /** Set when the request must not be sent: the one-line reason for the user. */
  readonly error: string | undefined;
  readonly reason: Extract<BarrierEvent, { type: 'preflight_blocked' }>['reason'];
  readonly exhausted: boolean;
}

/** Exhausted without using all compactions: nothing was left to cut, or the last one failed. */
function exhaustedMessage(count: number, tokens: number, hardLimit: number, why: string): string {
  return (
    `context compaction exhausted after ${count} compaction${count === 1 ? '' : 's'}: ${why}; the request (${tokens} tokens) still exceeds ` +
    `the hard limit (${hardLimit}), so nothing was sent. Start a new chat, rewind to a checkpoint, or switch to a model with a larger context window.`
  );
}

/** `tokens` is the request after the compactions in `outcomes`; `budgetExhausted`: the turn used up its compactions. */
export function verdictOf(outcomes: readonly CompactionOutcome[], tokens: number, hardLimit: number, budgetExhausted: boolean): Verdict {
  const last = outcomes[outcomes.length - 1];
  const over = tokens > hardLimit;
  if (last?.outcome === 'cancelled') {
    return { reason: 'cancelled', error: 'The turn was cancelled during context compaction; nothing was sent.', exhausted: false };
  }
  if (last?.outcome === 'stale') {
    return { reason: 'stale', error: 'The session changed during context compaction; nothing was sent. Run the request again.', exhausted: false };
  }
  if (over && last?.outcome === 'failed') {
    return {
      reason: 'failed',
      error: `Automatic summarization did not complete (${last.reason}); nothing oversized was sent. Retry, or run /compact.`,
      exhausted: false,
    };
  }
  if (!over) return { reason: 'over_hard_limit', error: undefined, exhausted: false };
  const exhausted = outcomes.length > 0;
  const error =
    budgetExhausted || outcomes.length >= MAX_COMPACTIONS_PER_TURN
      ? COMPACTION_EXHAUSTED_MESSAGE
      : exhaustedMessage(outcomes.length, tokens, hardLimit, last?.outcome === 'skipped' ? last.reason : 'no compaction could run');
  return { reason: exhausted ? 'exhausted' : 'over_hard_limit', error, exhausted };
}
