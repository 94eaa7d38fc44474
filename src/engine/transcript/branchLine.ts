// The active branch kept as an array with the positions paged views look up (messages, model changes, capsules): extended on append, rebuilt only on a leaf move.
import type { CapsuleEntry, Entry, ModelChangeEntry } from './schema.js';
import type { SessionTree } from './tree.js';

/**
 * A view that shows the newest part of a long chat (the Checkpoints tree, a chat snapshot) must not walk the whole
 * branch to find it. The tree only grows, so each read folds only the entries added since the last one; an entry that
 * does not continue the branch (a rewind, an edit) drops the line and one walk builds it again. `generation` counts
 * those rebuilds, so folds kept on top of the line know when to start over.
 */
export class BranchLine {
  #seen = 0;
  #generation = 0;
  /**
   * Slots (file order) of the line's first `#coldSlots.length` entries, which lie in the compact part: ascending, so
   * searched. Their ids are the index's (tree.coldIdAt), made when asked for: a million-entry branch keeps no string each.
   */
  #coldSlots: number[] = [];
  /** Ids of the rest of the branch (held whole), root first. */
  #hotIds: string[] = [];
  /** The id of the line's last entry (what an appended entry must continue). */
  #tipId: string | null = null;
  /** Positions of the entries held whole (the tail, and everything appended since the chat opened). */
  #pos = new Map<string, number>();
  /** Positions of user messages, model changes and capsules, ascending. */
  #users: number[] = [];
  #models: number[] = [];
  #capsules: number[] = [];
  /** Capsule id → the latest undo event on the branch. */
  #toggled = new Map<string, 'undo' | 'redo'>();

  constructor(readonly tree: SessionTree) {}

  /** Brings the line up to the tree: O(entries added since the last read), a walk after a leaf move. */
  sync(): this {
    // Only the links of what was added since the last read: older entries of a compact history stay in the file.
    let stale = false;
    this.#seen += this.tree.eachLink(this.#seen, (id, parentId, type, subagent) => {
      if (type === 'leaf' || subagent) return;
      if (!stale && parentId === this.#tip()) this.#push(id, type);
      else stale = true;
    });
    if (stale || this.#tip() !== this.tree.leafId) this.#rebuild();
    return this;
  }

  #tip(): string | null {
    return this.#tipId;
  }

  #push(id: string, type: Entry['type']): void {
    const p = this.#coldSlots.length + this.#hotIds.length;
    this.#tipId = id;
    const slot = this.#hotIds.length === 0 ? this.tree.coldSlotOf(id) : undefined;
    if (slot !== undefined) this.#coldSlots.push(slot);
    else {
      this.#hotIds.push(id);
      this.#pos.set(id, p);
    }
    if (type === 'user') this.#users.push(p);
    else if (type === 'model_change') this.#models.push(p);
    else if (type === 'capsule') this.#capsules.push(p);
    else if (type === 'compaction_undo') {
      // Undo events are kept whole in a compact history: reading one does not touch the file.
      const e = this.tree.get(id);
      if (e?.type === 'compaction_undo') this.#toggled.set(e.capsuleId, e.action);
    }
  }

  #rebuild(): void {
    this.#generation++;
    this.#hotIds = [];
    this.#tipId = null;
    this.#coldSlots = [];
    this.#pos = new Map();
    this.#users = [];
    this.#models = [];
    this.#capsules = [];
    this.#toggled = new Map();
    for (const id of this.tree.branchIds()) this.#push(id, this.tree.typeOf(id) ?? 'user');
  }

  /** Changes each time the line was rebuilt (the branch changed, not only grew). */
  get generation(): number {
    return this.sync().#generation;
  }

  get length(): number {
    return this.sync().#length();
  }

  #length(): number {
    return this.#coldSlots.length + this.#hotIds.length;
  }

  /** The entry at `position` (one of a compact history is read from the file). */
  at(position: number): Entry | undefined {
    return this.sync().#entryAt(position);
  }

  /** The id at `position`, read from nowhere. */
  idAt(position: number): string | undefined {
    return this.sync().#idAt(position);
  }

  #idAt(position: number): string | undefined {
    if (!Number.isInteger(position) || position < 0) return undefined;
    const cold = this.#coldSlots.length;
    if (position < cold) return this.tree.coldIdAt(this.#coldSlots[position] ?? -1);
    return this.#hotIds[position - cold];
  }

  positionOf(id: string): number | undefined {
    this.sync();
    const p = this.#pos.get(id);
    if (p !== undefined) return p;
    const slot = this.tree.coldSlotOf(id);
    if (slot === undefined) return undefined;
    const i = lastAtOrBefore(this.#coldSlots, slot);
    return i >= 0 && this.#coldSlots[i] === slot ? i : undefined;
  }

  /** The entries at positions [from, to), root first (those of a compact history read from the file). */
  slice(from: number, to?: number): Entry[] {
    const length = this.sync().#length();
    const start = from < 0 ? Math.max(0, length + from) : Math.min(from, length);
    const end = to === undefined ? length : to < 0 ? Math.max(0, length + to) : Math.min(to, length);
    const out: Entry[] = [];
    for (let p = start; p < end; p++) {
      const e = this.#entryAt(p);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** The entry at a position the line already synced to (capsules and model changes are kept whole in a compact history). */
  #entryAt(position: number): Entry | undefined {
    if (!Number.isInteger(position) || position < 0) return undefined;
    const cold = this.#coldSlots.length;
    // Before the hot part, by slot: no id is made from the index's bytes and hashed to find that same slot again.
    if (position < cold) return this.tree.coldEntryAt(this.#coldSlots[position] ?? -1);
    const id = this.#hotIds[position - cold];
    return id === undefined ? undefined : this.tree.get(id);
  }

  /** How many user messages the branch holds. */
  get messages(): number {
    return this.sync().#users.length;
  }

  /** The position of the latest user message at or before `position` (0 when none: the start of the branch). */
  messageAtOrBefore(position: number): number {
    const users = this.sync().#users;
    const i = lastAtOrBefore(users, position);
    return i < 0 ? 0 : (users[i] ?? 0);
  }

  /** The position of the first user message after `position`, undefined when none follows. */
  messageAfter(position: number): number | undefined {
    const users = this.sync().#users;
    return users[lastAtOrBefore(users, position) + 1];
  }

  /** The model in force just before `position`. */
  modelBefore(position: number): ModelChangeEntry | undefined {
    const models = this.sync().#models;
    const e = this.#entryAt(models[lastAtOrBefore(models, position - 1)] ?? -1);
    return e?.type === 'model_change' ? e : undefined;
  }

  /** Whether the capsule's latest undo event on the branch undid it. */
  undone(capsuleId: string): boolean {
    return this.sync().#toggled.get(capsuleId) === 'undo';
  }

  /** The latest capsule on the branch, undone or not, and its position. */
  lastCapsule(): { readonly capsule: CapsuleEntry; readonly position: number } | undefined {
    const p = this.sync().#capsules.at(-1);
    const e = p === undefined ? undefined : this.#entryAt(p);
    return p === undefined || e?.type !== 'capsule' ? undefined : { capsule: e, position: p };
  }

  /** The latest capsule on the branch with `match` (undone or not), searched from the newest. */
  findCapsule(match: (c: CapsuleEntry) => boolean): CapsuleEntry | undefined {
    const caps = this.sync().#capsules;
    for (let i = caps.length - 1; i >= 0; i--) {
      const e = this.#entryAt(caps[i] ?? -1);
      if (e?.type === 'capsule' && match(e)) return e;
    }
    return undefined;
  }

  /**
   * What the capsule in force keeps of the branch (compaction/cut.ts spanSinceCapsule): entries from `start` on, and
   * the pinned ones before it. An entry outside is already summarized.
   */
  keptSpan(): { readonly start: number; readonly pinned: ReadonlySet<string> } {
    const caps = this.sync().#capsules;
    for (let i = caps.length - 1; i >= 0; i--) {
      const index = caps[i] ?? -1;
      const e = this.#entryAt(index);
      if (e?.type !== 'capsule' || this.#toggled.get(e.id) === 'undo') continue;
      const fk = e.firstKeptEntryId;
      let start = fk === null ? index + 1 : (this.positionOf(fk) ?? -1);
      if (start < 0 || start > index) start = index + 1;
      return { start, pinned: new Set(e.pinnedEntryIds) };
    }
    return { start: 0, pinned: new Set() };
  }
}

/** Index of the last value ≤ `x` in an ascending array, -1 when none. */
function lastAtOrBefore(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? Number.POSITIVE_INFINITY) <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const lines = new WeakMap<SessionTree, BranchLine>();

/** The one line of a tree, shared by every view that reads it (a reopened chat has a new tree, so a new line). */
export function lineOf(tree: SessionTree): BranchLine {
  let line = lines.get(tree);
  if (line === undefined) {
    line = new BranchLine(tree);
    lines.set(tree, line);
  }
  return line;
}
