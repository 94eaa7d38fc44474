// Window-aware defaults: the compaction settings a user has not set, derived from the model's context window.
/**
 * The seed defaults (keep 20,000, reserve 8,192, auto-compact from 32,000, reclaim 12,000) were written for
 * 64k–128k windows. Below SEED_WINDOW they cannot work (an 8k model would get a negative hard limit), so every
 * unset value becomes a share of the window instead; at SEED_WINDOW and above the seed values apply unchanged.
 *
 *   output reserve  = min(model's output limit, window / 8)
 *   safety reserve  = window / 16
 *   hard            = window - output reserve - safety reserve          (= 13/16 of the window at most)
 *   room            = hard - fixed overhead (system prompt, tool schemas, MCP schemas, instruction files)
 *   keep recent     = 30% of room
 *   auto-compact at = fixed overhead + 60% of room
 *   min reclaimable = 10% of room
 *
 * The fixed overhead is in every request and no compaction can reclaim it, so shares of the bare hard limit
 * would leave an 8k model's tail at ~77% of hard after each compaction. At the soft limit the pre-generation gate
 * still sees most of the room reclaimable, so soft compaction can really fire at every window from 4,096 tokens up.
 */
export const SEED_WINDOW = 64_000;
/** Below this no coding agent fits (system prompt, tool schemas, one exchange); a smaller window is an error. */
export const MIN_CONTEXT_WINDOW = 4_096;

/** The one-line error for a window the user set below MIN_CONTEXT_WINDOW, or undefined when it is fine. */
export function windowError(contextWindow: number, what = 'the context window'): string | undefined {
  if (contextWindow >= MIN_CONTEXT_WINDOW) return undefined;
  return `${what} (${contextWindow}) is below the smallest window Capsule supports (${MIN_CONTEXT_WINDOW} tokens): the system prompt, tool schemas and one exchange would not fit`;
}

const OUTPUT_SHARE = 1 / 8;
const SAFETY_SHARE = 1 / 16;
export const KEEP_SHARE = 0.3;
const AUTO_SHARE = 0.6;
export const RECLAIM_SHARE = 0.1;

/**
 * The fixed overhead assumed when the caller does not measure it: the built-in system prompt and tool schemas
 * measure about 1,300 tokens with the margin (a test keeps this figure above the measurement).
 */
export const DEFAULT_FIXED_OVERHEAD_TOKENS = 1_600;

/** The keys this module derives; the others (booleans, ratios, timeouts) keep their seed defaults everywhere. */
export type DerivedKey = 'keepRecentTokens' | 'safetyReserveTokens' | 'minTokensForAutoCompact' | 'minReclaimableTokens';
export const DERIVED_KEYS: readonly DerivedKey[] = ['keepRecentTokens', 'safetyReserveTokens', 'minTokensForAutoCompact', 'minReclaimableTokens'];

export interface SeedValues {
  readonly keepRecentTokens: number;
  readonly safetyReserveTokens: number;
  readonly minTokensForAutoCompact: number;
  readonly minReclaimableTokens: number;
}

/** True when the window is small enough that unset values are derived from it. */
function isSmallWindow(contextWindow: number): boolean {
  return contextWindow < SEED_WINDOW;
}

/** The output budget requests reserve: a small model's table output limit must not eat its window. */
export function outputReserveFor(contextWindow: number, modelMaxOutput: number): number {
  if (!isSmallWindow(contextWindow)) return modelMaxOutput;
  return Math.max(1, Math.min(modelMaxOutput, Math.floor(contextWindow * OUTPUT_SHARE)));
}

function derivedSafetyReserve(contextWindow: number): number {
  return Math.floor(contextWindow * SAFETY_SHARE);
}

/**
 * The unset values for this window. `safetyReserveTokens` is the user's when they set it (the hard limit the
 * other shares are taken of depends on it); above SEED_WINDOW the seed values come back unchanged.
 */
export function windowDefaults(
  contextWindow: number,
  maxOutputTokens: number,
  seed: SeedValues,
  explicitReserve?: number,
  fixedOverheadTokens: number = DEFAULT_FIXED_OVERHEAD_TOKENS,
): SeedValues {
  if (!isSmallWindow(contextWindow)) return seed;
  const reserve = explicitReserve ?? derivedSafetyReserve(contextWindow);
  const hard = Math.max(0, contextWindow - maxOutputTokens - reserve);
  // The overhead never takes more than half the hard limit here: a window it fills needs other help (a bigger model).
  const overhead = Math.min(Math.max(0, Math.floor(fixedOverheadTokens)), Math.floor(hard / 2));
  const room = hard - overhead;
  return {
    safetyReserveTokens: derivedSafetyReserve(contextWindow),
    keepRecentTokens: Math.floor(room * KEEP_SHARE),
    minTokensForAutoCompact: overhead + Math.floor(room * AUTO_SHARE),
    minReclaimableTokens: Math.floor(room * RECLAIM_SHARE),
  };
}
