// The moments of a chat kept incrementally for the paged Checkpoints tree: folded as entries are appended, refolded only when the branch changes.
import { lineOf, type BranchLine } from './branchLine.js';
import { otherMoment, type Moment, type MomentChild } from './moments.js';
import type { CapsuleEntry, CheckpointEntry, CompactionUndoEntry, Entry, UserEntry } from './schema.js';
import { isSubagentEntry } from './subagentRef.js';
import type { SessionTree } from './tree.js';

interface OpenMoment {
  message?: UserEntry;
  index: number;
  checkpoint?: CheckpointEntry;
  tokens?: number;
  children: MomentChild[];
}

type OpenCompaction = { readonly kind: 'compaction'; readonly entry: CapsuleEntry; undone: boolean; readonly events: CompactionUndoEntry[] };

/**
 * The same moments as `momentsOf(entries, branch)` (moments.ts), read a page at a time: the active branch's moments
 * are a fold over the branch line kept between reads, so a refresh after an append costs the appended entries plus
 * the page, whatever the chat's length. Other branches' messages are listed from an index of the whole tree that
 * also only grows. A subagent's entries are not the chat's moments and are left out, as the tree view does.
 */
export class MomentIndex {
  readonly #line: BranchLine;
  #generation = -1;
  #done = 0;
  #pre: OpenMoment = { index: 0, children: [] };
  #moments: OpenMoment[] = [];
  #lastPrompt: number | undefined;
  /** Checkpoint children by checkpoint id (a compaction's own checkpoint is dropped when its capsule arrives). */
  #checkpoints = new Map<string, { readonly moment: OpenMoment; readonly child: MomentChild }[]>();
  #capsuleCheckpoints = new Set<string>();
  #compactions = new Map<string, OpenCompaction>();

  /** Whole tree, file order: its user messages, first children, undo events. */
  #seen = 0;
  readonly #users: UserEntry[] = [];
  readonly #firstChild = new Map<string, Entry>();
  readonly #undo = new Map<string, CompactionUndoEntry[]>();
  #others: { readonly generation: number; readonly users: number; readonly list: readonly UserEntry[] } | undefined;

  constructor(readonly tree: SessionTree) {
    this.#line = lineOf(tree);
  }

  #sync(): void {
    const all = this.tree.entries();
    for (; this.#seen < all.length; this.#seen++) {
      const e = all[this.#seen];
      if (e === undefined || e.type === 'leaf' || isSubagentEntry(e)) continue;
      if (e.type === 'user') this.#users.push(e);
      if (e.type === 'compaction_undo') this.#undo.set(e.capsuleId, [...(this.#undo.get(e.capsuleId) ?? []), e]);
      if (e.parentId !== null && !this.#firstChild.has(e.parentId)) this.#firstChild.set(e.parentId, e);
    }
    const line = this.#line;
    if (line.generation !== this.#generation) this.#restart(line.generation);
    for (const n = line.length; this.#done < n; this.#done++) {
      const e = line.at(this.#done);
      if (e !== undefined) this.#add(e, this.#done);
    }
  }

  #restart(generation: number): void {
    this.#generation = generation;
    this.#done = 0;
    this.#pre = { index: 0, children: [] };
    this.#moments = [];
    this.#lastPrompt = undefined;
    this.#checkpoints = new Map();
    this.#capsuleCheckpoints = new Set();
    this.#compactions = new Map();
  }

  #current(): OpenMoment {
    return this.#moments.at(-1) ?? this.#pre;
  }

  #add(e: Entry, position: number): void {
    switch (e.type) {
      case 'user': {
        const parent = this.#line.at(position - 1);
        const checkpoint = parent?.type === 'checkpoint' && parent.forEntryId === e.id ? parent : undefined;
        const tokens = this.#lastPrompt;
        this.#moments.push({
          message: e,
          index: this.#moments.length + 1,
          children: [],
          ...(checkpoint === undefined ? {} : { checkpoint }),
          ...(tokens === undefined ? {} : { tokens }),
        });
        break;
      }
      case 'assistant':
        if (e.usage !== undefined) this.#lastPrompt = e.usage.promptTokens;
        break;
      case 'checkpoint': {
        if (e.forEntryId !== undefined || this.#capsuleCheckpoints.has(e.checkpointId)) break;
        const moment = this.#current();
        const child: MomentChild = { kind: 'checkpoint', entry: e };
        moment.children.push(child);
        this.#checkpoints.set(e.checkpointId, [...(this.#checkpoints.get(e.checkpointId) ?? []), { moment, child }]);
        break;
      }
      case 'capsule': {
        // The checkpoint taken before a compaction is that compaction's, not a rewind point of its own.
        this.#capsuleCheckpoints.add(e.checkpointId);
        for (const { moment, child } of this.#checkpoints.get(e.checkpointId) ?? []) moment.children.splice(moment.children.indexOf(child), 1);
        this.#checkpoints.delete(e.checkpointId);
        const child: OpenCompaction = { kind: 'compaction', entry: e, undone: false, events: [] };
        this.#current().children.push(child);
        this.#compactions.set(e.id, child);
        break;
      }
      case 'compaction_undo': {
        const c = this.#compactions.get(e.capsuleId);
        if (c === undefined) break;
        c.events.push(e);
        c.undone = e.action === 'undo';
        break;
      }
      default:
        break;
    }
  }

  /** How many moments the active branch has (what comes before the first message counts as one when it has rows). */
  get count(): number {
    this.#sync();
    return this.#moments.length + (this.#pre.children.length > 0 ? 1 : 0);
  }

  /** Active moments [from, to) in branch order, as frozen copies (the fold goes on changing). */
  active(from = 0, to = Number.POSITIVE_INFINITY): Moment[] {
    this.#sync();
    const withPre = this.#pre.children.length > 0 ? 1 : 0;
    const out: Moment[] = [];
    const end = Math.min(to, this.#moments.length + withPre);
    for (let i = Math.max(0, from); i < end; i++) {
      const m = withPre === 1 && i === 0 ? this.#pre : this.#moments[i - withPre];
      if (m !== undefined) out.push(frozen(m));
    }
    return out;
  }

  /** Whether the capsule in force already summarizes a message of the active branch (read once per page). */
  summarizedTest(): (messageId: string) => boolean {
    this.#sync();
    const line = this.#line;
    const kept = line.keptSpan();
    return (messageId) => {
      const p = line.positionOf(messageId);
      return p !== undefined && p < kept.start && !kept.pinned.has(messageId);
    };
  }

  #otherUsers(): readonly UserEntry[] {
    this.#sync();
    const cached = this.#others;
    if (cached?.generation === this.#generation && cached.users === this.#users.length) return cached.list;
    // Listed again only when the branch changed (a leaf move): an append at the leaf puts no message off the branch.
    const list = this.#users.filter((u) => this.#line.positionOf(u.id) === undefined);
    this.#others = { generation: this.#generation, users: this.#users.length, list };
    return list;
  }

  /** How many messages live only on other branches. */
  get otherCount(): number {
    return this.#otherUsers().length;
  }

  /** Moments of other branches' messages [from, to), in file order. */
  other(from = 0, to = Number.POSITIVE_INFINITY): Moment[] {
    const users = this.#otherUsers();
    const out: Moment[] = [];
    const end = Math.min(to, users.length);
    for (let i = Math.max(0, from); i < end; i++) {
      const u = users[i];
      const m = u === undefined ? undefined : otherMoment(u, i + 1, (id) => this.#firstChild.get(id), this.tree, this.#undo, this.tree.size);
      if (m !== undefined) out.push(m);
    }
    return out;
  }
}

function frozen(m: OpenMoment): Moment {
  const children = m.children.map(
    (c): MomentChild => (c.kind === 'compaction' ? { kind: 'compaction', entry: c.entry, undone: c.undone, events: [...c.events] } : c),
  );
  return { ...m, children };
}

const indexes = new WeakMap<SessionTree, MomentIndex>();

/** The one moment index of a tree (a reopened chat has a new tree, so a new index). */
export function momentIndexOf(tree: SessionTree): MomentIndex {
  let index = indexes.get(tree);
  if (index === undefined) {
    index = new MomentIndex(tree);
    indexes.set(tree, index);
  }
  return index;
}
