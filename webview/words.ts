// Protocol values in the words users read: compaction reasons, barrier outcomes, checkpoint kinds, tool states.
import type { BarrierOutcome, BarrierView, CheckpointKindView, ToolStatus, TriggerView } from '../src/protocol/messages.js';
import { duration, percent, shortTokens, TRIGGER_WORDS } from '../src/protocol/format.js';

/** The reason a compaction happened, as the card and the barrier line say it. */
const REASONS: Readonly<Record<TriggerView, string>> = TRIGGER_WORDS as Readonly<Record<TriggerView, string>>;

export function reason(t: TriggerView | string): string {
  return (REASONS as Readonly<Record<string, string>>)[t] ?? t;
}

const OUTCOMES: Readonly<Record<BarrierOutcome, string>> = {
  completed: 'Context compacted',
  skipped: 'Compaction skipped',
  cancelled: 'Compaction cancelled',
  stale: 'Compaction discarded (the chat moved on)',
  failed: 'Compaction failed',
};

export const CHECKPOINT_KINDS: Readonly<Record<CheckpointKindView, string>> = {
  auto: 'Automatic checkpoint',
  milestone: 'Milestone',
  plan_pivot: 'Plan pivot',
  user: 'Checkpoint',
};

export const TOOL_STATES: Readonly<Record<ToolStatus, { readonly icon: string; readonly label: string }>> = {
  running: { icon: 'loading', label: 'running' },
  ok: { icon: 'pass', label: 'done' },
  error: { icon: 'error', label: 'failed' },
  cancelled: { icon: 'circle-slash', label: 'cancelled' },
};

/** (before − after) / before, 0 when there was nothing before. */
export function reclaimedRatio(before: number, after: number): number {
  return before > 0 ? Math.max(0, (before - after) / before) : 0;
}

/** The live line while the barrier runs: `Compacting context before response · 82%`. */
export function barrierLiveLine(b: BarrierView): string {
  return `Compacting context before response · ${Math.round(b.percent)}%`;
}

/** The persistent line after the barrier: outcome, reason, before → after, reclaimed %, checkpoint. */
export function barrierResultLine(b: BarrierView): string {
  if (b.line !== undefined && b.line.length > 0) return b.line;
  const r = b.result;
  const parts = [r ? OUTCOMES[r.outcome] : OUTCOMES.completed, reason(b.trigger)];
  if (r?.tokensBefore !== undefined && r.tokensAfter !== undefined) {
    parts.push(`${shortTokens(r.tokensBefore)} → ${shortTokens(r.tokensAfter)} tokens`);
    parts.push(`reclaimed ${percent(reclaimedRatio(r.tokensBefore, r.tokensAfter))}`);
  }
  if (r?.durationMs !== undefined) parts.push(duration(r.durationMs));
  if (r?.quality === 'degraded') parts.push('simpler summary (fallback)');
  // The checkpoint id is for the details (the eye button opens the capsule); the line says what happened.
  return parts.join(' · ');
}
