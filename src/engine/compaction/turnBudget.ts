// The per-turn compaction budget: escalation and the ineffective count span all barriers of a turn, and a refill loop stops the turn.
import { type CompactionLevel, MAX_COMPACTIONS_PER_TURN, nextLevel } from './cut.js';

/**
 * A compaction is "rapid" when it is needed at the barrier right after the previous one: the tail was refilled by
 * a single request. This many rapid compactions in a row stop the turn instead of compacting before every request.
 */
export const MAX_RAPID_COMPACTIONS = 3;

export function refillLoopMessage(rapid: number, tokens: number, hardLimit: number): string {
  return (
    `The turn was stopped: the context had to be compacted before each of the last ${rapid} requests, because every ` +
    `tool result refills the window (${tokens} tokens against a hard limit of ${hardLimit}). Ask for smaller steps ` +
    '(read files in parts, narrower searches), use a model with a larger context window, or lower capsule.compaction.keepRecentTokens.'
  );
}

/**
 * Rule (documented in docs/compaction.md): with barriers numbered 1, 2, 3 … within a turn (one per request),
 * a compaction at barrier b is rapid when the previous compaction ran at barrier b − 1. When the next compaction
 * would be the MAX_RAPID_COMPACTIONS-th rapid one in a row, the turn stops before it. So between two non-rapid
 * compactions at most two rapid ones run, and a turn of N requests whose results each fill at most 1/k of the
 * room a compaction frees performs at most about N / k + 3 compactions.
 */
export class TurnBudget {
  private turnId: string | undefined;
  private barrier = 0;
  private lastCompactionBarrier = -Infinity;
  private rapidInARow = 0;
  private ineffective = 0;
  private compactions = 0;
  private lastLevel: CompactionLevel | undefined;
  private lastEffective = true;

  /** Called at every preflight; a new turn id resets the budget. */
  enterBarrier(turnId: string | undefined): void {
    // Outside a turn (the user's /compact, the CLI) every call is a budget of its own.
    if (turnId === undefined || turnId !== this.turnId) {
      this.turnId = turnId;
      this.barrier = 0;
      this.lastCompactionBarrier = -Infinity;
      this.rapidInARow = 0;
      this.ineffective = 0;
      this.compactions = 0;
      this.lastLevel = undefined;
      this.lastEffective = true;
    }
    this.barrier += 1;
  }

  /** True when a compaction now would be rapid. */
  wouldBeRapid(): boolean {
    return this.barrier - this.lastCompactionBarrier === 1;
  }

  /** The compaction about to run would be the third rapid one in a row: stop the turn instead. */
  refillLoop(): boolean {
    return this.wouldBeRapid() && this.rapidInARow + 1 >= MAX_RAPID_COMPACTIONS;
  }

  /** Rapid compactions so far in the current run, counting the one that would run now. */
  rapidCount(): number {
    return this.rapidInARow + 1;
  }

  /** Where a barrier's first compaction starts: one level above the turn's last one when that one was ineffective. */
  startLevel(): CompactionLevel {
    if (this.lastLevel === undefined || this.lastEffective) return 0;
    return nextLevel(this.lastLevel) ?? 3;
  }

  /** The turn used up its ineffective compactions: "context compaction exhausted". */
  exhausted(): boolean {
    return this.ineffective >= MAX_COMPACTIONS_PER_TURN;
  }

  /** Records a compaction that ran; several at one barrier (escalation) count as one for the refill rule. */
  record(level: CompactionLevel, effective: boolean): void {
    if (this.lastCompactionBarrier !== this.barrier) {
      this.rapidInARow = this.wouldBeRapid() ? this.rapidInARow + 1 : 0;
      this.lastCompactionBarrier = this.barrier;
    }
    this.compactions += 1;
    if (!effective) this.ineffective += 1;
    this.lastLevel = level;
    this.lastEffective = effective;
  }

  /** Compactions this turn so far. */
  get total(): number {
    return this.compactions;
  }
}
