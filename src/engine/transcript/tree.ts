// The entry tree of one session: parent links, the explicit active leaf, and the branch from a leaf.
import { RunningFigures, type BranchFigures } from './branchFigures.js';
import { ProblemList } from './problemList.js';
import type { Entry } from './schema.js';
import { isSubagentEntry } from './subagentRef.js';

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
  private readonly running = new RunningFigures(() => this.branch());

  /**
   * `partial`: the tree holds only the end of a file (read first, src/node/tailRead.ts), so a parent or a leaf
   * target before its first entry is not an error: the walk to the root simply stops there.
   */
  constructor(private readonly opts: { readonly partial?: boolean } = {}) {}

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
    return this.order.length;
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

  /** All accepted entries in file order (leaf moves included). */
  entries(): readonly Entry[] {
    return this.order;
  }

  get(id: string): Entry | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Adds an entry; returns false (and records a problem) when it cannot join the tree. */
  add(entry: Entry): boolean {
    if (this.byId.has(entry.id)) {
      return this.reject('duplicate_id', entry.id, `duplicate entry id ${entry.id}; later copy skipped`);
    }
    if (entry.parentId !== null && !this.byId.has(entry.parentId) && this.opts.partial !== true) {
      // Parents always precede children in an append-only file; a forward or missing reference is
      // either corruption or a cycle. Keep the entry out of the tree but report it.
      const kind: TreeProblemKind = entry.parentId === entry.id ? 'cycle' : 'unknown_parent';
      return this.reject(kind, entry.id, `entry ${entry.id} has ${kind === 'cycle' ? 'itself as parent' : `unknown parent ${entry.parentId}`}; skipped`);
    }
    if (entry.type === 'leaf' && entry.targetId !== null && !this.byId.has(entry.targetId) && this.opts.partial !== true) {
      return this.reject('unknown_leaf_target', entry.id, `leaf move ${entry.id} targets unknown entry ${entry.targetId}; ignored`);
    }
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
    const path: Entry[] = [];
    // add() only accepts parents that already exist, so the walk cannot cycle; the step bound is a
    // cheap guard that avoids a Set of every id on the hot preflight path.
    let steps = this.order.length;
    let cur = leafId === null ? undefined : this.byId.get(leafId);
    while (cur && steps-- >= 0) {
      if (cur.type !== 'leaf') path.push(cur);
      cur = cur.parentId === null ? undefined : this.byId.get(cur.parentId);
    }
    return path.reverse();
  }

  /** Ids of the direct children of an entry, in file order. */
  children(id: string | null): Entry[] {
    return this.order.filter((e) => e.parentId === id && e.type !== 'leaf' && !isSubagentEntry(e));
  }
}
