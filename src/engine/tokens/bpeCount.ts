// Counts BPE tokens over a BpeTable (docs/performance.md#tokenizer): the encodings' pre-tokenizer, then tiktoken's byte-pair merge of each piece.
import { BpeTable } from './bpeTable.js';

export type SplitEncoding = 'o200k_base' | 'cl100k_base';

const CONTRACTION = String.raw`'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`;

/** The pre-tokenizers of tiktoken's encodings, as gpt-tokenizer writes them (a unit test compares the two). */
export const SPLIT_PATTERNS: Readonly<Record<SplitEncoding, string>> = {
  o200k_base: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:${CONTRACTION})?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:${CONTRACTION})?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  cl100k_base: String.raw`${CONTRACTION}|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+$|\s*[\r\n]|\s+(?!\S)|\s`,
};

/** Larger than any rank: "no token for this pair". */
const NONE = 0x7fffffff;
/**
 * Merged pieces remembered (a copy of the piece's text, then its count): the merge is quadratic in a piece's
 * length, and long runs of one character come in many identical 512-character pieces (textPieces.ts). A piece of
 * more bytes than MERGE_CACHE_MAX_BYTES is merged every time; the memory is cleared whole when it holds
 * MERGE_CACHE_ENTRIES pieces or MERGE_CACHE_BYTES of them.
 */
const MERGE_CACHE_ENTRIES = 8192;
const MERGE_CACHE_MAX_BYTES = 2048;
const MERGE_CACHE_BYTES = 2 * 1024 * 1024;

/**
 * One encoding's counter. It keeps scratch buffers and a regex with its own position, so it counts one text at a time
 * (JavaScript runs one at a time; nothing here awaits).
 */
class BpeCounter {
  readonly #table: BpeTable;
  readonly #split: RegExp;
  /** The piece being counted, in UTF-8. */
  #bytes = new Uint8Array(256);
  /** Where each part of the piece starts, and the rank of each part joined with the next (NONE if no token). */
  #starts = new Int32Array(257);
  #ranks = new Int32Array(257);
  readonly #merged = new Map<string, number>();
  #mergedBytes = 0;

  constructor(table: BpeTable, encoding: SplitEncoding) {
    this.#table = table;
    this.#split = new RegExp(SPLIT_PATTERNS[encoding], 'gu');
  }

  /** Tokens in `text`, every character ordinary text (`<|endoftext|>` is counted as the characters it is). */
  countTokens(text: string): number {
    const split = this.#split;
    split.lastIndex = 0;
    let n = 0;
    for (let m = split.exec(text); m !== null; m = split.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (end === start) {
        split.lastIndex++;
        continue;
      }
      const piece = m[0];
      const known = piece.length > 1 ? this.#merged.get(piece) : undefined;
      n += known ?? this.#countPiece(piece, this.#encode(text, start, end));
    }
    return n;
  }

  /** `text[start, end)` as UTF-8 in #bytes (a lone surrogate becomes U+FFFD, as TextEncoder does); returns the length. */
  #encode(text: string, start: number, end: number): number {
    if ((end - start) * 3 > this.#bytes.length) this.#grow((end - start) * 3);
    const out = this.#bytes;
    let at = 0;
    for (let i = start; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) {
        out[at++] = c;
        continue;
      }
      if (c < 0x800) {
        out[at++] = 0xc0 | (c >> 6);
        out[at++] = 0x80 | (c & 0x3f);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          out[at++] = 0xf0 | (cp >> 18);
          out[at++] = 0x80 | ((cp >> 12) & 0x3f);
          out[at++] = 0x80 | ((cp >> 6) & 0x3f);
          out[at++] = 0x80 | (cp & 0x3f);
          i++;
          continue;
        }
        c = 0xfffd;
      }
      out[at++] = 0xe0 | (c >> 12);
      out[at++] = 0x80 | ((c >> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    }
    return at;
  }

  #grow(bytes: number): void {
    let size = this.#bytes.length;
    while (size < bytes) size *= 2;
    this.#bytes = new Uint8Array(size);
    this.#starts = new Int32Array(size + 1);
    this.#ranks = new Int32Array(size + 1);
  }

  /**
   * Tokens in `piece`, whose UTF-8 is `#bytes[0, length)`: one if it is a token, else tiktoken's merge (remembered).
   */
  #countPiece(piece: string, length: number): number {
    const table = this.#table;
    const bytes = this.#bytes;
    if (length === 1 || table.rankOf(bytes, 0, length) >= 0) return 1;
    const tokens = this.#merge(length);
    if (length <= MERGE_CACHE_MAX_BYTES) {
      // A fresh copy of the piece as the key (JSON.parse makes one): a slice of a long text would keep that text alive.
      const key = piece.length < 13 ? piece : (JSON.parse(JSON.stringify(piece)) as string);
      if (this.#merged.size >= MERGE_CACHE_ENTRIES || this.#mergedBytes + length > MERGE_CACHE_BYTES) {
        this.#merged.clear();
        this.#mergedBytes = 0;
      }
      this.#merged.set(key, tokens);
      this.#mergedBytes += length;
    }
    return tokens;
  }

  /** tiktoken's merge of `#bytes[0, length)`: join the adjacent pair whose joined bytes have the lowest rank (the leftmost of equals) until no pair is a token. */
  #merge(length: number): number {
    const starts = this.#starts;
    const ranks = this.#ranks;
    let parts = length + 1;
    for (let i = 0; i < parts; i++) starts[i] = i;
    for (let i = 0; i < parts; i++) ranks[i] = i + 2 < parts ? this.#pairRank(i, parts) : NONE;
    while (parts > 1) {
      let best = NONE;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (ranks[i]! < best) {
          best = ranks[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      starts.copyWithin(at + 1, at + 2, parts);
      ranks.copyWithin(at, at + 1, parts);
      parts--;
      ranks[at] = this.#pairRank(at, parts);
      if (at > 0) ranks[at - 1] = this.#pairRank(at - 1, parts);
    }
    return parts - 1;
  }

  /** The rank of parts i and i + 1 joined, NONE when there is no part i + 1 or no such token. */
  #pairRank(i: number, parts: number): number {
    if (i + 2 >= parts) return NONE;
    const rank = this.#table.rankOf(this.#bytes, this.#starts[i]!, this.#starts[i + 2]!);
    return rank < 0 ? NONE : rank;
  }
}

/** An encoding from its packed table: what dist/encodings/<name>.js exports (src/node/tokenCounter.ts loads it). */
export function packedEncoding(packed: Uint8Array, encoding: SplitEncoding): { countTokens(text: string): number } {
  const counter = new BpeCounter(BpeTable.unpack(packed), encoding);
  return { countTokens: (text) => counter.countTokens(text) };
}
