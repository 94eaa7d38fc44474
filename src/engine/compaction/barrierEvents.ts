// The events the preflight barrier emits for the UI (docs/behaviour.md#barrier): start, live progress, the one terminal outcome, a blocked request.
import type { Trigger, Usage } from '../transcript/schema.js';
import type { ProgressPhase } from './compactor.js';
import type { FlightOutcome } from './flightRecord.js';
import { type CompactionOutcome, reclaimedPercent } from './outcome.js';
import type { PlanSummary } from './plan.js';

type BlockedReason = 'cancelled' | 'stale' | 'failed' | 'exhausted' | 'over_hard_limit' | 'overflow_repeated' | 'refill_loop';

export type BarrierEvent =
  | { readonly type: 'compaction_start'; readonly plan: PlanSummary }
  | {
      readonly type: 'compaction_progress';
      readonly operationId: string;
      /** 0–100, never decreasing within one operation. */
      readonly percent: number;
      readonly phase: ProgressPhase;
      /** E.g. `Compacting context before response · 82%`. */
      readonly label: string;
    }
  | {
      readonly type: 'compaction_end';
      readonly operationId: string;
      readonly outcome: FlightOutcome;
      readonly trigger: Trigger;
      readonly level: number;
      readonly tokensBefore: number;
      readonly tokensAfter?: number;
      readonly reclaimedPct?: number;
      readonly checkpointId?: string;
      readonly quality?: 'full' | 'partial' | 'degraded';
      readonly fallbackReason?: string;
      readonly reason?: string;
      readonly durationMs: number;
      readonly attempts: number;
      /** Cut at least 10% of the request (docs/behaviour.md#cut); false for every outcome that changed nothing. */
      readonly effective: boolean;
      readonly usage?: Usage;
      /** The one persistent result line, e.g. `Context compacted (auto_threshold): 52,310 → 18,904 tokens, reclaimed 64% · ck_abc`. */
      readonly line: string;
    }
  /** The provider's usage figure could not be reconciled; the local estimate is used (reported once per session). */
  | { readonly type: 'calibration_fallback'; readonly message: string }
  | {
      /** The request must not be sent; `message` is the one-line error for the turn. */
      readonly type: 'preflight_blocked';
      readonly reason: BlockedReason;
      readonly message: string;
    };

export function progressLabel(percent: number, beforeResponse: boolean): string {
  return `${beforeResponse ? 'Compacting context before response' : 'Compacting context'} · ${Math.round(percent)}%`;
}

export function endEvent(o: CompactionOutcome, line: string, effective: boolean): BarrierEvent {
  const after = o.outcome === 'completed' || o.outcome === 'skipped' ? o.tokensAfter : undefined;
  return {
    type: 'compaction_end',
    operationId: o.operationId,
    outcome: o.outcome,
    trigger: o.trigger,
    level: o.level,
    tokensBefore: o.tokensBefore,
    ...(o.outcome === 'completed' ? { tokensAfter: o.tokensAfter, reclaimedPct: reclaimedPercent(o.tokensBefore, o.tokensAfter), quality: o.quality } : {}),
    ...(o.outcome !== 'completed' && after !== undefined ? { tokensAfter: after } : {}),
    ...(o.checkpointId === undefined ? {} : { checkpointId: o.checkpointId }),
    ...(o.outcome === 'completed' && o.fallbackReason !== undefined ? { fallbackReason: o.fallbackReason } : {}),
    ...(o.outcome === 'completed' && o.usage !== undefined ? { usage: o.usage } : {}),
    ...(o.outcome === 'completed' ? {} : { reason: o.reason }),
    durationMs: o.durationMs,
    attempts: o.attempts,
    effective: o.outcome === 'completed' && effective,
    line,
  };
}
