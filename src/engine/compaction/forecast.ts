// Decide before paying (docs/compaction.md): the request a cut would leave, forecast before any summary is generated.
import type { ToolSchema } from '../ports.js';
import type { EntryTokenCache } from '../tokens/entryCache.js';
import { estimateRequest, withMargin } from '../tokens/estimate.js';
import { CAPSULE_MIN_TOKENS } from './capsuleFormat.js';
import { type CutPlan, type CutResult, isEffective, isNothingToCompact } from './cut.js';

/** Without a previous capsule to go by, a capsule (sections plus ledger) of a small span is about this size. */
const FIRST_CAPSULE_GUESS_TOKENS = 700;

export interface ForecastInput {
  readonly system: string;
  readonly tools: readonly ToolSchema[];
  readonly cache: EntryTokenCache;
}

interface Forecast {
  /** The continuation with the smallest plausible capsule: what a soft compaction can reclaim at best. */
  readonly best: number;
  /** The continuation with a capsule the size of the previous one (or a typical first one): what will likely be sent. */
  readonly likely: number;
}

/**
 * Everything of the next request except the capsule is known once the cut is: the fixed frame (system prompt and
 * tool schemas), the pinned entries and the retained tail as it will be sent (bounded and truncated results).
 */
function forecastAfter(cut: CutPlan, f: ForecastInput): Forecast {
  const frame = estimateRequest({ system: f.system, messages: [], entryIds: [] }, f.tools, f.cache, 0).raw;
  const tail = Math.max(0, cut.keptTokens - cut.truncatedTokens) + cut.pinnedTokens;
  const previous = cut.previousCapsule === undefined ? undefined : f.cache.tokensOfCapsule(cut.previousCapsule);
  // A new capsule rolls the previous one's ledger in, so it rarely shrinks below half of it.
  const bestCapsule = previous === undefined ? CAPSULE_MIN_TOKENS : Math.max(CAPSULE_MIN_TOKENS, Math.floor(previous / 2));
  const likelyCapsule = previous ?? FIRST_CAPSULE_GUESS_TOKENS;
  return { best: withMargin(frame + tail + bestCapsule), likely: withMargin(frame + tail + likelyCapsule) };
}

/** Why a soft compaction would not pay off even in its best case, or undefined when it may. */
export function softGateMiss(tokensBefore: number, cut: CutResult, f: ForecastInput, minReclaimable: number, minSavingsRatio: number): string | undefined {
  if (isNothingToCompact(cut)) return undefined;
  const { best } = forecastAfter(cut, f);
  const reclaimable = tokensBefore - best;
  const ratio = tokensBefore > 0 ? reclaimable / tokensBefore : 0;
  if (reclaimable >= minReclaimable && ratio >= minSavingsRatio) return undefined;
  return (
    `the retained tail is already known: even the smallest capsule would leave about ${best} tokens, reclaiming ${Math.max(0, reclaimable)} ` +
    `(${Math.round(Math.max(0, ratio) * 100)}%), below the minimum of ${minReclaimable} and ${Math.round(minSavingsRatio * 100)}%, so no summary was requested`
  );
}

/**
 * For a mandatory compaction, the first level from `levels` whose likely continuation fits under the hard limit and
 * cuts at least 10%: escalation goes straight there instead of paying for a shallow summary first. When none will,
 * the deepest level that has anything to compact; `canFit` false says not even the smallest capsule at any level
 * would get under the limit, so no summary is worth paying for.
 */
export function levelThatFits<L>(
  levels: readonly L[],
  planAt: (level: L) => CutResult,
  tokensBefore: number,
  hardLimit: number,
  f: ForecastInput,
): { readonly level: L; readonly cut: CutResult; readonly best: number; readonly canFit: boolean } | undefined {
  let deepest: { level: L; cut: CutResult; best: number; canFit: boolean } | undefined;
  let canFit = false;
  for (const level of levels) {
    const cut = planAt(level);
    if (isNothingToCompact(cut)) continue;
    const { likely, best } = forecastAfter(cut, f);
    canFit ||= best <= hardLimit;
    deepest = { level, cut, best, canFit };
    if (likely <= hardLimit && isEffective(tokensBefore, likely)) return deepest;
  }
  return deepest;
}
