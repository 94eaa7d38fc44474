// The entries of a session before its tail, kept as ids, parents and byte ranges in the file and parsed again only when read (docs/loading.md).
import { IdBytes } from './idBytes.js';
import { hashOf, IdTable } from './idTable.js';
import type { Entry } from './schema.js';

/** What a line before the tail was indexed as: enough to link the tree without keeping the entry. */
export interface ColdRecord {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  /** The entry carries a `subagent` mark (it never moves the leaf nor joins the parent's path). */
  readonly subagent: boolean;
  /** The line may name a `skill` tool call (false only when its bytes surely do not): the branch figures read it. */
  readonly maybeSkill: boolean;
  readonly lineNo: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * Reads one line of the file back and validates it as an entry (the same check as on load); throws a one-line Error
 * when it cannot. Synchronous, because the tree's readers are.
 */
export type ColdLoader = (rec: { readonly lineNo: number; readonly offset: number; readonly length: number }) => Entry;

/** A line in the compact part did not read back as what was indexed: the file was changed or damaged after it was opened. */
export class ColdReadError extends Error {
  override readonly name = 'ColdReadError';
}

const NO_PARENT = -1;
const SUBAGENT_BIT = 0x80;
const SKILL_BIT = 0x40;
const TYPE_MASK = 0x3f;

/**
 * Growable typed columns: a million entries cost a few dozen bytes each, not a parsed object each. Sized up front for
 * the lines expected, so an index does not leave a trail of freed halves behind it in the allocator.
 */
class Columns {
  offset: Float64Array;
  length: Int32Array;
  lineNo: Int32Array;
  parent: Int32Array;
  kind: Uint8Array;

  constructor(capacity: number) {
    this.offset = new Float64Array(capacity);
    this.length = new Int32Array(capacity);
    this.lineNo = new Int32Array(capacity);
    this.parent = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
  }

  grow(n: number): void {
    if (n <= this.offset.length) return;
    const cap = Math.max(n, this.offset.length * 2);
    const f = new Float64Array(cap);
    f.set(this.offset);
    this.offset = f;
    for (const k of ['length', 'lineNo', 'parent'] as const) {
      const a = new Int32Array(cap);
      a.set(this[k]);
      this[k] = a;
    }
    const u = new Uint8Array(cap);
    u.set(this.kind);
    this.kind = u;
  }
}

/**
 * Entries read back that are kept for the next read (a page of the chat or the tree is read again on every refresh):
 * at most this many, and lines of at most this many bytes in all (one huge tool result does not pin megabytes).
 */
const RECENT_READS = 1024;
const RECENT_BYTES = 8 * 1024 * 1024;

/**
 * Slots in file order. Most hold a compact record (read from the file on demand); a few hold the entry itself (leaf
 * moves, and lines the quick index could not read, which were judged whole). Of what is read on demand only the
 * latest RECENT_READS entries are kept (a refreshed page reads nothing again): the session's history does not stay
 * in memory.
 */
export class ColdPart {
  readonly #ids: IdBytes;
  readonly #slot: IdTable;
  readonly #cols: Columns;
  readonly #kept = new Map<number, Entry>();
  readonly #types: string[] = [];
  readonly #typeCode = new Map<string, number>();
  /** The entries read back most recently, oldest first (a Map keeps insertion order). */
  readonly #recent = new Map<number, Entry>();
  #recentBytes = 0;
  /** Lines parsed on demand so far (tests count them). */
  reads = 0;

  /** `expected`: how many lines the index expects (an estimate; more or fewer only cost a resize or unused room). */
  constructor(
    private readonly load: ColdLoader,
    expected = 0,
  ) {
    this.#cols = new Columns(Math.max(1024, expected));
    this.#ids = new IdBytes(expected);
    this.#slot = new IdTable(
      (slot, id) => this.#ids.equals(slot, id),
      (slot) => hashOf(this.#ids.at(slot)),
      expected,
    );
  }

  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#slot.get(id) !== undefined;
  }

  slotOf(id: string): number | undefined {
    // Most lines answer the line before: compared with its bytes, no lookup then.
    const last = this.#ids.length - 1;
    if (last >= 0 && this.#ids.equals(last, id)) return last;
    return this.#slot.get(id);
  }

  #code(type: string): number {
    let c = this.#typeCode.get(type);
    if (c === undefined) {
      // Far more than the schema's kinds; a file with more distinct types is refused by validation anyway.
      if (this.#types.length > TYPE_MASK) throw new Error(`more than ${TYPE_MASK} entry types in one session`);
      c = this.#types.length;
      this.#types.push(type);
      this.#typeCode.set(type, c);
    }
    return c;
  }

  /** `parentSlot`: the parent's slot when the caller already looked it up. */
  #push(id: string, parentId: string | null, type: string, subagent: boolean, maybeSkill = true, parentSlot?: number): number {
    const i = this.#ids.length;
    this.#cols.grow(i + 1);
    this.#ids.push(id);
    this.#slot.add(id, i, true);
    this.#cols.parent[i] = parentSlot ?? (parentId === null ? NO_PARENT : (this.#slot.get(parentId) ?? NO_PARENT));
    this.#cols.kind[i] = this.#code(type) | (subagent ? SUBAGENT_BIT : 0) | (maybeSkill ? SKILL_BIT : 0);
    return i;
  }

  /**
   * The usual line of an index (an id not seen yet, its parent's slot looked up): added with one map write, which also
   * tells a repeated id (then nothing is added, the first copy keeps its slot, and false says so).
   */
  tryAddLine(
    keys: Pick<ColdRecord, 'id' | 'parentId' | 'type' | 'subagent' | 'maybeSkill'>,
    at: { readonly lineNo: number; readonly offset: number; readonly length: number },
    parentSlot: number,
  ): boolean {
    const i = this.#ids.length;
    if (this.#slot.add(keys.id, i) !== -1) return false;
    this.#cols.grow(i + 1);
    this.#ids.push(keys.id);
    this.#cols.parent[i] = parentSlot;
    this.#cols.kind[i] = this.#code(keys.type) | (keys.subagent ? SUBAGENT_BIT : 0) | (keys.maybeSkill ? SKILL_BIT : 0);
    this.#cols.offset[i] = at.offset;
    this.#cols.length[i] = at.length;
    this.#cols.lineNo[i] = at.lineNo;
    return true;
  }

  /** A line whose links the tree checked, by its keys and its place in the file. */
  addLine(
    keys: Pick<ColdRecord, 'id' | 'parentId' | 'type' | 'subagent' | 'maybeSkill'>,
    at: { readonly lineNo: number; readonly offset: number; readonly length: number },
    parentSlot?: number,
  ): void {
    const i = this.#push(keys.id, keys.parentId, keys.type, keys.subagent, keys.maybeSkill, parentSlot);
    this.#cols.offset[i] = at.offset;
    this.#cols.length[i] = at.length;
    this.#cols.lineNo[i] = at.lineNo;
  }

  /** An entry kept whole (a leaf move, or a line judged whole). */
  addEntry(e: Entry): void {
    this.#kept.set(this.#push(e.id, e.parentId, e.type, e.subagent !== undefined), e);
  }

  /** The id of slot `i`, made now from the compact part's bytes. */
  idAt(i: number): string {
    return this.#ids.at(i);
  }

  typeAt(i: number): string {
    return this.#types[(this.#cols.kind[i] ?? 0) & TYPE_MASK] ?? '';
  }

  subagentAt(i: number): boolean {
    return ((this.#cols.kind[i] ?? 0) & SUBAGENT_BIT) !== 0;
  }

  maybeSkillAt(i: number): boolean {
    return ((this.#cols.kind[i] ?? 0) & SKILL_BIT) !== 0;
  }

  /** Slot of the parent, or -1 for a root. */
  parentAt(i: number): number {
    return this.#cols.parent[i] ?? NO_PARENT;
  }

  /** The entry in slot `i`, read from the file when it is not kept; throws ColdReadError when the line no longer is what was indexed. */
  entryAt(i: number): Entry {
    const kept = this.#kept.get(i) ?? this.#recent.get(i);
    if (kept !== undefined) return kept;
    const rec = { lineNo: this.#cols.lineNo[i] ?? 0, offset: this.#cols.offset[i] ?? 0, length: this.#cols.length[i] ?? 0 };
    this.reads++;
    let e: Entry;
    try {
      e = this.load(rec);
    } catch (err) {
      throw new ColdReadError(`Session line ${rec.lineNo} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    const parent = this.parentAt(i);
    const sameParent = parent === NO_PARENT ? e.parentId === null : e.parentId !== null && this.#ids.equals(parent, e.parentId);
    if (!this.#ids.equals(i, e.id) || e.type !== this.typeAt(i) || !sameParent) {
      throw new ColdReadError(
        `Session line ${rec.lineNo} changed after the session was opened (it holds ${e.type} ${e.id}, indexed as ${this.typeAt(i)} ${this.idAt(i)}); reopen the chat`,
      );
    }
    if (rec.length <= RECENT_BYTES) {
      this.#recent.set(i, e);
      this.#recentBytes += rec.length;
    }
    while (this.#recent.size > RECENT_READS || this.#recentBytes > RECENT_BYTES) {
      const oldest = this.#recent.keys().next().value;
      if (oldest === undefined) break;
      this.#recent.delete(oldest);
      this.#recentBytes -= this.#cols.length[oldest] ?? 0;
    }
    return e;
  }

  get(id: string): Entry | undefined {
    const i = this.#slot.get(id);
    return i === undefined ? undefined : this.entryAt(i);
  }

  /** Every entry in file order from slot `start` on, each read from the file as it is reached. */
  *entries(start = 0): Generator<Entry> {
    for (let i = start; i < this.#ids.length; i++) yield this.entryAt(i);
  }
}
