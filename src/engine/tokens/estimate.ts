// The request estimate of docs/behaviour.md#tokens: system, tool schemas, capsule, messages and tool results, plus a 5% margin.
import type { ToolSchema } from '../ports.js';
import type { ModelInput } from '../transcript/modelInput.js';
import type { EntryTokenCache } from './entryCache.js';
import { MESSAGE_OVERHEAD, REPLY_PRIMING, ROLE_TOKENS, TOOLS_OVERHEAD } from './messageTokens.js';

export interface TokenCategories {
  readonly system: number;
  readonly tools: number;
  readonly capsule: number;
  readonly messages: number;
  readonly toolResults: number;
  readonly reservedOutput: number;
}

export interface RequestEstimate {
  /** system + tools + capsule + messages + toolResults with the margin applied; reservedOutput is not included. */
  readonly total: number;
  /** The same sum before the margin. */
  readonly raw: number;
  /** Raw (pre-margin) figures per category. */
  readonly categories: TokenCategories;
}

/** Our tokenizer is not the provider's (and for non-OpenAI models not even the same vocabulary). */
export const TOKENIZER_MARGIN = 0.05;

/** ceil(raw × 1.05), in integer arithmetic so 100 gives 105, not 106. */
export function withMargin(raw: number): number {
  return Math.ceil((raw * Math.round(100 * (1 + TOKENIZER_MARGIN))) / 100);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const obj = v as Readonly<Record<string, unknown>>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sortKeys(obj[k])]),
    );
  }
  return v;
}

/**
 * The tools exactly as sent in the OpenAI `tools` field, keys sorted at every level so the same tools always give
 * the same bytes (a stable, cache-friendly prefix; the summarizer reuses it). Tool order is the caller's.
 */
export function serializeToolSchemas(tools: readonly ToolSchema[]): string {
  return JSON.stringify(sortKeys(tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))));
}

/**
 * Estimates the request buildModelInput's output would produce. Every count comes from the cache, so after one
 * new entry only that entry is tokenized; the walk over the messages is map lookups.
 */
export function estimateRequest(input: ModelInput, tools: readonly ToolSchema[], cache: EntryTokenCache, maxOutputTokens: number): RequestEstimate {
  const system = input.system.length === 0 ? 0 : MESSAGE_OVERHEAD + ROLE_TOKENS + cache.tokensOfText(input.system);
  const toolTokens = tools.length === 0 ? 0 : TOOLS_OVERHEAD + cache.tokensOfText(serializeToolSchemas(tools));
  let capsule = 0;
  let messages = REPLY_PRIMING;
  let toolResults = 0;
  let start = 0;
  // buildModelInput puts the capsule pair first; it has no entry id.
  if (input.capsule !== undefined && input.messages.length >= 2 && input.messages[0]?.entryId === undefined && input.messages[1]?.entryId === undefined) {
    capsule = cache.tokensOfCapsule(input.capsule);
    start = 2;
  }
  for (let i = start; i < input.messages.length; i++) {
    const m = input.messages[i];
    if (m === undefined) continue;
    const n = cache.tokensOfMessage(m);
    if (m.role === 'tool') toolResults += n;
    else messages += n;
  }
  const raw = system + toolTokens + capsule + messages + toolResults;
  return {
    total: withMargin(raw),
    raw,
    categories: { system, tools: toolTokens, capsule, messages, toolResults, reservedOutput: Math.max(0, maxOutputTokens) },
  };
}
