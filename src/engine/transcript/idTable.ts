// The slots of a session's ids, in one typed array: a million ids cost a few megabytes and no map entry each (docs/loading.md).

const EMPTY = -1;
const MIN_CAPACITY = 1024;

/** FNV-1a over the UTF-16 code units of `s`. */
export function hashOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * Maps each id to the slot it was first added at, by open addressing over `Int32Array`s (a Map of a million fresh
 * strings costs a write each that is several times a hash and a probe here). The ids themselves are the caller's:
 * `sameAt(slot, id)` tells whether a slot was added with `id`, asked only when the slot's tag (8 bits of its id's hash)
 * is the id's, and `hashAt(slot)` gives hashOf of its id when the table grows. A tag is a byte: the whole hash per
 * slot cost 4 MB for a 350k-entry session and spared only the rare comparison a tag lets through.
 */
export class IdTable {
  #slots: Int32Array;
  #tags: Uint8Array;
  #count = 0;

  /** `expected`: how many ids are coming, if known, so the table is not rebuilt on the way. */
  constructor(
    private readonly sameAt: (slot: number, id: string) => boolean,
    private readonly hashAt: (slot: number) => number,
    expected = 0,
  ) {
    let capacity = MIN_CAPACITY;
    while (capacity < expected * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity).fill(EMPTY);
    this.#tags = new Uint8Array(capacity);
  }

  get size(): number {
    return this.#count;
  }

  /** The slot `id` was added at, or undefined. */
  get(id: string): number | undefined {
    const h = hashOf(id);
    const mask = this.#slots.length - 1;
    for (let k = h & mask; ; k = (k + 1) & mask) {
      const s = this.#slots[k] ?? EMPTY;
      if (s === EMPTY) return undefined;
      if (this.#tags[k] === h >>> 24 && this.sameAt(s, id)) return s;
    }
  }

  /**
   * Adds `id` at `slot` unless it is already there: returns the slot it already had, or -1 when it was added. (The
   * caller records the id at `slot` only when it was added, so `sameAt` is not asked about `slot` here.) `replace`: an id
   * already there is moved to `slot` (its old slot is still returned).
   */
  add(id: string, slot: number, replace = false): number {
    if ((this.#count + 1) * 2 > this.#slots.length) this.#grow();
    const h = hashOf(id);
    const mask = this.#slots.length - 1;
    for (let k = h & mask; ; k = (k + 1) & mask) {
      const s = this.#slots[k] ?? EMPTY;
      if (s === EMPTY) {
        this.#slots[k] = slot;
        this.#tags[k] = h >>> 24;
        this.#count++;
        return -1;
      }
      if (this.#tags[k] === h >>> 24 && this.sameAt(s, id)) {
        if (replace) this.#slots[k] = slot;
        return s;
      }
    }
  }

  #grow(): void {
    const slots = this.#slots;
    const cap = slots.length * 2;
    this.#slots = new Int32Array(cap).fill(EMPTY);
    this.#tags = new Uint8Array(cap);
    const mask = cap - 1;
    for (let j = 0; j < slots.length; j++) {
      const s = slots[j] ?? EMPTY;
      if (s === EMPTY) continue;
      const h = this.hashAt(s);
      let k = h & mask;
      while (this.#slots[k] !== EMPTY) k = (k + 1) & mask;
      this.#slots[k] = s;
      this.#tags[k] = h >>> 24;
    }
  }
}
