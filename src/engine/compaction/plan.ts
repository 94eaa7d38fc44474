// The immutable compaction plan of docs/behaviour.md#barrier: what the barrier decided before any await, frozen so nothing can drift.
import type { Entry, Trigger } from '../transcript/schema.js';
import { type CompactionLevel, type CutResult, isNothingToCompact, planCut } from './cut.js';
import { planCutAt } from './cutAt.js';

interface PlanLimits {
  readonly contextWindow: number;
  readonly hardLimit: number;
  readonly softLimit: number;
}

export interface CompactionPlan {
  readonly operationId: string;
  readonly trigger: Trigger;
  /** Fail-closed: the turn's request must not be sent unless the context ends up under the hard limit. */
  readonly mandatory: boolean;
  /** Exempt from the post-generation ROI gate (docs/behaviour.md#roi): hard_limit, context_overflow, user, the mandatory model switch. */
  readonly roiExempt: boolean;
  /** The user's `/compact <focus>` text; data for the summary instruction, never an instruction to us. */
  readonly focus?: string;
  /** The leaf the cut was computed against; the capsule is appended only while it (or our checkpoint) is still the leaf. */
  readonly leafAtPlan: string | null;
  readonly level: CompactionLevel;
  /** The cut, or why there is nothing safe to compact (then the operation ends `skipped` without touching the session). */
  readonly cut: CutResult;
  /** Effective tokens (docs/behaviour.md#tokens) of the request at plan time. */
  readonly tokensBefore: number;
  readonly tokensSource: 'provider_usage' | 'estimated';
  readonly limits: PlanLimits;
  readonly keepRecentTokens: number;
  readonly turnId?: string;
  /** 1-based index of this compaction within the current escalation sequence (at most MAX_COMPACTIONS_PER_TURN). */
  readonly sequence: number;
}

export interface MakePlanArgs {
  readonly operationId: string;
  readonly trigger: Trigger;
  readonly mandatory: boolean;
  readonly roiExempt: boolean;
  readonly focus?: string;
  readonly branch: readonly Entry[];
  readonly leafAtPlan: string | null;
  readonly level: CompactionLevel;
  readonly tokensOf: (e: Entry) => number;
  readonly tokensBefore: number;
  readonly tokensSource: 'provider_usage' | 'estimated';
  readonly limits: PlanLimits;
  readonly keepRecentTokens: number;
  readonly turnId?: string;
  readonly sequence?: number;
  /** An explicit cut right before this user message (compact up to here); the level is ignored. */
  readonly cutBefore?: string;
  /** Set when a gate already decided against compacting (e.g. the docs/behaviour.md#roi pre-generation ROI gate): the plan ends skipped. */
  readonly skipReason?: string;
}

function freezeCut(cut: CutResult): CutResult {
  if (isNothingToCompact(cut)) return Object.freeze({ ...cut });
  // Entries belong to the store and are immutable by convention; the lists that select them are frozen here.
  return Object.freeze({
    ...cut,
    summarize: Object.freeze([...cut.summarize]) as Entry[],
    kept: Object.freeze([...cut.kept]) as Entry[],
    pinnedEntryIds: Object.freeze([...cut.pinnedEntryIds]) as string[],
    boundedResultIds: Object.freeze([...cut.boundedResultIds]) as string[],
  });
}

/** Computes the cut for `level` and freezes the whole plan. */
export function makePlan(a: MakePlanArgs): CompactionPlan {
  const planned: CutResult =
    a.skipReason !== undefined
      ? { nothingToCompact: true, reason: a.skipReason }
      : a.cutBefore !== undefined
        ? planCutAt(a.branch, a.tokensOf, a.cutBefore)
        : planCut({
            branch: a.branch,
            tokensOf: a.tokensOf,
            keepRecentTokens: a.keepRecentTokens,
            level: a.level,
            ...(a.turnId === undefined ? {} : { activeTurnId: a.turnId }),
          });
  const cut: CutResult =
    a.skipReason === undefined && isNothingToCompact(planned) ? { nothingToCompact: true, reason: `nothing safe to compact: ${planned.reason}` } : planned;
  const focus = a.focus?.trim();
  return Object.freeze({
    operationId: a.operationId,
    trigger: a.trigger,
    mandatory: a.mandatory,
    roiExempt: a.roiExempt,
    ...(focus ? { focus } : {}),
    leafAtPlan: a.leafAtPlan,
    level: a.level,
    cut: freezeCut(cut),
    tokensBefore: a.tokensBefore,
    tokensSource: a.tokensSource,
    limits: Object.freeze({ contextWindow: a.limits.contextWindow, hardLimit: a.limits.hardLimit, softLimit: a.limits.softLimit }),
    keepRecentTokens: a.keepRecentTokens,
    ...(a.turnId === undefined ? {} : { turnId: a.turnId }),
    sequence: a.sequence ?? 1,
  });
}

/** A short, content-free description of a plan for `compaction_start` events and logs. */
export interface PlanSummary {
  readonly operationId: string;
  readonly trigger: Trigger;
  readonly mandatory: boolean;
  readonly level: CompactionLevel;
  readonly sequence: number;
  readonly tokensBefore: number;
  readonly tokensSource: 'provider_usage' | 'estimated';
  readonly limits: PlanLimits;
  /** Entries summarized and kept; 0/0 when there is nothing to compact. */
  readonly summarizeEntries: number;
  readonly keptEntries: number;
  readonly summarizedTokens: number;
  readonly truncateResults: boolean;
  readonly turnId?: string;
}

export function summarizePlan(p: CompactionPlan): PlanSummary {
  const c = p.cut;
  const nothing = isNothingToCompact(c);
  return {
    operationId: p.operationId,
    trigger: p.trigger,
    mandatory: p.mandatory,
    level: p.level,
    sequence: p.sequence,
    tokensBefore: p.tokensBefore,
    tokensSource: p.tokensSource,
    limits: p.limits,
    summarizeEntries: nothing ? 0 : c.summarize.length,
    keptEntries: nothing ? 0 : c.kept.length,
    summarizedTokens: nothing ? 0 : c.summarizedTokens,
    truncateResults: nothing ? false : c.truncateResults,
    ...(p.turnId === undefined ? {} : { turnId: p.turnId }),
  };
}
