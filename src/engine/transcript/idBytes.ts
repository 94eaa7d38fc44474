// The ids of a session's compact part end to end in one byte array, not a string each (docs/loading.md#indexing).

const MIN_IDS = 1024;
/** Room for this many characters per expected id up front (Capsule's ids have 14). */
const CHARS_PER_ID = 16;
/** String.fromCharCode takes its arguments on the stack: a long id is decoded this many characters at a time. */
const DECODE_RUN = 4096;

/**
 * A string per id costs some 24 bytes of header and an array slot besides its characters, and each one outlives the
 * index that made it. Here an id costs its characters (one byte each) and 4 bytes for where it ends. An id with a
 * character above U+00FF (never one Capsule makes; possible in a hand-written or imported file) is kept as a string.
 */
export class IdBytes {
  #chars: Uint8Array;
  /** Where id i ends in #chars; it starts where id i − 1 ends. */
  #ends: Int32Array;
  #count = 0;
  #used = 0;
  readonly #wide = new Map<number, string>();

  /** `expected`: how many ids are coming, if known (a sizing hint). */
  constructor(expected = 0) {
    this.#ends = new Int32Array(Math.max(MIN_IDS, expected));
    this.#chars = new Uint8Array(Math.max(MIN_IDS, expected) * CHARS_PER_ID);
  }

  get length(): number {
    return this.#count;
  }

  push(id: string): void {
    if (this.#count === this.#ends.length) {
      const ends = new Int32Array(this.#ends.length * 2);
      ends.set(this.#ends);
      this.#ends = ends;
    }
    if (this.#used + id.length > this.#chars.length) {
      const chars = new Uint8Array(Math.max(this.#chars.length * 2, this.#used + id.length));
      chars.set(this.#chars.subarray(0, this.#used));
      this.#chars = chars;
    }
    const chars = this.#chars;
    const at = this.#used;
    let narrow = true;
    for (let k = 0; k < id.length; k++) {
      const c = id.charCodeAt(k);
      if (c > 0xff) {
        narrow = false;
        break;
      }
      chars[at + k] = c;
    }
    if (narrow) this.#used += id.length;
    else this.#wide.set(this.#count, id);
    this.#ends[this.#count++] = this.#used;
  }

  /** Id `i` as a string (made now: keep it only as long as needed); '' past the end. */
  at(i: number): string {
    if (i < 0 || i >= this.#count) return '';
    const wide = this.#wide.size === 0 ? undefined : this.#wide.get(i);
    if (wide !== undefined) return wide;
    const start = i === 0 ? 0 : this.#ends[i - 1]!;
    const end = this.#ends[i]!;
    let s = '';
    for (let from = start; from < end; from += DECODE_RUN) s += String.fromCharCode(...this.#chars.subarray(from, Math.min(end, from + DECODE_RUN)));
    return s;
  }

  /** Whether id `i` is `id`, without making a string. */
  equals(i: number, id: string): boolean {
    if (i < 0 || i >= this.#count) return false;
    if (this.#wide.size !== 0) {
      const wide = this.#wide.get(i);
      if (wide !== undefined) return wide === id;
    }
    const start = i === 0 ? 0 : this.#ends[i - 1]!;
    if (this.#ends[i]! - start !== id.length) return false;
    const chars = this.#chars;
    for (let k = 0; k < id.length; k++) if (chars[start + k] !== id.charCodeAt(k)) return false;
    return true;
  }
}
