// A token counter that never waits for the tokenizer's table (docs/behaviour.md#cold-start): upper bounds until it is built, exact counts after.
import type { TokenCounter } from './tokenizer.js';

/**
 * An upper bound on the tokens of `text` without the table: its UTF-8 length. o200k_base and cl100k_base are
 * byte-level BPE and special-token text is counted as ordinary text, so every token stands for at least one byte.
 */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Wraps an exact counter. While `ready()` is false (the table is not built) a count is the UTF-8 length, an upper
 * bound, and `whenCold()` is told so the caller can build the table once nothing waits. `settle()` makes every later
 * count exact whatever it costs: the preflight calls it before any decision an overcount could get wrong.
 */
export class UntilReadyCounter implements TokenCounter {
  #bounds = 0;
  #settled = false;

  constructor(
    readonly exact: TokenCounter,
    private readonly ready: () => boolean,
    private readonly whenCold: () => void,
  ) {}

  get encoding(): string {
    return this.exact.encoding;
  }

  /** Every count, exact or bound (as for any counter). */
  get calls(): number {
    return this.exact.calls + this.#bounds;
  }

  /** How many counts were upper bounds. */
  get provisional(): number {
    return this.#bounds;
  }

  /** The exact counter's calls alone: how often the real tokenizer ran. */
  get exactCalls(): number {
    return this.exact.calls;
  }

  settle(): void {
    this.#settled = true;
  }

  #bound(text: string): number | undefined {
    if (this.#settled || text.length === 0 || this.ready()) return undefined;
    this.#bounds++;
    this.whenCold();
    return utf8Length(text);
  }

  count(text: string): number {
    return this.#bound(text) ?? this.exact.count(text);
  }

  async countAsync(text: string, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const bound = this.#bound(text);
    if (bound !== undefined) return bound;
    return this.exact.countAsync === undefined ? this.exact.count(text) : this.exact.countAsync(text, signal);
  }
}
