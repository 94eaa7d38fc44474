// The moments of a chat kept incrementally for the paged Checkpoints tree: folded as entries are appended, refolded only when the branch changes.
import { lineOf, type BranchLine } from './branchLine.js';
import { otherMoment, type Moment, type MomentChild } from './moments.js';
import type { CapsuleEntry, CheckpointEntry, CompactionUndoEntry, Entry } from './schema.js';
import type { SessionTree } from './tree.js';

interface OpenMoment {
  /** The message's id and position on the branch line (none for what comes before the first message). */
  readonly messageId?: string;
  readonly position?: number;
  index: number;
  children: OpenChild[];
}

type OpenCompaction = { readonly kind: 'compaction'; readonly entry: CapsuleEntry; undone: boolean; readonly events: CompactionUndoEntry[] };
type OpenChild = { readonly kind: 'checkpoint'; readonly entry: CheckpointEntry } | OpenCompaction;

/** What the fold reads whole: kinds a compact history keeps in memory (src/node/sessionLoad.ts), never read back. */
const FOLDED: ReadonlySet<string> = new Set(['checkpoint', 'capsule', 'compaction_undo']);

/**
 * The same moments as `momentsOf(entries, branch)` (moments.ts), read a page at a time: the active branch's moments
 * are a fold over the branch line kept between reads, so a refresh after an append costs the appended entries plus
 * the page, whatever the chat's length. The fold reads ids and kinds, and the checkpoints, capsules and undo events
 * (kept whole in a compact history); a moment's message and its token figure are read when its page is shown. Other
 * branches' messages are listed from an index of the whole tree that also only grows. A subagent's entries are not
 * the chat's moments and are left out, as the tree view does.
 */
export class MomentIndex {
  readonly #line: BranchLine;
  #generation = -1;
  #done = 0;
  #pre: OpenMoment = { index: 0, children: [] };
  #moments: OpenMoment[] = [];
  /** Positions of the answers on the line, ascending: a moment's token figure is the latest usage before it. */
  #answers: number[] = [];
  /** Answer index → the prompt tokens of the latest answer with usage at or before it (null: none), as read. */
  #promptAt = new Map<number, number | null>();
  /** Checkpoint children by checkpoint id (a compaction's own checkpoint is dropped when its capsule arrives). */
  #checkpoints = new Map<string, { readonly moment: OpenMoment; readonly child: OpenChild }[]>();
  #capsuleCheckpoints = new Set<string>();
  #compactions = new Map<string, OpenCompaction>();

  /** Whole tree, file order: its user messages (ids), undo events; first children only once another branch is shown. */
  #seen = 0;
  readonly #users: string[] = [];
  readonly #undo = new Map<string, CompactionUndoEntry[]>();
  #firstChild: { seen: number; readonly map: Map<string, string> } | undefined;
  #others: { readonly generation: number; readonly users: number; readonly list: readonly string[] } | undefined;

  constructor(readonly tree: SessionTree) {
    this.#line = lineOf(tree);
  }

  #sync(): void {
    const added = this.tree.linksFrom(this.#seen);
    this.#seen += added.length;
    for (const l of added) {
      if (l.type === 'leaf' || l.subagent !== undefined) continue;
      if (l.type === 'user') this.#users.push(l.id);
      else if (l.type === 'compaction_undo') {
        const e = this.tree.get(l.id);
        if (e?.type === 'compaction_undo') this.#undo.set(e.capsuleId, [...(this.#undo.get(e.capsuleId) ?? []), e]);
      }
    }
    const line = this.#line;
    if (line.generation !== this.#generation) this.#restart(line.generation);
    for (const n = line.length; this.#done < n; this.#done++) {
      const id = line.idAt(this.#done);
      const type = id === undefined ? undefined : this.tree.typeOf(id);
      if (id !== undefined && type !== undefined) this.#add(id, type, this.#done);
    }
  }

  #restart(generation: number): void {
    this.#generation = generation;
    this.#done = 0;
    this.#pre = { index: 0, children: [] };
    this.#moments = [];
    this.#answers = [];
    this.#promptAt = new Map();
    this.#checkpoints = new Map();
    this.#capsuleCheckpoints = new Set();
    this.#compactions = new Map();
  }

  #current(): OpenMoment {
    return this.#moments.at(-1) ?? this.#pre;
  }

  #add(id: string, type: Entry['type'], position: number): void {
    if (type === 'user') {
      this.#moments.push({ messageId: id, position, index: this.#moments.length + 1, children: [] });
      return;
    }
    if (type === 'assistant') {
      this.#answers.push(position);
      return;
    }
    if (!FOLDED.has(type)) return;
    const e = this.tree.get(id);
    if (e?.type === 'checkpoint') {
      if (e.forEntryId !== undefined || this.#capsuleCheckpoints.has(e.checkpointId)) return;
      const moment = this.#current();
      const child: OpenChild = { kind: 'checkpoint', entry: e };
      moment.children.push(child);
      this.#checkpoints.set(e.checkpointId, [...(this.#checkpoints.get(e.checkpointId) ?? []), { moment, child }]);
    } else if (e?.type === 'capsule') {
      // The checkpoint taken before a compaction is that compaction's, not a rewind point of its own.
      this.#capsuleCheckpoints.add(e.checkpointId);
      for (const { moment, child } of this.#checkpoints.get(e.checkpointId) ?? []) moment.children.splice(moment.children.indexOf(child), 1);
      this.#checkpoints.delete(e.checkpointId);
      const child: OpenCompaction = { kind: 'compaction', entry: e, undone: false, events: [] };
      this.#current().children.push(child);
      this.#compactions.set(e.id, child);
    } else if (e?.type === 'compaction_undo') {
      const c = this.#compactions.get(e.capsuleId);
      if (c === undefined) return;
      c.events.push(e);
      c.undone = e.action === 'undo';
    }
  }

  /**
   * Prompt tokens of the latest answer with usage before `position`: answers are read back from the newest until one
   * reports usage (usually the first), and what was found is remembered for the answers walked.
   */
  #promptBefore(position: number): number | undefined {
    const answers = this.#answers;
    let lo = 0;
    let hi = answers.length - 1;
    let i = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((answers[mid] ?? Number.POSITIVE_INFINITY) < position) {
        i = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const walked: number[] = [];
    let found: number | null = null;
    for (; i >= 0; i--) {
      const known = this.#promptAt.get(i);
      if (known !== undefined) {
        found = known;
        break;
      }
      walked.push(i);
      const e = this.#line.at(answers[i] ?? -1);
      if (e?.type === 'assistant' && e.usage !== undefined) {
        found = e.usage.promptTokens;
        break;
      }
    }
    for (const w of walked) this.#promptAt.set(w, found);
    return found ?? undefined;
  }

  /** A moment as the tree shows it: its message and its own checkpoint read now, its children copied (the fold goes on changing). */
  #frozen(m: OpenMoment): Moment {
    const children = m.children.map(
      (c): MomentChild => (c.kind === 'compaction' ? { kind: 'compaction', entry: c.entry, undone: c.undone, events: [...c.events] } : c),
    );
    if (m.messageId === undefined || m.position === undefined) return { index: m.index, children };
    const message = this.tree.get(m.messageId);
    const parent = this.#line.at(m.position - 1);
    const checkpoint = parent?.type === 'checkpoint' && parent.forEntryId === m.messageId ? parent : undefined;
    const tokens = this.#promptBefore(m.position);
    return {
      ...(message?.type === 'user' ? { message } : {}),
      index: m.index,
      children,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(tokens === undefined ? {} : { tokens }),
    };
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
      if (m !== undefined) out.push(this.#frozen(m));
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

  #otherUsers(): readonly string[] {
    this.#sync();
    const cached = this.#others;
    if (cached?.generation === this.#generation && cached.users === this.#users.length) return cached.list;
    // Listed again only when the branch changed (a leaf move): an append at the leaf puts no message off the branch.
    const list = this.#users.filter((u) => this.#line.positionOf(u) === undefined);
    this.#others = { generation: this.#generation, users: this.#users.length, list };
    return list;
  }

  /** First child of each entry (its id), built the first time another branch is shown, then only grown. */
  #firstChildren(): ReadonlyMap<string, string> {
    const index = this.#firstChild ?? { seen: 0, map: new Map<string, string>() };
    this.#firstChild = index;
    const added = this.tree.linksFrom(index.seen);
    index.seen += added.length;
    for (const l of added)
      if (l.parentId !== null && l.type !== 'leaf' && l.subagent === undefined && !index.map.has(l.parentId)) index.map.set(l.parentId, l.id);
    return index.map;
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
    if (Math.max(0, from) >= end) return out;
    const first = this.#firstChildren();
    const child = (id: string): Entry | undefined => {
      const c = first.get(id);
      return c === undefined ? undefined : this.tree.get(c);
    };
    for (let i = Math.max(0, from); i < end; i++) {
      const u = users[i] === undefined ? undefined : this.tree.get(users[i] ?? '');
      const m = u?.type === 'user' ? otherMoment(u, i + 1, child, this.tree, this.#undo, this.tree.size) : undefined;
      if (m !== undefined) out.push(m);
    }
    return out;
  }
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
