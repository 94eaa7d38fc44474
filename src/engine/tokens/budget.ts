// The /budget figures of docs/behaviour.md#observability and the docs/behaviour.md#roi pre-generation ROI gate, computed from a branch and the settings.
import type { ResolvedSettings } from '../config.js';
import type { ToolSchema } from '../ports.js';
import { buildModelInput, latestCapsule } from '../transcript/modelInput.js';
import type { Entry } from '../transcript/schema.js';
import { FiguresFold, type BranchFigures } from '../transcript/branchFigures.js';
import { effectiveTokens, requestFingerprint } from './calibration.js';
import type { EntryTokenCache } from './entryCache.js';
import { estimateRequest, type TokenCategories } from './estimate.js';
import { limitsOf } from './tokenLimits.js';
import type { ModelInfo } from './modelLimits.js';

export interface Budget {
  readonly model: string;
  readonly contextWindow: number;
  /** Where the window came from; `default`: nobody reported one, so the figure is an assumption (docs/behaviour.md#tokens). */
  readonly windowSource?: ModelInfo['source'];
  readonly maxOutputTokens: number;
  readonly effectiveTokens: number;
  readonly source: 'provider_usage' | 'estimated';
  readonly softLimit: number;
  readonly hardLimit: number;
  readonly safetyReserveTokens: number;
  readonly keepRecentTokens: number;
  readonly capsules: number;
  readonly messages: number;
  readonly turns: number;
  readonly lastCapsule?: { readonly ageMs: number; readonly tokens: number; readonly checkpointId: string; readonly quality: 'full' | 'partial' | 'degraded' };
  /**
   * What compaction saves now (docs/compaction.md#savings-ratio): 1 - effective / fullHistoryTokens, in [0, 1];
   * 0 before the first compaction.
   */
  readonly savingsRatio: number;
  /** Tokens the model input would take had nothing been compacted: effective + what each capsule in force saved. */
  readonly fullHistoryTokens: number;
  /** The docs/behaviour.md#roi gate: effective - keepRecent, and that as a share of effective (clamped to [0, 1]). */
  readonly reclaimableTokens: number;
  readonly reclaimableRatio: number;
  /** settings.auto && soft triggers enabled (valid config, no CAPSULE_AUTO_COMPACT=false). */
  readonly autoCompact: boolean;
  /** Human estimate: "~3 turns", "now (over soft limit)", "hard limit exceeded", "off"... */
  readonly nextTrigger: string;
  readonly categories: TokenCategories;
  readonly percentOfHard: number;
  /** Settings derived from the window because the user left them unset (shown as "auto: N"). */
  readonly derived?: readonly string[];
  /** Instruction files, the skill index and the mode, with their tokens (part of `categories.system`); docs/user/instructions.md. */
  readonly instructions?: readonly { readonly label: string; readonly tokens: number }[];
  /** The chat mode the next request is made in, when the session reads instructions (docs/user/chat.md). */
  readonly mode?: 'agent' | 'ask';
}

/** docs/behaviour.md#roi: reclaimable = effective - keepRecent, ratio = reclaimable / effective; both minimums must be met. */
export function evaluateRoi(
  effective: number,
  keepRecent: number,
  minReclaimable: number,
  minSavingsRatio: number,
): { reclaimable: number; savingsRatio: number; pass: boolean } {
  const reclaimable = Math.max(0, effective - keepRecent);
  const savingsRatio = effective > 0 ? Math.min(1, reclaimable / effective) : 0;
  return { reclaimable, savingsRatio, pass: reclaimable >= minReclaimable && savingsRatio >= minSavingsRatio };
}

/**
 * Tokens the capsules in force on the branch took out of the model input: each compaction replaced
 * `tokensBefore` by `tokensAfter`, and the history grows alike with or without it, so the uncompacted input is
 * the current one plus the sum of those differences. An undone compaction saved nothing. O(capsules), no tokenizing.
 */
export function compactionSavings(branch: readonly Entry[]): number {
  let undone: Set<string> | undefined;
  const seen = new Set<string>();
  let saved = 0;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'compaction_undo') {
      // Walking backwards, the first event seen for a capsule is its latest.
      if (!seen.has(e.capsuleId)) {
        seen.add(e.capsuleId);
        if (e.action === 'undo') (undone ??= new Set()).add(e.capsuleId);
      }
    } else if (e?.type === 'capsule' && undone?.has(e.id) !== true) saved += Math.max(0, e.tokensBefore - e.tokensAfter);
  }
  return saved;
}

/** docs/compaction.md#savings-ratio: the share of the full history's tokens that compaction keeps out of the input. */
export function savingsRatioOf(effective: number, saved: number): number {
  const full = effective + saved;
  return full > 0 && saved > 0 ? Math.min(1, saved / full) : 0;
}

/** How many recent turns the growth rate is averaged over. */
export const RECENT_TURNS = 5;

/** Average model-input growth per turn (user message to the next user message) over the recent turns. */
export function averageTurnTokens(branch: readonly Entry[], cache: EntryTokenCache, recentTurns = RECENT_TURNS): number {
  let turns = 0;
  let tokens = 0;
  for (let i = branch.length - 1; i >= 0 && turns < recentTurns; i--) {
    const e = branch[i];
    if (e === undefined) continue;
    tokens += cache.tokensOf(e);
    if (e.type === 'user') turns++;
  }
  return turns === 0 ? 0 : tokens / turns;
}

function turnsUntil(target: number, effective: number, perTurn: number): string | undefined {
  if (perTurn <= 0) return undefined;
  const n = Math.max(1, Math.ceil((target - effective) / perTurn));
  return `~${n} ${n === 1 ? 'turn' : 'turns'}`;
}

function nextTriggerOf(b: { effective: number; soft: number; hard: number; autoCompact: boolean; roiPass: boolean; perTurn: number }): string {
  if (b.effective > b.hard) return 'hard limit exceeded';
  if (!b.autoCompact) {
    const hard = turnsUntil(b.hard + 1, b.effective, b.perTurn);
    return hard === undefined ? 'off' : `off (hard limit in ${hard})`;
  }
  if (b.effective >= b.soft) return b.roiPass ? 'now (over soft limit)' : 'over soft limit, waiting for enough to reclaim';
  return turnsUntil(b.soft, b.effective, b.perTurn) ?? 'unknown (no turns yet)';
}

/**
 * What the budget reads of a branch: the reachable tail (the model input and its latest capsule), the recent turns
 * (the growth rate) and the branch-wide running figures. From a leaf, each costs the same at 1k and 1M entries.
 */
export interface BranchView {
  readonly tail: readonly Entry[];
  readonly recent: readonly Entry[];
  readonly figures: Pick<BranchFigures, 'capsules' | 'messages' | 'turns' | 'saved'>;
}

/** The view of a whole branch at hand (another branch's budget, a loaded file): the branch is all three. */
function viewOfBranch(branch: readonly Entry[]): BranchView {
  return { tail: branch, recent: branch, figures: FiguresFold.of(branch) };
}

/** What a budget is computed from, apart from the branch (or its view from the leaf). */
interface BudgetInputs {
  defaultSystem: string;
  tools: readonly ToolSchema[];
  model: ModelInfo;
  provider: string;
  resolved: ResolvedSettings;
  now: number;
  cache: EntryTokenCache;
}

export function computeBudget(args: BudgetInputs & { readonly branch: readonly Entry[] }): Budget {
  const { branch, ...rest } = args;
  return computeBudgetOf({ ...rest, view: viewOfBranch(branch) });
}

export function computeBudgetOf(args: BudgetInputs & { readonly view: BranchView }): Budget {
  const { view, cache, model } = args;
  const branch = view.tail;
  const s = args.resolved.settings;
  const input = buildModelInput(branch, args.defaultSystem);
  const estimate = estimateRequest(input, args.tools, cache, model.maxOutputTokens);
  const currentFingerprint = requestFingerprint(args.provider, model.model, input.system, args.tools);
  const eff = effectiveTokens({ branch, input, estimate, currentFingerprint, cache });
  const limits = limitsOf(model, s);

  const { capsules, messages, turns } = view.figures;
  const found = latestCapsule(branch);
  const lastCapsule = found && {
    ageMs: Math.max(0, args.now - (Date.parse(found.capsule.timestamp) || args.now)),
    tokens: cache.tokensOfCapsule(found.capsule),
    checkpointId: found.capsule.checkpointId,
    quality: found.capsule.quality,
  };

  const roi = evaluateRoi(eff.tokens, s.keepRecentTokens, s.minReclaimableTokens, s.minSavingsRatio);
  const saved = capsules === 0 ? 0 : view.figures.saved;
  const autoCompact = s.auto && args.resolved.softTriggersEnabled;
  const nextTrigger = nextTriggerOf({
    effective: eff.tokens,
    soft: limits.softLimit,
    hard: limits.hardLimit,
    autoCompact,
    roiPass: roi.pass,
    perTurn: averageTurnTokens(view.recent, cache),
  });
  return {
    model: model.model,
    contextWindow: model.contextWindow,
    windowSource: model.source,
    maxOutputTokens: model.maxOutputTokens,
    effectiveTokens: eff.tokens,
    source: eff.source,
    softLimit: limits.softLimit,
    hardLimit: limits.hardLimit,
    safetyReserveTokens: s.safetyReserveTokens,
    keepRecentTokens: s.keepRecentTokens,
    capsules,
    messages,
    turns,
    ...(lastCapsule ? { lastCapsule } : {}),
    savingsRatio: savingsRatioOf(eff.tokens, saved),
    fullHistoryTokens: eff.tokens + saved,
    reclaimableTokens: roi.reclaimable,
    reclaimableRatio: roi.savingsRatio,
    autoCompact,
    nextTrigger,
    categories: estimate.categories,
    percentOfHard: limits.hardLimit > 0 ? Math.round((eff.tokens / limits.hardLimit) * 1000) / 10 : 100,
    ...(args.resolved.derived.length > 0 ? { derived: args.resolved.derived } : {}),
  };
}
