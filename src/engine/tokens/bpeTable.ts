// A BPE vocabulary in a few typed arrays (docs/performance.md#tokenizer): the token bytes end to end and an open-addressing table from bytes to rank.

/**
 * The packed form (src/node/bpePack.ts writes it at build time): "BPE1", the rank count, then per rank its length in one
 * byte and its bytes. A rank of length 0 is a hole.
 */
export const PACKED_MAGIC = 0x31455042; // "BPE1", little-endian
export const PACKED_HEADER = 8;
/** No token in o200k_base or cl100k_base is longer than 128 bytes; a length is one byte. */
export const MAX_TOKEN_BYTES = 255;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Rank lookups by bytes, in about 4 MB for o200k_base (a Map of 200k strings costs tens of MB to build and hold). */
export class BpeTable {
  /** Every token's bytes end to end, in rank order; rank r is `bytes[starts[r], starts[r + 1])`. */
  readonly #bytes: Uint8Array;
  readonly #starts: Uint32Array;
  /** Open addressing, linear probing: rank + 1 in each used slot, 0 in a free one. */
  readonly #slots: Int32Array;
  readonly #mask: number;

  private constructor(bytes: Uint8Array, starts: Uint32Array) {
    this.#bytes = bytes;
    this.#starts = starts;
    const ranks = starts.length - 1;
    let capacity = 1024;
    while (capacity < ranks * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
    for (let rank = 0; rank < ranks; rank++) {
      const start = starts[rank] ?? 0;
      const end = starts[rank + 1] ?? 0;
      if (end === start) continue;
      let slot = hashOf(bytes, start, end) & this.#mask;
      // The first rank with these bytes wins (no shipped table repeats a token).
      while (this.#slots[slot] !== 0 && !this.#same(this.#slots[slot]! - 1, bytes, start, end)) slot = (slot + 1) & this.#mask;
      if (this.#slots[slot] === 0) this.#slots[slot] = rank + 1;
    }
  }

  /** Reads the packed form; a damaged one is an error, never a table that counts wrong. */
  static unpack(packed: Uint8Array): BpeTable {
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    if (packed.byteLength < PACKED_HEADER || view.getUint32(0, true) !== PACKED_MAGIC) throw new Error('not a packed BPE table');
    const ranks = view.getUint32(4, true);
    if (packed.byteLength < PACKED_HEADER + ranks) throw new Error('the packed BPE table is cut short');
    const starts = new Uint32Array(ranks + 1);
    const bytes = new Uint8Array(packed.byteLength - PACKED_HEADER - ranks);
    let from = PACKED_HEADER;
    let to = 0;
    for (let rank = 0; rank < ranks; rank++) {
      if (from >= packed.byteLength) throw new Error('the packed BPE table is cut short');
      const length = packed[from++]!;
      if (from + length > packed.byteLength) throw new Error('the packed BPE table is cut short');
      starts[rank] = to;
      bytes.set(packed.subarray(from, from + length), to);
      from += length;
      to += length;
    }
    if (from !== packed.byteLength) throw new Error('the packed BPE table has bytes after its last rank');
    starts[ranks] = to;
    return new BpeTable(bytes, starts);
  }

  get size(): number {
    return this.#starts.length - 1;
  }

  /** The rank of the token `buf[start, end)` is, or -1 when no token has those bytes. */
  rankOf(buf: Uint8Array, start: number, end: number): number {
    let slot = hashOf(buf, start, end) & this.#mask;
    for (let held = this.#slots[slot]!; held !== 0; held = this.#slots[slot]!) {
      if (this.#same(held - 1, buf, start, end)) return held - 1;
      slot = (slot + 1) & this.#mask;
    }
    return -1;
  }

  #same(rank: number, buf: Uint8Array, start: number, end: number): boolean {
    const at = this.#starts[rank]!;
    if (this.#starts[rank + 1]! - at !== end - start) return false;
    const bytes = this.#bytes;
    for (let i = start; i < end; i++) if (bytes[at + i - start] !== buf[i]) return false;
    return true;
  }
}

function hashOf(buf: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, FNV_PRIME);
  return h >>> 0;
}
