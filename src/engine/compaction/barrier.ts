// The deferred preflight barrier of docs/behaviour.md#barrier: measure, pick a trigger, freeze a plan, compact (escalating, docs/behaviour.md#cut), decide if the request may go.
import type { ResolvedSettings } from '../config.js';
import { evaluateRoi } from '../tokens/budget.js';
import { effectiveTokens, requestFingerprint } from '../tokens/calibration.js';
import { estimateRequest } from '../tokens/estimate.js';
import { limitsOf, type Limits } from '../tokens/tokenLimits.js';
import { buildModelInput } from '../transcript/modelInput.js';
import type { Entry, Trigger } from '../transcript/schema.js';
import { BranchReader } from './branchReader.js';
import { type CompactionDeps, runCompaction } from './compactor.js';
import { type CompactionLevel, COMPACTION_EXHAUSTED_MESSAGE, escalationLevels, isEffective, isNothingToCompact, nextLevel } from './cut.js';
import { type ForecastInput, levelThatFits, softGateMiss } from './forecast.js';
import { type BarrierEvent, endEvent, progressLabel } from './barrierEvents.js';
import { type CompactionOutcome, outcomeLine } from './outcome.js';
import { type CompactionPlan, makePlan, summarizePlan } from './plan.js';
import type { SummaryMemo } from './summaryRequest.js';
import { isSoftTrigger, type TriggerChoice, type TriggerState } from './triggers.js';
import { refillLoopMessage, TurnBudget } from './turnBudget.js';
import { verdictOf, type PreflightResult } from './preflightVerdict.js';

export type { BarrierEvent } from './barrierEvents.js';
export type { PreflightResult } from './preflightVerdict.js';

export interface BarrierModelInfo {
  /** Provider and model of the requests the agent sends: part of the calibration fingerprint (docs/behaviour.md#tokens). */
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
}

export interface BarrierDeps extends Omit<CompactionDeps, 'settings' | 'maxOutputTokens' | 'branches'> {
  readonly resolved: ResolvedSettings;
  readonly modelInfo: BarrierModelInfo;
  readonly triggers: TriggerState;
  readonly listener?: (e: BarrierEvent) => void;
}

interface Measure {
  /** The reachable tail (reachableTail): everything a cut plan reads, root-most entries left out. */
  readonly branch: readonly Entry[];
  readonly leaf: string | null;
  readonly tokens: number;
  readonly source: 'provider_usage' | 'estimated';
  /** The local estimate alone, for when the provider's figure cannot be reconciled (calibration fallback). */
  readonly estimate: number;
}

interface Sequence {
  readonly signal: AbortSignal;
  readonly turnId?: string;
  readonly choice: TriggerChoice;
  readonly startLevel: CompactionLevel;
  /** Label the progress as "before response" (a turn is waiting) rather than a standalone compaction. */
  readonly beforeResponse: boolean;
}

export class PreflightBarrier {
  private deps: BarrierDeps;
  private readonly branches: BranchReader;
  private queue: Promise<unknown> = Promise.resolve();
  private lastLevel: { turnId: string | undefined; level: CompactionLevel } | undefined;
  /** Summary requests sent in the current turn: an escalation that rebuilds the same request reuses its answer. */
  private summaries: { turnId: string | undefined; memo: SummaryMemo } | undefined;
  /** Escalation, the ineffective count and the refill rule span every barrier of one turn (docs/compaction.md, the per-turn budget). */
  private readonly budget = new TurnBudget();
  private calibrationWarned = false;

  constructor(deps: BarrierDeps) {
    this.deps = deps;
    this.branches = new BranchReader(deps.store);
  }

  /** New settings, model, tools or token cache (another model's tokenizer) take effect at the next barrier. */
  update(patch: Partial<Pick<BarrierDeps, 'resolved' | 'modelInfo' | 'tools' | 'model' | 'defaultSystem' | 'cache'>>): void {
    this.deps = { ...this.deps, ...patch };
  }

  limits(): Limits {
    return limitsOf(this.deps.modelInfo, this.deps.resolved.settings);
  }

  /**
   * Effective tokens (docs/behaviour.md#tokens) of the request the current branch would produce. While the tokenizer's
   * table is not built the figure may rest on upper bounds (docs/behaviour.md#cold-start): safe for a request, but a
   * figure that reaches the soft limit (or `exactFrom`, for a caller deciding at another line) is recounted exactly,
   * so no compaction, refusal or learned window ever comes from an overcount.
   */
  measure(exactFrom = Number.POSITIVE_INFINITY): Measure {
    const cache = this.deps.cache;
    const before = cache.provisional;
    const m = this.measureOnce();
    if (cache.provisional === before || m.tokens < Math.min(exactFrom, this.limits().softLimit)) return m;
    cache.settle();
    return this.measureOnce();
  }

  private measureOnce(): Measure {
    const d = this.deps;
    // Only the reachable tail is read, so a preflight (and a plan made from it) costs the same at 1k and 1M entries.
    const tail = this.branches.tail();
    const input = buildModelInput(tail, d.defaultSystem);
    const estimate = estimateRequest(input, d.tools, d.cache, d.modelInfo.maxOutputTokens);
    const currentFingerprint = requestFingerprint(d.modelInfo.provider, d.modelInfo.model, input.system, d.tools);
    // The calibration anchor never lies before the latest capsule, which the tail always holds.
    const eff = effectiveTokens({ branch: tail, input, estimate, currentFingerprint, cache: d.cache });
    const leaf = d.store.leafId();
    const m: Measure = {
      // The plan reads only the span since the latest capsule (its pinned and kept entries included), all of it in
      // the reachable tail: planning from the tail costs the same as from the whole branch, and never walks to the root.
      branch: tail,
      leaf,
      tokens: eff.tokens,
      source: eff.source,
      estimate: eff.estimate,
    };
    // A provider cannot have accepted a prompt larger than the whole window: such a report is noise, not a measurement.
    return eff.source === 'provider_usage' && eff.tokens > d.modelInfo.contextWindow ? this.calibrationFallback(m, this.limits(), undefined) : m;
  }

  /**
   * Before every inference: picks the highest-priority due trigger (docs/behaviour.md#triggers) and runs it to a terminal outcome,
   * escalating while the request stays over the hard limit. Serialized: two barriers never overlap.
   * The budget is the turn's (TurnBudget): at most MAX_COMPACTIONS_PER_TURN ineffective compactions per turn,
   * and a compaction needed right after the previous one for the third time in a row stops the turn instead of
   * compacting before every request. A request is never sent while still over the hard limit.
   */
  preflight(args: {
    readonly signal: AbortSignal;
    readonly turnId?: string;
    readonly userRequest?: { readonly focus?: string };
    readonly mandatoryModelSwitch?: boolean;
  }): Promise<PreflightResult> {
    return this.serialized(async () => {
      const t = this.deps.triggers;
      if (args.turnId !== undefined && t.currentTurn() !== args.turnId) t.beginTurn(args.turnId);
      const m = this.measure();
      const limits = this.limits();
      const s = this.deps.resolved.settings;
      const roi = evaluateRoi(m.tokens, s.keepRecentTokens, s.minReclaimableTokens, s.minSavingsRatio);
      const choice = t.choose({
        effective: m.tokens,
        limits,
        settings: this.deps.resolved,
        roi,
        ...(args.mandatoryModelSwitch === undefined ? {} : { mandatoryModelSwitch: args.mandatoryModelSwitch }),
        ...(args.userRequest === undefined ? {} : { userRequested: args.userRequest }),
      });
      this.budget.enterBarrier(args.userRequest === undefined ? args.turnId : undefined);
      if (choice === undefined) return this.result([], m, limits);
      if (args.userRequest === undefined && this.budget.refillLoop()) {
        // A soft compaction may simply wait; a mandatory one cannot, and compacting before every request is the loop.
        if (!choice.mandatory) return this.result([], m, limits);
        const error = refillLoopMessage(this.budget.rapidCount(), m.tokens, limits.hardLimit);
        this.emit({ type: 'preflight_blocked', reason: 'refill_loop', message: error });
        return { ...this.result([], m, limits, true), mayProceed: false, error, exhausted: false };
      }
      if (args.userRequest === undefined && choice.mandatory && this.budget.exhausted()) {
        this.emit({ type: 'preflight_blocked', reason: 'exhausted', message: COMPACTION_EXHAUSTED_MESSAGE });
        return { ...this.result([], m, limits, true), mayProceed: false, error: COMPACTION_EXHAUSTED_MESSAGE, exhausted: true };
      }
      const startLevel = args.userRequest === undefined ? this.budget.startLevel() : 0;
      return this.sequence({
        signal: args.signal,
        ...(args.turnId === undefined ? {} : { turnId: args.turnId }),
        choice,
        startLevel,
        beforeResponse: args.userRequest === undefined,
      });
    });
  }

  /** The user's `/compact [focus]` outside a turn: no ROI gate; a no-op `skipped` when nothing is safe to compact. */
  compactNow(focus?: string, signal: AbortSignal = new AbortController().signal): Promise<PreflightResult> {
    return this.preflight({ signal, userRequest: focus === undefined ? {} : { focus } });
  }

  /** A compaction with a given trigger whether or not it is due (CLI `--trigger`); soft ones still pass the ROI gates. */
  compactWith(
    trigger: Trigger,
    opts: { readonly signal?: AbortSignal; readonly focus?: string; readonly turnId?: string; readonly cutBefore?: string } = {},
  ): Promise<PreflightResult> {
    const mandatory = trigger === 'hard_limit' || trigger === 'context_overflow';
    const choice: TriggerChoice = {
      trigger,
      mandatory,
      roiExempt: !isSoftTrigger(trigger),
      ...(opts.focus === undefined ? {} : { focus: opts.focus }),
      ...(opts.cutBefore === undefined ? {} : { cutBefore: opts.cutBefore }),
    };
    return this.serialized(() => {
      this.budget.enterBarrier(undefined);
      return this.sequence({
        signal: opts.signal ?? new AbortController().signal,
        ...(opts.turnId === undefined ? {} : { turnId: opts.turnId }),
        choice,
        startLevel: 0,
        beforeResponse: false,
      });
    });
  }

  /**
   * docs/behaviour.md#overflow: the provider reported a real overflow. One mandatory recovery per turn, one level above the turn's last
   * compaction; a second overflow in the same turn ends it (mayProceed false).
   */
  recoverOverflow(args: { readonly signal: AbortSignal; readonly turnId?: string }): Promise<PreflightResult> {
    return this.serialized(async () => {
      const t = this.deps.triggers;
      if (args.turnId !== undefined && t.currentTurn() !== args.turnId) t.beginTurn(args.turnId);
      const choice = t.overflowRecovery();
      if (choice === undefined) {
        const m = this.measure();
        const error = "the provider reported a context overflow again after this turn's recovery compaction; the turn ends without resending";
        this.emit({ type: 'preflight_blocked', reason: 'overflow_repeated', message: error });
        return { ...this.result([], m, this.limits()), mayProceed: false, error };
      }
      const last = this.lastLevel?.turnId === args.turnId ? this.lastLevel?.level : undefined;
      const startLevel = nextLevel(last ?? 0) ?? 3;
      return this.sequence({ signal: args.signal, ...(args.turnId === undefined ? {} : { turnId: args.turnId }), choice, startLevel, beforeResponse: true });
    });
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private emit(e: BarrierEvent): void {
    try {
      this.deps.listener?.(e);
    } catch {
      // the UI must never break a barrier
    }
  }

  private plan(seq: Sequence, choice: TriggerChoice, level: CompactionLevel, m: Measure, sequence: number): CompactionPlan {
    const d = this.deps;
    const limits = this.limits();
    const s = d.resolved.settings;
    const base = {
      operationId: d.ids.next('op_'),
      trigger: choice.trigger,
      mandatory: choice.mandatory,
      roiExempt: choice.roiExempt,
      ...(choice.focus === undefined ? {} : { focus: choice.focus }),
      ...(choice.cutBefore === undefined ? {} : { cutBefore: choice.cutBefore }),
      branch: m.branch,
      leafAtPlan: m.leaf,
      tokensOf: (e: Entry): number => d.cache.tokensOf(e),
      tokensBefore: m.tokens,
      tokensSource: m.source,
      limits: { contextWindow: limits.contextWindow, hardLimit: limits.hardLimit, softLimit: limits.softLimit },
      keepRecentTokens: s.keepRecentTokens,
      ...(seq.turnId === undefined ? {} : { turnId: seq.turnId }),
      sequence,
    };
    // docs/behaviour.md#roi before generating, for soft triggers only (the preflight's choose() already applied it; compactWith did not).
    const roi = evaluateRoi(m.tokens, s.keepRecentTokens, s.minReclaimableTokens, s.minSavingsRatio);
    if (!choice.roiExempt && !roi.pass) {
      const why = `only ${roi.reclaimable} tokens (${Math.round(roi.savingsRatio * 100)}%) are reclaimable; ${choice.trigger} needs at least ${s.minReclaimableTokens} and ${Math.round(s.minSavingsRatio * 100)}%`;
      return makePlan({ ...base, level, skipReason: why });
    }
    const f: ForecastInput = { system: buildModelInput(m.branch, d.defaultSystem).system, tools: d.tools, cache: d.cache };
    if (choice.cutBefore === undefined && choice.mandatory) {
      // Decide before paying: the level whose known tail will fit, not a shallow summary first. Planning is free,
      // only a run counts against the cap; with nothing to compact at any level the plan below says so.
      const found = levelThatFits(
        escalationLevels().filter((l) => l >= level),
        (l) => makePlan({ ...base, level: l }).cut,
        m.tokens,
        limits.hardLimit,
        f,
      );
      if (found !== undefined && !found.canFit) {
        const why = `nothing safe to compact: no level brings the request under the hard limit (even the smallest capsule at level ${String(found.level)} leaves about ${found.best} tokens against ${limits.hardLimit}), so no summary was requested`;
        return makePlan({ ...base, level: found.level, skipReason: why });
      }
      if (found !== undefined) return makePlan({ ...base, level: found.level });
    }
    const plan = makePlan({ ...base, level });
    if (!choice.roiExempt && choice.cutBefore === undefined) {
      const miss = softGateMiss(m.tokens, plan.cut, f, s.minReclaimableTokens, s.minSavingsRatio);
      if (miss !== undefined) return makePlan({ ...base, level, skipReason: miss });
    }
    return plan;
  }

  private async sequence(seq: Sequence): Promise<PreflightResult> {
    // A compaction plans cuts and records tokens from the counts: those are exact, never upper bounds.
    this.deps.cache.settle();
    const outcomes: CompactionOutcome[] = [];
    let choice = seq.choice;
    let level = seq.startLevel;
    let m = this.measure();
    let limits = this.limits();
    if (seq.turnId === undefined || this.summaries?.turnId !== seq.turnId) this.summaries = { turnId: seq.turnId, memo: new Map() };
    const summaryMemo = this.summaries.memo;
    for (;;) {
      const plan = this.plan(seq, choice, level, m, outcomes.length + 1);
      level = plan.level;
      this.emit({ type: 'compaction_start', plan: summarizePlan(plan) });
      const outcome = await runCompaction(
        { ...this.deps, settings: this.deps.resolved.settings, maxOutputTokens: this.deps.modelInfo.maxOutputTokens, branches: this.branches, summaryMemo },
        plan,
        seq.signal,
        (percent, phase) =>
          this.emit({ type: 'compaction_progress', operationId: plan.operationId, percent, phase, label: progressLabel(percent, seq.beforeResponse) }),
      );
      outcomes.push(outcome);
      if (outcome.outcome === 'completed') this.lastLevel = { turnId: seq.turnId, level: plan.level };
      m = this.measure();
      limits = this.limits();
      const effective = isEffective(plan.tokensBefore, m.tokens);
      this.emit(endEvent(outcome, outcomeLine(outcome), effective));
      if (outcome.outcome !== 'cancelled' && outcome.outcome !== 'stale' && !(outcome.outcome === 'skipped' && !plan.mandatory))
        this.budget.record(plan.level, effective);
      if (outcome.outcome === 'cancelled' || outcome.outcome === 'stale' || outcome.outcome === 'failed') break;
      // plan() already looked at every deeper level of a mandatory compaction: another round could only skip again.
      if (plan.mandatory && isNothingToCompact(plan.cut)) break;
      const over = m.tokens > limits.hardLimit;
      // docs/behaviour.md#cut: a mandatory compaction that did not cut 10% escalates even when it squeezed under the limit.
      if (!over && !(plan.mandatory && !effective)) break;
      if (this.budget.exhausted()) break;
      const next = nextLevel(level);
      if (next === undefined) break;
      level = next;
      if (over && !choice.mandatory)
        choice = { trigger: 'hard_limit', mandatory: true, roiExempt: true, ...(choice.focus === undefined ? {} : { focus: choice.focus }) };
    }
    return this.result(outcomes, m, limits);
  }

  /**
   * A provider figure never blocks a chat for good: when the usage projection is over the hard limit, compaction
   * could not bring it down and our own count says the request fits, the local estimate decides (said once).
   */
  private calibrationFallback(m: Measure, limits: Limits, last: CompactionOutcome | undefined): Measure {
    const stuck = m.source === 'provider_usage' && m.tokens > limits.hardLimit && m.estimate <= limits.hardLimit;
    if (!stuck || last?.outcome === 'cancelled' || last?.outcome === 'stale') return m;
    if (!this.calibrationWarned) {
      this.calibrationWarned = true;
      const message =
        `The provider reported more prompt tokens than the request can hold (${m.tokens} projected against a hard limit of ${limits.hardLimit}) ` +
        `and compaction cannot reduce it; Capsule uses its local estimate (${m.estimate}) until the provider reports again.`;
      this.deps.logger?.log('warn', message);
      this.emit({ type: 'calibration_fallback', message });
    }
    return { ...m, tokens: m.estimate, source: 'estimated' };
  }

  private result(outcomes: readonly CompactionOutcome[], measured: Measure, limits: Limits, quiet = false): PreflightResult {
    const lines = outcomes.map(outcomeLine);
    const m = this.calibrationFallback(measured, limits, outcomes[outcomes.length - 1]);
    const base = { outcomes, lines, tokens: m.tokens, source: m.source, limits };
    const { error, reason, exhausted } = verdictOf(outcomes, m.tokens, limits.hardLimit, this.budget.exhausted());
    if (error === undefined || quiet) return { ...base, mayProceed: error === undefined, ...(error === undefined ? {} : { error }), exhausted };
    this.emit({ type: 'preflight_blocked', reason, message: error });
    return { ...base, mayProceed: false, error, exhausted };
  }
}
