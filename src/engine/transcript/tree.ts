// The entry tree of one session: parent links, the explicit active leaf, and the branch from a leaf.
import { RunningFigures, type BranchFigures, type FiguresFold } from './branchFigures.js';
import { ColdPart, type ColdLoader, type ColdRecord } from './coldPart.js';
import { ProblemList } from './problemList.js';
import type { Entry } from './schema.js';
import { isSubagentEntry } from './subagentRef.js';

/** The kinds FiguresFold.add() reads more of than the type; every other kind leaves the figures as they are. */
const FOLDED: ReadonlySet<string> = new Set(['assistant', 'capsule', 'compaction_undo', 'model_change', 'system_update']);

/** What a fold over the tree's shape reads of an entry; `cold` marks one still in the file (read with get()). */
export interface EntryLink {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: Entry['type'];
  readonly subagent?: unknown;
  readonly cold?: true;
}

export type TreeProblemKind = 'duplicate_id' | 'unknown_parent' | 'cycle' | 'unknown_leaf_target';

export interface TreeProblem {
  readonly kind: TreeProblemKind;
  readonly entryId: string;
  readonly message: string;
}

/**
 * Entries are added in file order. Every conversation entry is appended as a child of the leaf of
 * its time and becomes the leaf; a `leaf` entry moves the leaf explicitly (rewind) without being a
 * node of the conversation itself. The leaf is therefore a persisted pointer, never "the last line".
 */
export class SessionTree {
  private readonly byId = new Map<string, Entry>();
  private readonly order: Entry[] = [];
  private readonly problemList = new ProblemList<TreeProblem>();
  private latest: TreeProblem | undefined;
  private leaf: string | null = null;
  /** Figures of the active branch, kept up to date by add() (a leaf move rebuilds them on the next read). */
  private readonly running = new RunningFigures((fold) => this.foldBranch(fold));
  /** Entries before the tail, kept compactly and read from the file on demand; they all precede `order`. */
  private readonly cold: ColdPart | undefined;

  /**
   * `partial`: the tree holds only the end of a file (read first, src/node/tailRead.ts), so a parent or a leaf
   * target before its first entry is not an error: the walk to the root simply stops there.
   * `cold`: how to read back an entry added with addCold() (docs/loading.md); `coldLines`: how many such entries the
   * index expects (an estimate that sizes the compact part up front).
   */
  constructor(private readonly opts: { readonly partial?: boolean; readonly cold?: ColdLoader; readonly coldLines?: number } = {}) {
    this.cold = opts.cold === undefined ? undefined : new ColdPart(opts.cold, opts.coldLines);
  }

  static from(entries: Iterable<Entry>): SessionTree {
    const t = new SessionTree();
    for (const e of entries) t.add(e);
    return t;
  }

  get leafId(): string | null {
    return this.leaf;
  }

  /** True for the end of a file read first; false once every line was read. */
  get partial(): boolean {
    return this.opts.partial === true;
  }

  get size(): number {
    return this.order.length + (this.cold?.size ?? 0);
  }

  /** Entries read back from the file so far (a test counts them: opening must read only the tail). */
  get coldReads(): number {
    return this.cold?.reads ?? 0;
  }

  /** The first problems of each kind, then one "… and N more" line per kind (bounded, whatever the file holds). */
  get problems(): readonly TreeProblem[] {
    return this.problemList.list();
  }

  /** The problem of the latest add() that returned false. */
  get lastProblem(): TreeProblem | undefined {
    return this.latest;
  }

  private reject(kind: TreeProblemKind, entryId: string, message: string): false {
    const p: TreeProblem = { kind, entryId, message };
    this.latest = p;
    this.problemList.add(p, (n) => ({ kind, entryId: '', message: `… and ${n} more ${kind.replace(/_/g, ' ')} problem${n === 1 ? '' : 's'} (not listed)` }));
    return false;
  }

  /** All accepted entries in file order (leaf moves included); those of the compact part are read from the file. */
  entries(): readonly Entry[] {
    return this.cold === undefined || this.cold.size === 0 ? this.order : [...this.cold.entries(), ...this.order];
  }

  /**
   * The entries from position `start` of entries() on: what an incremental fold (BranchLine, BranchIndex) has not
   * seen yet. Entries of the compact part before `start` are not read back from the file.
   */
  entriesFrom(start: number): readonly Entry[] {
    const coldSize = this.cold?.size ?? 0;
    if (start <= 0 && coldSize === 0) return this.order;
    if (start >= coldSize) return this.order.slice(start - coldSize);
    return [...(this.cold?.entries(start) ?? []), ...this.order];
  }

  /**
   * The links of the entries from position `start` of entries() on (id, parent, type, subagent mark), without reading
   * an entry of the compact part back: what a fold that needs only the shape of the tree reads.
   */
  linksFrom(start: number): readonly EntryLink[] {
    const out: EntryLink[] = [];
    this.eachLink(start, (id, parentId, type, subagent, cold) =>
      out.push({ id, parentId, type, ...(subagent ? { subagent: true } : {}), ...(cold ? { cold: true as const } : {}) }),
    );
    return out;
  }

  /**
   * linksFrom() without building an object per entry: `visit` gets each entry's links from position `start` on, in
   * file order; returns how many it visited. What a fold over a million-entry history calls.
   */
  eachLink(start: number, visit: (id: string, parentId: string | null, type: Entry['type'], subagent: boolean, cold: boolean) => void): number {
    const cold = this.cold;
    const coldSize = cold?.size ?? 0;
    let n = 0;
    for (let i = Math.max(0, start); cold !== undefined && i < coldSize; i++, n++) {
      const parent = cold.parentAt(i);
      visit(cold.idAt(i), parent < 0 ? null : cold.idAt(parent), cold.typeAt(i) as Entry['type'], cold.subagentAt(i), true);
    }
    for (let i = Math.max(0, start - coldSize); i < this.order.length; i++, n++) {
      const e = this.order[i];
      if (e !== undefined) visit(e.id, e.parentId, e.type, e.subagent !== undefined, false);
    }
    return n;
  }

  /**
   * Every entry of the given kinds in file order (all branches), reading only those: what a lookup by checkpoint or
   * capsule needs (both kinds are kept whole in a compact history, so nothing is read back).
   */
  ofKinds(kinds: ReadonlySet<string>): Entry[] {
    const ids: string[] = [];
    this.eachLink(0, (id, _parentId, type) => {
      if (kinds.has(type)) ids.push(id);
    });
    const out: Entry[] = [];
    for (const id of ids) {
      const e = this.get(id);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** The id of the newest entry in file order (leaf moves included), null for an empty tree. */
  lastId(): string | null {
    const hot = this.order.at(-1);
    if (hot !== undefined) return hot.id;
    const cold = this.cold;
    return cold === undefined || cold.size === 0 ? null : cold.idAt(cold.size - 1);
  }

  /** Ids of the branch ending at `leafId` (default: the active leaf), root first, leaf moves excluded; nothing is read back from the file. */
  branchIds(leafId: string | null = this.leaf): string[] {
    return this.path(
      leafId,
      (e) => e.id,
      (cold, slot) => cold.idAt(slot),
    );
  }

  /**
   * The active branch's entries of the given kinds, root first, each read (from the file, in the compact part) only
   * when it is reached and of one of those kinds: a caller that stops early reads few.
   */
  *branchOfKinds(kinds: ReadonlySet<string>): Generator<Entry> {
    for (const id of this.branchIds()) {
      if (!kinds.has(this.typeOf(id) ?? '')) continue;
      const e = this.get(id);
      if (e !== undefined) yield e;
    }
  }

  /** The position of a compact-part entry in file order (its slot), undefined for an entry held whole or unknown. */
  coldSlotOf(id: string): number | undefined {
    return this.byId.has(id) ? undefined : this.cold?.slotOf(id);
  }

  /** The id of the compact-part entry in `slot` (see coldSlotOf), made from the index's bytes; '' for no such slot. */
  coldIdAt(slot: number): string {
    return this.cold?.idAt(slot) ?? '';
  }

  /**
   * The compact-part entry in `slot` (see coldSlotOf), read back as get(coldIdAt(slot)) would, without making its id
   * and looking it up again; undefined for no such slot.
   */
  coldEntryAt(slot: number): Entry | undefined {
    const cold = this.cold;
    return cold === undefined || !Number.isInteger(slot) || slot < 0 || slot >= cold.size ? undefined : cold.entryAt(slot);
  }

  /** The parent of entry `id` (without reading an entry of the compact part back); undefined when unknown. */
  parentOf(id: string): string | null | undefined {
    const e = this.byId.get(id);
    if (e !== undefined) return e.parentId;
    const cold = this.cold;
    const slot = cold?.slotOf(id);
    if (cold === undefined || slot === undefined) return undefined;
    const parent = cold.parentAt(slot);
    return parent < 0 ? null : cold.idAt(parent);
  }

  /** The kind of entry `id` (without reading an entry of the compact part back). */
  typeOf(id: string): Entry['type'] | undefined {
    const e = this.byId.get(id);
    if (e !== undefined) return e.type;
    const slot = this.cold?.slotOf(id);
    return slot === undefined ? undefined : (this.cold?.typeAt(slot) as Entry['type']);
  }

  get(id: string): Entry | undefined {
    return this.byId.get(id) ?? this.cold?.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id) || this.cold?.has(id) === true;
  }

  /** The links every add checks; a problem (recorded) when the entry cannot join the tree. */
  private linkProblem(e: {
    readonly id: string;
    readonly parentId: string | null;
    readonly type: string;
    readonly targetId?: string | null;
  }): false | undefined {
    if (this.has(e.id)) {
      return this.reject('duplicate_id', e.id, `duplicate entry id ${e.id}; later copy skipped`);
    }
    if (e.parentId !== null && !this.has(e.parentId) && this.opts.partial !== true) {
      // Parents always precede children in an append-only file; a forward or missing reference is
      // either corruption or a cycle. Keep the entry out of the tree but report it.
      const kind: TreeProblemKind = e.parentId === e.id ? 'cycle' : 'unknown_parent';
      return this.reject(kind, e.id, `entry ${e.id} has ${kind === 'cycle' ? 'itself as parent' : `unknown parent ${e.parentId}`}; skipped`);
    }
    if (e.type === 'leaf' && e.targetId !== undefined && e.targetId !== null && !this.has(e.targetId) && this.opts.partial !== true) {
      return this.reject('unknown_leaf_target', e.id, `leaf move ${e.id} targets unknown entry ${e.targetId}; ignored`);
    }
    return undefined;
  }

  /**
   * Adds a line before the tail that is kept whole (a leaf move, a kind the figures or the views fold, a line judged
   * whole) to the compact part of a tree made with `cold`, before any add(). Returns false (and records a problem)
   * when it cannot join the tree.
   */
  addCold(entry: Entry): boolean {
    const cold = this.cold;
    if (cold === undefined || this.order.length > 0) throw new Error('addCold() needs a tree made with a cold loader, before any add()');
    if (this.linkProblem(entry) === false) return false;
    cold.addEntry(entry);
    if (!isSubagentEntry(entry)) this.leaf = entry.type === 'leaf' ? entry.targetId : entry.id;
    this.running.reset();
    return true;
  }

  /**
   * Adds a line before the tail by its keys and its place in the file only: it is read from the file again when asked
   * for. The per-line path of indexing a compact history (a million lines); no record is built per line.
   */
  addColdLine(
    keys: Pick<ColdRecord, 'id' | 'parentId' | 'type' | 'subagent' | 'maybeSkill'>,
    at: { readonly lineNo: number; readonly offset: number; readonly length: number },
  ): boolean {
    const cold = this.cold;
    if (cold === undefined || this.order.length > 0) throw new Error('addColdLine() needs a tree made with a cold loader, before any add()');
    // The usual line (a new id under a known parent) takes one lookup and one write; anything else gets the full check.
    const parentSlot = keys.parentId === null ? -1 : cold.slotOf(keys.parentId);
    if (parentSlot === undefined || keys.parentId === keys.id || !cold.tryAddLine(keys, at, parentSlot)) {
      if (this.linkProblem(keys) === false) return false;
      cold.addLine(keys, at);
    }
    if (!keys.subagent) this.leaf = keys.id;
    this.running.reset();
    return true;
  }

  /** Adds an entry; returns false (and records a problem) when it cannot join the tree. */
  add(entry: Entry): boolean {
    if (this.linkProblem(entry) === false) return false;
    this.byId.set(entry.id, entry);
    this.order.push(entry);
    const before = this.leaf;
    // A subagent's entries are a side branch: the session's leaf (the parent's) stays where it was.
    if (!isSubagentEntry(entry)) this.leaf = entry.type === 'leaf' ? entry.targetId : entry.id;
    this.running.appended(entry, before);
    return true;
  }

  /** Counts, savings, the model and epoch in force on the active branch: running values, no walk unless the leaf moved. */
  figures(): BranchFigures {
    return this.running.get();
  }

  /** The conversation path from the root to `leafId` (default: the active leaf), root first, leaf moves excluded. */
  branch(leafId: string | null = this.leaf): Entry[] {
    return this.path(
      leafId,
      (e) => e,
      (cold, slot) => cold.entryAt(slot),
    );
  }

  /**
   * The path from `leafId` to the root, root first, leaf moves excluded: `hot` maps an entry held whole, `cold` a slot
   * of the compact part (where the walk follows parent slots, reading nothing unless `cold` does).
   */
  private path<T>(leafId: string | null, hot: (e: Entry) => T, cold: (part: ColdPart, slot: number) => T): T[] {
    const path: T[] = [];
    // add() only accepts parents that already exist, so the walk cannot cycle; the step bound is a
    // cheap guard that avoids a Set of every id on the hot preflight path.
    let steps = this.size;
    let cur = leafId === null ? undefined : this.byId.get(leafId);
    let next = leafId;
    while (cur && steps-- >= 0) {
      if (cur.type !== 'leaf') path.push(hot(cur));
      next = cur.parentId;
      cur = cur.parentId === null ? undefined : this.byId.get(cur.parentId);
    }
    const part = this.cold;
    let slot = next === null || part === undefined ? undefined : part.slotOf(next);
    while (part !== undefined && slot !== undefined && slot >= 0 && steps-- >= 0) {
      if (part.typeAt(slot) !== 'leaf') path.push(cold(part, slot));
      slot = part.parentAt(slot);
    }
    return path.reverse();
  }

  /**
   * The active branch folded root first. In the compact part an entry the figures only count is counted by its
   * type, unread; the others (capsules, undo events, model changes, system updates, answers that may call `skill`)
   * are read one at a time and dropped, so a million-entry history is never all in memory at once.
   */
  private foldBranch(fold: FiguresFold): void {
    const hot: Entry[] = [];
    let cur = this.leaf === null ? undefined : this.byId.get(this.leaf);
    let next = this.leaf;
    for (let steps = this.order.length; cur !== undefined && steps-- >= 0; cur = cur.parentId === null ? undefined : this.byId.get(cur.parentId)) {
      hot.push(cur);
      next = cur.parentId;
    }
    const cold = this.cold;
    const slots: number[] = [];
    for (
      let slot = next === null || cold === undefined ? undefined : cold.slotOf(next);
      cold !== undefined && slot !== undefined && slot >= 0 && slots.length <= cold.size;
      slot = cold.parentAt(slot)
    )
      slots.push(slot);
    for (let i = slots.length - 1; cold !== undefined && i >= 0; i--) {
      const slot = slots[i] ?? 0;
      const type = cold.typeAt(slot);
      if (type === 'user' || type === 'tool_result' || (type === 'assistant' && !cold.maybeSkillAt(slot))) fold.count(type);
      else if (FOLDED.has(type)) fold.add(cold.entryAt(slot));
    }
    for (let i = hot.length - 1; i >= 0; i--) {
      const e = hot[i];
      if (e !== undefined && e.type !== 'leaf') fold.add(e);
    }
  }

  /** The branch ending at `leafId` from the leaf back, each entry read only when reached (stop early to read few). */
  *walkBack(leafId: string | null = this.leaf): Generator<Entry> {
    let id = leafId;
    for (let steps = this.size; id !== null && steps-- >= 0; ) {
      const e = this.get(id);
      if (e === undefined) return;
      if (e.type !== 'leaf') yield e;
      id = e.parentId;
    }
  }

  /** Ids of the direct children of an entry, in file order. */
  children(id: string | null): Entry[] {
    const out: Entry[] = [];
    const cold = this.cold;
    const parent = id === null ? -1 : cold?.slotOf(id);
    if (cold !== undefined && parent !== undefined) {
      for (let i = 0; i < cold.size; i++) if (cold.parentAt(i) === parent && cold.typeAt(i) !== 'leaf' && !cold.subagentAt(i)) out.push(cold.entryAt(i));
    }
    for (const e of this.order) if (e.parentId === id && e.type !== 'leaf' && !isSubagentEntry(e)) out.push(e);
    return out;
  }
}
