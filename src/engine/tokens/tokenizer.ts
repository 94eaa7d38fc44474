// Token counters over gpt-tokenizer (docs/behaviour.md#tokens): which BPE encoding a model uses, and a counter that records its calls.
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface TokenCounter {
  count(text: string): number;
  readonly encoding: string;
  /** How many times count() ran; tests use it to prove a preflight costs O(new entries). */
  readonly calls: number;
}

/**
 * Treat `<|endoftext|>` and friends as ordinary text: user content and tool output can contain them,
 * and the provider tokenizes them as text too. gpt-tokenizer's default throws on them.
 */
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * o200k_base for gpt-4o/4.1/4.5, o-series, gpt-5, gpt-oss and chatgpt-*; cl100k_base for gpt-4 and gpt-3.5.
 * Anything else (Llama, Qwen, Claude, Mistral, DeepSeek...) has its own tokenizer we do not ship; o200k is a
 * reasonable estimate for modern vocabularies, and the 5% margin plus provider calibration cover the gap.
 */
export function encodingForModel(model: string): EncodingName {
  const id = model.toLowerCase().split('/').pop() ?? '';
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-|o\d)/.test(id)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|gpt-35)/.test(id) || /^text-embedding-(ada|3)/.test(id)) return 'cl100k_base';
  return 'o200k_base';
}

interface Encoder {
  countTokens(text: string, options: typeof ORDINARY_TEXT): number;
}

/**
 * Both encodings are imported statically because counterForModel must stay synchronous for the preflight;
 * the BPE tables load once per process (about half a second for o200k on these machines).
 */
const ENCODERS: Readonly<Record<EncodingName, Encoder>> = { o200k_base: o200k, cl100k_base: cl100k };

class GptTokenCounter implements TokenCounter {
  #calls = 0;
  constructor(
    readonly encoding: EncodingName,
    private readonly encoder: Encoder,
  ) {}

  get calls(): number {
    return this.#calls;
  }

  count(text: string): number {
    this.#calls++;
    return text.length === 0 ? 0 : this.encoder.countTokens(text, ORDINARY_TEXT);
  }
}

/** A fresh counter (own call count) for the model's encoding. */
export function counterForModel(model: string): TokenCounter {
  return counterForEncoding(encodingForModel(model));
}

export function counterForEncoding(encoding: EncodingName): TokenCounter {
  return new GptTokenCounter(encoding, ENCODERS[encoding]);
}
