// Hard and soft limits of docs/behaviour.md#tokens, computed from a model's window and the compaction settings.
export interface LimitInputs {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly safetyReserveTokens: number;
  readonly minTokensForAutoCompact: number;
  readonly autoCompactThresholdRatio: number;
}

export interface Limits {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly safetyReserveTokens: number;
  /** contextWindow - maxOutputTokens - safetyReserveTokens: no request above this is ever sent. */
  readonly hardLimit: number;
  /** min(hardLimit - 1, max(minTokensForAutoCompact, floor(hardLimit * ratio))): soft triggers start here. */
  readonly softLimit: number;
}

export function hardLimitOf(contextWindow: number, maxOutputTokens: number, safetyReserveTokens: number): number {
  return contextWindow - maxOutputTokens - safetyReserveTokens;
}

function softLimitOf(hardLimit: number, minTokensForAutoCompact: number, ratio: number): number {
  return Math.min(hardLimit - 1, Math.max(minTokensForAutoCompact, Math.floor(hardLimit * ratio)));
}

export function computeLimits(i: LimitInputs): Limits {
  const hardLimit = hardLimitOf(i.contextWindow, i.maxOutputTokens, i.safetyReserveTokens);
  return {
    contextWindow: i.contextWindow,
    maxOutputTokens: i.maxOutputTokens,
    safetyReserveTokens: i.safetyReserveTokens,
    hardLimit,
    softLimit: softLimitOf(hardLimit, i.minTokensForAutoCompact, i.autoCompactThresholdRatio),
  };
}

/** The limits of a model under compaction settings: the one way every caller (barrier, budget, switch, picker) gets them. */
export function limitsOf(
  model: Pick<LimitInputs, 'contextWindow' | 'maxOutputTokens'>,
  settings: Pick<LimitInputs, 'safetyReserveTokens' | 'minTokensForAutoCompact' | 'autoCompactThresholdRatio'>,
): Limits {
  return computeLimits({
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    safetyReserveTokens: settings.safetyReserveTokens,
    minTokensForAutoCompact: settings.minTokensForAutoCompact,
    autoCompactThresholdRatio: settings.autoCompactThresholdRatio,
  });
}
