// Overflow recovery that learns: the window a provider's error states is adopted; otherwise the assumed window shrinks by the excess.
import { outputReserveFor, MIN_CONTEXT_WINDOW } from '../tokens/windowDefaults.js';
import type { FaultInfo } from '../provider/faults.js';
import { TRUNCATED_JSON_PATTERN } from '../provider/overflowPatterns.js';

/** Without any number in the error, the assumed window shrinks by this share: the next plan leaves that much more room. */
const BLIND_SHRINK_SHARE = 0.1;

export interface LearnedWindow {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** 'stated': the provider's own figure; 'shrunk': our window minus the excess it implies. */
  readonly how: 'stated' | 'shrunk';
  /** One line for the user, e.g. "The provider states a context window of 8,192 tokens; …". */
  readonly notice: string;
}

function fmt(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * What to plan the recovery against after an overflow. `estimate` is our count of the rejected request. A stated
 * window smaller than ours is adopted as it is; with none (or one we already use), the provider counted more than
 * we did, so the window we assume shrinks by that excess. With no count either, the refused request itself
 * (prompt + output budget) bounds the window: it shrinks to 90% of that, and by at least a tenth.
 * Undefined when nothing would change.
 */
export function learnWindow(
  current: { readonly contextWindow: number; readonly maxOutputTokens: number },
  fault: FaultInfo,
  estimate: number,
): LearnedWindow | undefined {
  // A body cut mid-JSON is recovered from like an overflow, but it is usually a dropped connection: it says nothing
  // about the window, which must not shrink (a 65,536 window once became 14,601 this way).
  if (fault.statedWindow === undefined && fault.requestedTokens === undefined && TRUNCATED_JSON_PATTERN.test(fault.message)) return undefined;
  const w = current.contextWindow;
  const stated = fault.statedWindow;
  if (stated !== undefined && stated < w) {
    const window = Math.max(MIN_CONTEXT_WINDOW, stated);
    return {
      contextWindow: window,
      maxOutputTokens: outputReserveFor(window, Math.min(current.maxOutputTokens, Math.floor(window / 4))),
      how: 'stated',
      notice: `The provider states a context window of ${fmt(stated)} tokens (Capsule assumed ${fmt(w)}); it is adopted for this model and the recovery is planned against it.`,
    };
  }
  const requested = fault.requestedTokens;
  const counted = requested !== undefined && requested > estimate;
  // Without a count, what we sent (prompt + output budget) was refused, so the real window is below it.
  const window = Math.max(
    MIN_CONTEXT_WINDOW,
    counted
      ? w - (requested - estimate)
      : Math.min(w - Math.ceil(w * BLIND_SHRINK_SHARE), Math.floor((estimate + current.maxOutputTokens) * (1 - BLIND_SHRINK_SHARE))),
  );
  if (window >= w) return undefined;
  return {
    contextWindow: window,
    maxOutputTokens: Math.min(current.maxOutputTokens, outputReserveFor(window, current.maxOutputTokens)),
    how: 'shrunk',
    notice: counted
      ? `The provider counted ${fmt(requested)} tokens where Capsule estimated ${fmt(estimate)}; the assumed window shrinks by that excess to ${fmt(window)} tokens.`
      : `The provider reported an overflow without stating its window; the assumed window shrinks from ${fmt(w)} to ${fmt(window)} tokens.`,
  };
}
