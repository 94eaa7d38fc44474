// The one terminal outcome of a compaction (docs/behaviour.md#barrier), its persistent result line, and its content-free flight record (docs/behaviour.md#observability).
import type { CapsuleEntry, Trigger, Usage } from '../transcript/schema.js';
import { buildFlightRecord, groupDigits, type FlightOutcome, type FlightRecord } from './flightRecord.js';
import type { CompactionPlan } from './plan.js';
import { retentionCounts, retentionFromDetails } from './retention.js';

interface OutcomeBase {
  readonly operationId: string;
  readonly trigger: Trigger;
  readonly level: number;
  readonly tokensBefore: number;
  readonly durationMs: number;
  /** Summarizer network attempts (0 when no model was asked). */
  readonly attempts: number;
  /** The automatic checkpoint appended before the capsule, when the operation got that far (docs/behaviour.md#rewind). */
  readonly checkpointId?: string;
  /** Where tokensBefore came from (docs/behaviour.md#tokens); tokensAfter is always the local estimate. */
  readonly tokensSource?: 'provider_usage' | 'estimated';
}

export interface CompletedOutcome extends OutcomeBase {
  readonly outcome: 'completed';
  readonly capsule: CapsuleEntry;
  readonly checkpointId: string;
  /** Measured exactly on the continuation (system + tools + capsule pair + pinned + retained tail), with the margin. */
  readonly tokensAfter: number;
  readonly quality: 'full' | 'partial' | 'degraded';
  readonly fallbackReason?: string;
  readonly usage?: Usage;
}

interface SkippedOutcome extends OutcomeBase {
  readonly outcome: 'skipped';
  readonly reason: string;
  /** What the continuation would have measured, when a capsule was generated and then rejected by a gate. */
  readonly tokensAfter?: number;
}

interface CancelledOutcome extends OutcomeBase {
  readonly outcome: 'cancelled';
  readonly reason: string;
}

interface StaleOutcome extends OutcomeBase {
  readonly outcome: 'stale';
  readonly reason: string;
}

interface FailedOutcome extends OutcomeBase {
  readonly outcome: 'failed';
  readonly reason: string;
}

export type CompactionOutcome = CompletedOutcome | SkippedOutcome | CancelledOutcome | StaleOutcome | FailedOutcome;

/** Whole percent reclaimed, e.g. 64 for 52,310 → 18,904. */
export function reclaimedPercent(before: number, after: number): number {
  return before <= 0 ? 0 : Math.round(((before - after) / before) * 100);
}

function triggerLabel(o: CompactionOutcome): string {
  return o.level > 0 ? `${o.trigger}, level ${o.level}` : o.trigger;
}

function oneLine(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Whether the figures were provider-reported or estimated: the after figure is always an estimate. */
function sourceNote(source: OutcomeBase['tokensSource']): string {
  if (source === undefined) return '';
  return source === 'provider_usage' ? ' · tokens: before provider-reported, after estimated' : ' · tokens estimated';
}

/**
 * The one line that stays in the chat after the barrier (docs/behaviour.md#barrier), e.g.
 * `Context compacted (auto_threshold): 52,310 → 18,904 tokens, reclaimed 64% · ck_abc`.
 */
export function outcomeLine(o: CompactionOutcome): string {
  const label = triggerLabel(o);
  switch (o.outcome) {
    case 'completed': {
      const pct = reclaimedPercent(o.tokensBefore, o.tokensAfter);
      const degraded =
        o.quality === 'degraded' ? ' · fallback capsule (degraded)' : o.quality === 'partial' ? ' · partial capsule (some sections from the ledger)' : '';
      return `Context compacted (${label}): ${groupDigits(o.tokensBefore)} → ${groupDigits(o.tokensAfter)} tokens, reclaimed ${pct}% · ${o.checkpointId}${degraded}${sourceNote(o.tokensSource)}`;
    }
    case 'skipped':
      return `Context compaction skipped (${label}): ${oneLine(o.reason)}`;
    case 'cancelled':
      return `Context compaction cancelled (${label}): nothing was appended`;
    case 'stale':
      return `Context compaction discarded (${label}): ${oneLine(o.reason)}`;
    case 'failed':
      return `Context compaction failed (${label}): ${oneLine(o.reason)}`;
  }
}

/** The flight record of an outcome: fields copied one by one, so capsule text can never ride along. */
export function flightRecordOf(o: CompactionOutcome, plan: CompactionPlan, sessionId: string, startedAt: number, endedAt: number): FlightRecord {
  const outcome: FlightOutcome = o.outcome;
  const tokensAfter = o.outcome === 'completed' || o.outcome === 'skipped' ? o.tokensAfter : undefined;
  const retention = o.outcome === 'completed' ? retentionFromDetails(o.capsule.details) : undefined;
  return buildFlightRecord({
    operationId: o.operationId,
    sessionId,
    trigger: o.trigger,
    level: o.level,
    outcome,
    ...(o.outcome === 'completed' ? {} : { reason: o.reason }),
    startedAt,
    endedAt,
    limits: plan.limits,
    tokensBefore: o.tokensBefore,
    tokensSource: plan.tokensSource,
    ...(tokensAfter === undefined ? {} : { tokensAfter }),
    ...(o.checkpointId === undefined ? {} : { checkpointId: o.checkpointId }),
    ...(o.outcome === 'completed' ? { quality: o.quality } : {}),
    attempts: o.attempts,
    ...(o.outcome === 'completed' && o.fallbackReason !== undefined ? { fallbackReason: o.fallbackReason } : {}),
    ...(retention === undefined ? {} : { retention: retentionCounts(retention) }),
    ...(retention?.sectionsFromModel === undefined ? {} : { sectionsFromModel: retention.sectionsFromModel }),
  });
}
