// A model's context window and output budget (docs/behaviour.md#tokens): user override > learned from an overflow error > provider report > built-in table > default.
import { formatTokens } from './figures.js';
import * as z from '../zod.js';
import { lookupModel } from './modelTable.js';
import { outputReserveFor } from './windowDefaults.js';

export interface ModelInfo {
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Where the context window came from; 'learned': a provider's overflow error stated it (docs/compaction.md#overflow-recovery). */
  readonly source: 'table' | 'provider' | 'learned' | 'override' | 'default';
}

/**
 * The working assumption for a model nobody reported a window for: compacting early is cheap, overflowing is not.
 * It is never shown as the model's window: every surface says "window unknown (assuming 32,768)" and asks for it.
 */
export const DEFAULT_MODEL_INFO: { readonly contextWindow: number; readonly maxOutputTokens: number } = {
  contextWindow: 32_768,
  maxOutputTokens: 4_096,
};

/** "window 65,000 tokens", or for an assumed one "window unknown (assuming 32,768 tokens)". */
export function windowText(b: { readonly contextWindow: number; readonly windowSource?: ModelInfo['source'] }): string {
  const n = `${formatTokens(b.contextWindow)} tokens`;
  return b.windowSource === 'default' ? `window unknown (assuming ${n})` : `window ${n}`;
}

export interface PartialLimits {
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

type Source = ModelInfo['source'];
const RANK: Readonly<Record<Source, number>> = { override: 4, learned: 3, provider: 2, table: 1, default: 0 };

function positive(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

function pick(layers: readonly (readonly [Source, number | undefined])[]): readonly [Source, number] | undefined {
  for (const [source, value] of layers) {
    const v = positive(value);
    if (v !== undefined) return [source, v];
  }
  return undefined;
}

/**
 * Each figure is resolved on its own, so an override of only the window keeps the provider's output limit.
 * When the output limit comes from a weaker source than the window (say the table's 16k output against a
 * local server that loaded a 4k window), it is capped at a quarter of the window so the hard limit stays usable.
 */
export function resolveModelInfo(model: string, opts?: { provider?: PartialLimits; learned?: PartialLimits; override?: PartialLimits }): ModelInfo {
  const row = lookupModel(model);
  const window = pick([
    ['override', opts?.override?.contextWindow],
    ['learned', opts?.learned?.contextWindow],
    ['provider', opts?.provider?.contextWindow],
    ['table', row?.contextWindow],
    ['default', DEFAULT_MODEL_INFO.contextWindow],
  ]) ?? ['default', DEFAULT_MODEL_INFO.contextWindow];
  const output = pick([
    ['override', opts?.override?.maxOutputTokens],
    ['learned', opts?.learned?.maxOutputTokens],
    ['provider', opts?.provider?.maxOutputTokens],
    ['table', row?.maxOutputTokens],
    ['default', DEFAULT_MODEL_INFO.maxOutputTokens],
  ]) ?? ['default', DEFAULT_MODEL_INFO.maxOutputTokens];
  const [source, contextWindow] = window;
  let maxOutputTokens = output[1];
  if (RANK[output[0]] < RANK[source] && maxOutputTokens > contextWindow / 4) maxOutputTokens = Math.max(1, Math.floor(contextWindow / 4));
  // A small window cannot give a table's 8k output limit a quarter of itself; an explicit --max-output is kept.
  if (output[0] !== 'override') maxOutputTokens = outputReserveFor(contextWindow, maxOutputTokens);
  return { model, contextWindow, maxOutputTokens, source };
}

const count = z.pipe(
  z.union([z.number(), z.pipe(z.string().check(z.regex(/^\d+$/)), z.transform(Number))]),
  z.number().check(z.int(), z.positive(), z.lte(1e9)),
);
const maybe = z.catch(z.optional(count), undefined);

/** The fields OpenAI-compatible servers use for limits in /v1/models; everything optional, wrong types ignored. */
const ProviderModelSchema = z.object({
  context_length: maybe, // OpenRouter, Together, Ollama (/api/show model_info), many proxies
  max_model_len: maybe, // vLLM
  loaded_context_length: maybe, // LM Studio /api/v0: the window the model is actually loaded with
  max_context_length: maybe, // LM Studio /api/v0, Mistral
  context_window: maybe, // Groq, Fireworks
  max_input_tokens: maybe, // LiteLLM, Anthropic
  input_token_limit: maybe, // Gemini
  inputTokenLimit: maybe,
  max_output_tokens: maybe,
  max_completion_tokens: maybe,
  max_tokens: maybe,
  output_token_limit: maybe,
  outputTokenLimit: maybe,
  top_provider: z.catch(z.optional(z.object({ context_length: maybe, max_completion_tokens: maybe })), undefined), // OpenRouter
});

function first(...xs: readonly (number | undefined)[]): number | undefined {
  return xs.find((x) => x !== undefined);
}

/** Reads limits from one /v1/models entry of any OpenAI-compatible server; never throws, missing means unknown. */
export function modelInfoFromProviderModel(raw: unknown): { contextWindow?: number; maxOutputTokens?: number } {
  let parsed: ReturnType<typeof ProviderModelSchema.safeParse>;
  try {
    parsed = ProviderModelSchema.safeParse(raw);
  } catch {
    return {}; // a hostile object (throwing getter, proxy) is as good as no information
  }
  if (!parsed.success) return {};
  const m = parsed.data;
  const contextWindow = first(
    m.loaded_context_length,
    m.top_provider?.context_length,
    m.context_length,
    m.max_model_len,
    m.max_context_length,
    m.context_window,
    m.max_input_tokens,
    m.input_token_limit,
    m.inputTokenLimit,
  );
  const maxOutputTokens = first(
    m.top_provider?.max_completion_tokens,
    m.max_output_tokens,
    m.max_completion_tokens,
    m.output_token_limit,
    m.outputTokenLimit,
    m.max_tokens,
  );
  const out: { contextWindow?: number; maxOutputTokens?: number } = {};
  if (contextWindow !== undefined) out.contextWindow = contextWindow;
  // A server that says the output can be as large as the window is describing the window, not an output budget.
  if (maxOutputTokens !== undefined && (contextWindow === undefined || maxOutputTokens < contextWindow)) out.maxOutputTokens = maxOutputTokens;
  return out;
}
