// The numbers a provider's overflow error states: the real window (or n_ctx) and the tokens it counted, read from its own words.
/** "maximum context length is 8192", "context length of only 4096", "n_ctx": 4096 … — first group is the window. */
const WINDOW_PATTERNS: readonly RegExp[] = [
  /maximum context length is\s*(\d+)/i, // OpenAI, Azure, vLLM, OpenRouter, DeepSeek, Groq
  /maximum prompt length is\s*(\d+)/i, // xAI
  /context length of only\s*(\d+)/i, // LM Studio
  /available context size \((\d+) tokens?\)/i, // llama.cpp, Ollama
  /maximum model length of\s*(\d+)/i, // vLLM
  /exceeds limit of\s*(\d+)/i, // vLLM
  /tokens?\s*>\s*(\d+)\s*maximum/i, // Anthropic "prompt is too long: 210000 tokens > 200000 maximum"
  /must be\s*<=\s*(\d+)/i, // Hugging Face TGI "`inputs` tokens + `max_new_tokens` must be <= 4096"
  /maximum number of tokens allowed \((\d+)\)/i, // Gemini
  /with\s*(\d+)\s*maximum context length/i, // Mistral
  /configured limit of\s*(\d+)/i, // OpenAI
  /exceeds the limit of\s*(\d+)/i, // GitHub Copilot
  /context limit:\s*\d+\s*\+\s*\d+\s*>\s*(\d+)/i, // Anthropic "exceed context limit: 197032 + 21333 > 200000"
  /cannot exceed\s*(\d+)/i, // Cohere
  /\blimit\s*:?\s*(\d+)\b/i, // "Context length exceeded: requested 12000, limit 8192"; Cohere "(limit: 4081)"
];

/** "resulted in 130512 tokens", "requested 9000 tokens", "request (5210 tokens)", "contains 40000 tokens" … */
const REQUESTED_PATTERNS: readonly RegExp[] = [
  /resulted in\s*(\d+)\s*tokens/i,
  /requested (?:about )?(\d+)\s*tokens/i,
  /request contains\s*(\d+)\s*tokens/i,
  /prompt contains\s*(\d+)\s*tokens/i,
  /request \((\d+) tokens?\)/i,
  /input prompt \((\d+) tokens?\)/i,
  /prompt \(length (\d+)\)/i,
  /too long:\s*(\d+)\s*tokens/i,
  /input token count \((\d+)\)/i,
  /prompt token count of\s*(\d+)/i,
  /requested\s*(\d+),/i,
  /keep the first\s*(\d+)\s*tokens/i,
  /(?:found|have|has|got)\s*(\d+)\s*tokens/i,
  /received\s*(\d+)/i, // Cohere
  /given:\s*(\d+)/i, // TGI
];

/** Plausible windows only: a stray "limit 30" (rate limits, per-minute budgets) must not shrink a model to nothing. */
const MIN_PLAUSIBLE_WINDOW = 1_024;
const MAX_PLAUSIBLE_WINDOW = 100_000_000;

export interface OverflowFacts {
  /** The window the provider says the model has. */
  readonly statedWindow?: number;
  /** How many prompt tokens the provider counted for the rejected request. */
  readonly requestedTokens?: number;
}

function firstNumber(texts: readonly string[], patterns: readonly RegExp[]): number | undefined {
  for (const p of patterns) {
    for (const t of texts) {
      const m = p.exec(t);
      const n = m?.[1] === undefined ? NaN : Number(m[1]);
      if (Number.isSafeInteger(n) && n > 0) return n;
    }
  }
  return undefined;
}

/** Reads the facts from the error's texts and the numeric body fields llama.cpp sends (`n_ctx`, `n_prompt_tokens`). */
export function overflowFacts(texts: readonly string[], fields: { readonly nCtx?: number; readonly nPrompt?: number } = {}): OverflowFacts {
  // Per-minute budgets ("tokens per min (TPM): Limit 30000") are not a window.
  const windowTexts = texts.filter((t) => !/per min/i.test(t));
  const stated = fields.nCtx ?? firstNumber(windowTexts, WINDOW_PATTERNS);
  const requested = fields.nPrompt ?? firstNumber(texts, REQUESTED_PATTERNS);
  const plausible = stated !== undefined && stated >= MIN_PLAUSIBLE_WINDOW && stated <= MAX_PLAUSIBLE_WINDOW ? stated : undefined;
  return { ...(plausible === undefined ? {} : { statedWindow: plausible }), ...(requested === undefined ? {} : { requestedTokens: requested }) };
}
