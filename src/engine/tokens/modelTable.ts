// Built-in context windows and output limits of well-known models (docs/behaviour.md#tokens), matched by pattern on a normalized id.
export interface ModelLimitRow {
  readonly pattern: RegExp;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
}

/**
 * First match wins, so specific names come before their families. Figures are the vendors' published API limits;
 * where a family varies by size or host, the conservative figure is used (the provider or the user can override).
 */
const MODEL_TABLE: readonly ModelLimitRow[] = [
  // OpenAI
  { pattern: /^gpt-5(\.\d+)?-chat/, contextWindow: 128_000, maxOutputTokens: 16_384 },
  { pattern: /^gpt-5/, contextWindow: 400_000, maxOutputTokens: 128_000 },
  { pattern: /^gpt-4\.1/, contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  { pattern: /^gpt-4\.5/, contextWindow: 128_000, maxOutputTokens: 16_384 },
  { pattern: /^(chatgpt-4o|gpt-4o)/, contextWindow: 128_000, maxOutputTokens: 16_384 },
  { pattern: /^gpt-4-(turbo|1106|0125|vision)/, contextWindow: 128_000, maxOutputTokens: 4_096 },
  { pattern: /^gpt-4-32k/, contextWindow: 32_768, maxOutputTokens: 4_096 },
  { pattern: /^gpt-4/, contextWindow: 8_192, maxOutputTokens: 4_096 },
  { pattern: /^gpt-3\.5-turbo-instruct/, contextWindow: 4_096, maxOutputTokens: 1_024 },
  { pattern: /^gpt-3\.5/, contextWindow: 16_385, maxOutputTokens: 4_096 },
  { pattern: /^gpt-oss/, contextWindow: 131_072, maxOutputTokens: 32_768 },
  { pattern: /^o1-mini/, contextWindow: 128_000, maxOutputTokens: 65_536 },
  { pattern: /^o1-preview/, contextWindow: 128_000, maxOutputTokens: 32_768 },
  { pattern: /^(o1|o3|o4-mini|codex-mini)/, contextWindow: 200_000, maxOutputTokens: 100_000 },
  // Anthropic (also as OpenRouter spells them, e.g. claude-3.5-sonnet)
  { pattern: /^claude-(opus-4(?![.-][5-9])|4-opus)/, contextWindow: 200_000, maxOutputTokens: 32_000 },
  { pattern: /^claude-((sonnet|haiku|opus)-4|3[.-]7|4-sonnet)/, contextWindow: 200_000, maxOutputTokens: 64_000 },
  { pattern: /^claude-3[.-]5/, contextWindow: 200_000, maxOutputTokens: 8_192 },
  { pattern: /^claude/, contextWindow: 200_000, maxOutputTokens: 4_096 },
  // Google
  { pattern: /^gemini-(2\.5|3)/, contextWindow: 1_048_576, maxOutputTokens: 65_536 },
  { pattern: /^gemini-1\.5-pro/, contextWindow: 2_097_152, maxOutputTokens: 8_192 },
  { pattern: /^gemini/, contextWindow: 1_048_576, maxOutputTokens: 8_192 },
  { pattern: /^gemma-?3/, contextWindow: 131_072, maxOutputTokens: 8_192 },
  { pattern: /^gemma/, contextWindow: 8_192, maxOutputTokens: 2_048 },
  // Meta Llama (Llama 3.0 had 8k; 3.1+ 128k; Llama 4 advertises more, hosts usually serve 128k or so)
  { pattern: /llama-?v?(3[.p][1-9]|3-[1-9](?![0-9]*b)|4)/, contextWindow: 131_072, maxOutputTokens: 8_192 },
  { pattern: /llama-?v?3/, contextWindow: 8_192, maxOutputTokens: 2_048 },
  { pattern: /llama-?2/, contextWindow: 4_096, maxOutputTokens: 1_024 },
  { pattern: /codellama/, contextWindow: 16_384, maxOutputTokens: 4_096 },
  // Qwen
  { pattern: /^qwen-?3-?coder/, contextWindow: 262_144, maxOutputTokens: 65_536 },
  { pattern: /^qwen-?3/, contextWindow: 32_768, maxOutputTokens: 8_192 },
  { pattern: /^qwq/, contextWindow: 131_072, maxOutputTokens: 32_768 },
  { pattern: /^qwen-?2\.5/, contextWindow: 32_768, maxOutputTokens: 8_192 },
  { pattern: /^qwen/, contextWindow: 32_768, maxOutputTokens: 8_192 },
  // DeepSeek
  { pattern: /^deepseek-(reasoner|r1)/, contextWindow: 128_000, maxOutputTokens: 32_768 },
  { pattern: /^deepseek-(chat|v3|v2|coder-v2)/, contextWindow: 128_000, maxOutputTokens: 8_192 },
  { pattern: /^deepseek-coder/, contextWindow: 16_384, maxOutputTokens: 4_096 },
  // Mistral
  { pattern: /^codestral/, contextWindow: 262_144, maxOutputTokens: 8_192 },
  { pattern: /^(devstral|mistral-(large|medium|nemo)|pixtral|magistral)/, contextWindow: 131_072, maxOutputTokens: 8_192 },
  { pattern: /^mixtral-8x22b/, contextWindow: 65_536, maxOutputTokens: 4_096 },
  { pattern: /^(mistral|mixtral|ministral)/, contextWindow: 32_768, maxOutputTokens: 4_096 },
];

/**
 * "openai/gpt-4o" (OpenRouter), "Qwen/Qwen2.5-Coder-32B-Instruct" (vLLM), "llama3.1:8b" (Ollama),
 * "lmstudio-community/Meta-Llama-3.1-8B-Instruct-GGUF" (LM Studio), "models/gemini-2.5-pro" (Gemini) all reduce
 * to a lower-case id that starts with the family name.
 */
function normalizeModelId(model: string): string {
  const last = model.trim().toLowerCase().split('/').pop() ?? '';
  return last.replace(/[:_\s]+/g, '-').replace(/^meta-/, '');
}

export function lookupModel(model: string): ModelLimitRow | undefined {
  const id = normalizeModelId(model);
  return MODEL_TABLE.find((row) => row.pattern.test(id));
}
