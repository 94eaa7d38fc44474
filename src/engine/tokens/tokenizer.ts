// Token counters over the BPE tables of tiktoken's encodings (docs/behaviour.md#tokens): which BPE encoding a model uses, loaded lazily, counted in linear time.
import { PIECE_CHARS, textPieces } from './textPieces.js';

export type EncodingName = 'o200k_base' | 'cl100k_base';

export interface TokenCounter {
  count(text: string): number;
  /**
   * The same count, yielding to the event loop between pieces of long texts; rejects with the signal's reason.
   * Optional so that simple counters (tests' chars/4) stay one method; countTextAsync falls back to count().
   */
  countAsync?(text: string, signal?: AbortSignal): Promise<number>;
  readonly encoding: string;
  /** How many times count() or countAsync() ran; tests use it to prove a preflight costs O(new entries). */
  readonly calls: number;
  /**
   * How many counts so far were upper bounds given while the BPE table was not built yet (docs/behaviour.md#cold-start);
   * absent or 0 for a counter that always counts exactly. Such a count is never cached or persisted.
   */
  readonly provisional?: number;
  /** From now on count exactly (building the table if needed): a decision the upper bound could get wrong is next. */
  settle?(): void;
  /** The exact counter behind one that may give upper bounds, for the few figures that must be exact at once. */
  readonly exact?: TokenCounter;
}

/**
 * What an encoding module (dist/encodings/<name>.js: bpeCount.ts over the packed table <name>.bin) offers. Every character is
 * ordinary text: `<|endoftext|>` and friends in user content or tool output are counted as the characters they are,
 * as the provider tokenizes them.
 */
export interface Encoder {
  countTokens(text: string): number;
}

/** Loads an encoding synchronously (the preflight is synchronous); src/node installs the real one. */
export type EncodingLoader = (name: EncodingName) => Encoder;

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

let loader: EncodingLoader | undefined;
const loaded = new Map<EncodingName, Encoder>();

/**
 * Each BPE table costs some 50 ms and 20 MB to load, so none is built until a count needs it, and
 * only the one the active model uses. The engine cannot load files itself; src/node/tokenCounter.ts installs this.
 */
export function installEncodingLoader(load: EncodingLoader): void {
  loader = load;
}

/** Which encodings this process has built so far (tests and benchmarks prove that a command loaded none). */
export function loadedEncodings(): readonly EncodingName[] {
  return [...loaded.keys()];
}

/** Whether the encoding's table is built in this process (a count with it costs no start-up). */
export function encodingReady(name: EncodingName): boolean {
  return loaded.has(name);
}

/** Builds the encoding's table now, if it is not built yet: called off the critical path, once nothing waits. */
export function warmEncoding(name: EncodingName): void {
  encoderFor(name);
}

function encoderFor(name: EncodingName): Encoder {
  const hit = loaded.get(name);
  if (hit !== undefined) return hit;
  if (loader === undefined) throw new Error(`No tokenizer available for ${name}: import src/node/tokenCounter.ts to install one.`);
  const encoder = loader(name);
  loaded.set(name, encoder);
  return encoder;
}

/** Long work gives SIGINT handlers, aborts and the UI a turn about this often (in pieces). */
const PIECES_PER_YIELD = 64;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

class GptTokenCounter implements TokenCounter {
  #calls = 0;
  constructor(readonly encoding: EncodingName) {}

  get calls(): number {
    return this.#calls;
  }

  count(text: string): number {
    this.#calls++;
    if (text.length === 0) return 0;
    const encoder = encoderFor(this.encoding);
    if (text.length <= PIECE_CHARS) return encoder.countTokens(text);
    let n = 0;
    for (const [start, end] of textPieces(text)) n += encoder.countTokens(text.slice(start, end));
    return n;
  }

  async countAsync(text: string, signal?: AbortSignal): Promise<number> {
    this.#calls++;
    signal?.throwIfAborted();
    if (text.length === 0) return 0;
    const encoder = encoderFor(this.encoding);
    let n = 0;
    let pieces = 0;
    for (const [start, end] of textPieces(text)) {
      n += encoder.countTokens(text.slice(start, end));
      if (++pieces % PIECES_PER_YIELD === 0) {
        await yieldToEventLoop();
        signal?.throwIfAborted();
      }
    }
    return n;
  }
}

/** A fresh counter (own call count) for the model's encoding; the encoding itself loads on the first count. */
export function counterForModel(model: string): TokenCounter {
  return counterForEncoding(encodingForModel(model));
}

export function counterForEncoding(encoding: EncodingName): TokenCounter {
  return new GptTokenCounter(encoding);
}

/** Counts without blocking the event loop for long when the counter can; honours the signal either way. */
export async function countTextAsync(counter: TokenCounter, text: string, signal?: AbortSignal): Promise<number> {
  signal?.throwIfAborted();
  return counter.countAsync === undefined ? counter.count(text) : counter.countAsync(text, signal);
}
