// Known provider wordings of "the request does not fit the context window" (docs/behaviour.md#overflow), kept as data with real samples.

/** A real error as a provider sends it: the HTTP status it comes with and the message text. */
export interface OverflowSample {
  readonly status?: number;
  readonly message: string;
  /** The `error.code` the body carries, when it has one. */
  readonly code?: string | number;
}

export interface OverflowPattern {
  readonly id: string;
  /** Who words it this way. */
  readonly providers: readonly string[];
  /** Matched case-insensitively against the error's message texts, whatever the status: the wording is specific. */
  readonly pattern: RegExp;
  /** Real messages (numbers vary per request); the unit test feeds every one through classifyError. */
  readonly samples: readonly OverflowSample[];
}

/** `error.code` values that mean the request is larger than the model accepts. */
export const OVERFLOW_CODES: readonly string[] = [
  'context_length_exceeded', // OpenAI, Azure OpenAI, Groq, DeepSeek
  'model_max_prompt_tokens_exceeded', // GitHub Copilot's OpenAI-compatible API
  'exceed_context_size_error', // llama.cpp server (LM Studio, llamafile)
  'request_too_large', // Anthropic 413, OpenAI 413
];

export const OVERFLOW_PATTERNS: readonly OverflowPattern[] = [
  {
    id: 'maximum-context-length',
    providers: ['OpenAI', 'Azure OpenAI', 'vLLM', 'OpenRouter', 'DeepSeek', 'Groq', 'Mistral'],
    pattern: /maximum context length is\s*\d+/i,
    samples: [
      {
        status: 400,
        code: 'context_length_exceeded',
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      },
      {
        status: 400,
        code: 'context_length_exceeded',
        message:
          "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (7000 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.",
      },
      {
        status: 400,
        code: 400,
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      },
      {
        status: 400,
        message:
          "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1000 > 4096 - 3500).",
      },
      {
        status: 400,
        code: 400,
        message:
          'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 150211 tokens (148000 of text input, 2211 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
      },
    ],
  },
  {
    id: 'exceeds-context-window',
    providers: ['OpenAI'],
    pattern: /exceeds the context window/i,
    samples: [
      { status: 400, code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model. Please adjust your input and try again.' },
    ],
  },
  {
    id: 'configured-input-limit',
    providers: ['OpenAI'],
    pattern: /input tokens exceed the configured limit/i,
    samples: [
      {
        status: 400,
        message:
          'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300123 tokens. Please reduce the length of the messages.',
      },
    ],
  },
  {
    id: 'prompt-too-long',
    providers: ["Anthropic's OpenAI-compatible endpoint"],
    pattern: /prompt is too long/i,
    samples: [{ status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' }],
  },
  {
    id: 'exceed-context-limit',
    providers: ["Anthropic's OpenAI-compatible endpoint"],
    pattern: /exceed context limit/i,
    samples: [
      {
        status: 400,
        message: 'input length and `max_tokens` exceed context limit: 197032 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      },
    ],
  },
  {
    id: 'longer-than-max-model-length',
    providers: ['vLLM'],
    pattern: /is longer than the maximum model length/i,
    samples: [
      {
        status: 400,
        message:
          'The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      },
    ],
  },
  {
    id: 'input-prompt-too-long',
    providers: ['vLLM'],
    pattern: /input prompt \(\d+ tokens\) is too long/i,
    samples: [{ status: 400, message: 'Input prompt (5000 tokens) is too long and exceeds limit of 4096' }],
  },
  {
    id: 'keep-first-tokens',
    providers: ['LM Studio'],
    // LM Studio's own word order, typo included.
    pattern: /trying to keep the first \d+ tokens when context the overflows/i,
    samples: [
      {
        status: 400,
        message:
          'Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
      },
    ],
  },
  {
    id: 'tokens-to-keep',
    providers: ['LM Studio'],
    pattern: /tokens to keep from the initial prompt is greater than the context length/i,
    samples: [
      {
        status: 400,
        message:
          'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input.',
      },
    ],
  },
  {
    id: 'available-context-size',
    providers: ['llama.cpp server', 'LM Studio', 'Ollama'],
    pattern: /exceeds the available context size/i,
    samples: [
      { status: 400, code: 400, message: 'the request exceeds the available context size, try increasing it' },
      { status: 400, message: 'request (5210 tokens) exceeds the available context size (4096 tokens), try increasing it' },
    ],
  },
  {
    id: 'input-length-exceeds-context-length',
    providers: ['Ollama'],
    pattern: /input length exceeds the context length/i,
    // Ollama answers this with 400 or 500 depending on the version.
    samples: [
      { status: 400, message: 'the input length exceeds the context length' },
      { status: 500, message: 'the input length exceeds the context length' },
    ],
  },
  {
    id: 'context-length-exceeded',
    providers: ['Ollama', 'LM Studio', 'OpenAI-compatible proxies'],
    pattern: /context[ _](?:length|window)[ _](?:was |has been )?exceeded/i,
    samples: [
      { status: 400, message: 'Context length exceeded: requested 12000, limit 8192' },
      { status: 500, message: 'context_length_exceeded' },
    ],
  },
  {
    id: 'prompt-token-count',
    providers: ['GitHub Copilot (VS Code Language Model API)'],
    pattern: /prompt token count of \d+ exceeds the limit of \d+/i,
    samples: [{ status: 400, code: 'model_max_prompt_tokens_exceeded', message: 'prompt token count of 136112 exceeds the limit of 128000' }],
  },
  {
    id: 'input-token-count',
    providers: ["Google Gemini's OpenAI-compatible endpoint"],
    pattern: /input token count.{0,40}exceeds the maximum number of tokens/i,
    samples: [{ status: 400, message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).' }],
  },
  {
    id: 'too-large-for-model',
    providers: ['Mistral'],
    pattern: /too large for model with \d+ maximum context length/i,
    samples: [{ status: 400, message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length' }],
  },
  {
    // Not the window but the per-minute budget: the request alone is larger than it, so only a smaller request can pass.
    id: 'request-too-large-per-minute',
    providers: ['OpenAI', 'Groq'],
    pattern: /request too large for .{0,200}?tokens per min/i,
    samples: [
      {
        status: 429,
        code: 'rate_limit_exceeded',
        message:
          'Request too large for gpt-4o in organization org-abc123 on tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in order to run successfully.',
      },
      {
        status: 413,
        code: 'rate_limit_exceeded',
        message:
          'Request too large for model `llama-3.3-70b-versatile` in organization `org_01abc` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 7277, please reduce your message size and try again.',
      },
    ],
  },
  {
    id: 'maximum-prompt-length',
    providers: ['xAI'],
    pattern: /maximum prompt length is\s*\d+/i,
    samples: [{ status: 400, message: "This model's maximum prompt length is 131072 but the request contains 140213 tokens." }],
  },
  {
    id: 'input-too-long',
    providers: ['AWS Bedrock (OpenAI-compatible gateways)'],
    pattern: /input is too long for requested model/i,
    samples: [{ status: 400, message: 'Input is too long for requested model.' }],
  },
  {
    id: 'tgi-max-new-tokens',
    providers: ['Hugging Face TGI', 'Hugging Face Inference Endpoints'],
    pattern: /inputs`? tokens \+ `?max_new_tokens`? must be <=/i,
    samples: [
      {
        status: 422,
        message: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1024 `max_new_tokens`',
      },
    ],
  },
  {
    id: 'too-many-tokens',
    providers: ['Cohere'],
    pattern: /too many tokens/i,
    samples: [
      {
        status: 400,
        message:
          'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5120. Try using a shorter prompt, or enabling prompt truncating.',
      },
    ],
  },
];

/** A response body cut short (a stream or JSON body that ended mid-object) is treated as an overflow (docs/behaviour.md#overflow). */
export const TRUNCATED_JSON_PATTERN = /unexpected end of json input/i;

/**
 * The documented generic rule for a 400/413: "context" next to a size word. Whole words only and never `context=`,
 * so schema errors such as "In context=('properties', 'path'), 'maxLength' is not permitted" stay fatal.
 */
const GENERIC_CONTEXT_PATTERN = /\bcontext\b(?!\s*=)/i;
const GENERIC_SIZE_PATTERN = /\b(?:length|max|maximum|too long|exceed|exceeds|exceeded|exceeding)\b/i;

/** True when the text is one of the known overflow wordings (status-independent). */
export function matchesKnownOverflow(text: string): boolean {
  return TRUNCATED_JSON_PATTERN.test(text) || OVERFLOW_PATTERNS.some((p) => p.pattern.test(text));
}

/** The generic 400/413 rule of docs/behaviour.md#overflow. */
export function matchesGenericOverflow(text: string): boolean {
  return GENERIC_CONTEXT_PATTERN.test(text) && GENERIC_SIZE_PATTERN.test(text);
}
