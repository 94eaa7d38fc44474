// The moments of a chat kept incrementally for the paged Checkpoints tree: folded as entries are appended, refolded only when the branch changes.
import { lineOf, type BranchLine } from './branchLine.js';
import { otherMoment, PROMPT_LOOKBACK, type Moment, type MomentChild } from './moments.js';
import type { CapsuleEntry, CheckpointEntry, CompactionUndoEntry, Entry } from './schema.js';
import type { SessionTree } from './tree.js';

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
  /**
   * Moments by number: 0 is what comes before the first message, k the k-th message, at line position
   * `#messages[k - 1]`. Only moments with children hold a list: a million-entry chat is a few arrays of numbers.
   */
  #messages: number[] = [];
  #children = new Map<number, OpenChild[]>();
  /** Positions of the answers on the line, ascending: a moment's token figure is the latest usage before it. */
  #answers: number[] = [];
  /** Answer index → its prompt tokens (null: it reports no usage), for the answers read so far. */
  #usageAt = new Map<number, number | null>();
  /** Checkpoint children by checkpoint id (a compaction's own checkpoint is dropped when its capsule arrives). */
  #checkpoints = new Map<string, { readonly moment: number; readonly child: OpenChild }[]>();
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
    this.#seen += this.tree.eachLink(this.#seen, (id, _parentId, type, subagent) => {
      if (type === 'leaf' || subagent) return;
      if (type === 'user') this.#users.push(id);
      else if (type === 'compaction_undo') {
        const e = this.tree.get(id);
        if (e?.type === 'compaction_undo') this.#undo.set(e.capsuleId, [...(this.#undo.get(e.capsuleId) ?? []), e]);
      }
    });
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
    this.#messages = [];
    this.#children = new Map();
    this.#answers = [];
    this.#usageAt = new Map();
    this.#checkpoints = new Map();
    this.#capsuleCheckpoints = new Set();
    this.#compactions = new Map();
  }

  /** The moment entries fold into now: the latest message's (0 before the first). */
  #current(): number {
    return this.#messages.length;
  }

  #childrenOf(moment: number): OpenChild[] {
    let list = this.#children.get(moment);
    if (list === undefined) {
      list = [];
      this.#children.set(moment, list);
    }
    return list;
  }

  #add(id: string, type: Entry['type'], position: number): void {
    if (type === 'user') {
      this.#messages.push(position);
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
      this.#childrenOf(moment).push(child);
      this.#checkpoints.set(e.checkpointId, [...(this.#checkpoints.get(e.checkpointId) ?? []), { moment, child }]);
    } else if (e?.type === 'capsule') {
      // The checkpoint taken before a compaction is that compaction's, not a rewind point of its own.
      this.#capsuleCheckpoints.add(e.checkpointId);
      for (const { moment, child } of this.#checkpoints.get(e.checkpointId) ?? []) {
        const list = this.#childrenOf(moment);
        list.splice(list.indexOf(child), 1);
        if (list.length === 0) this.#children.delete(moment);
      }
      this.#checkpoints.delete(e.checkpointId);
      const child: OpenCompaction = { kind: 'compaction', entry: e, undone: false, events: [] };
      this.#childrenOf(this.#current()).push(child);
      this.#compactions.set(e.id, child);
    } else if (e?.type === 'compaction_undo') {
      const c = this.#compactions.get(e.capsuleId);
      if (c === undefined) return;
      c.events.push(e);
      c.undone = e.action === 'undo';
    }
  }

  /**
   * Prompt tokens of the latest answer with usage before `position`, among the PROMPT_LOOKBACK answers before it:
   * answers are read back from the newest until one reports usage (usually the first); each answer's usage, once
   * read, is remembered, so a page refreshed reads nothing again.
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
    for (let k = i; k >= 0 && k > i - PROMPT_LOOKBACK; k--) {
      let usage = this.#usageAt.get(k);
      if (usage === undefined) {
        const e = this.#line.at(answers[k] ?? -1);
        usage = e?.type === 'assistant' && e.usage !== undefined ? e.usage.promptTokens : null;
        this.#usageAt.set(k, usage);
      }
      if (usage !== null) return usage;
    }
    return undefined;
  }

  /** A moment as the tree shows it: its message and its own checkpoint read now, its children copied (the fold goes on changing). */
  #frozen(moment: number): Moment {
    const children = (this.#children.get(moment) ?? []).map(
      (c): MomentChild => (c.kind === 'compaction' ? { kind: 'compaction', entry: c.entry, undone: c.undone, events: [...c.events] } : c),
    );
    const position = moment === 0 ? undefined : this.#messages[moment - 1];
    if (position === undefined) return { index: moment, children };
    const message = this.#line.at(position);
    const parent = this.#line.at(position - 1);
    const checkpoint = parent?.type === 'checkpoint' && parent.forEntryId === message?.id ? parent : undefined;
    const tokens = this.#promptBefore(position);
    return {
      ...(message?.type === 'user' ? { message } : {}),
      index: moment,
      children,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      ...(tokens === undefined ? {} : { tokens }),
    };
  }

  /** Whether what comes before the first message has rows of its own (then it counts as a moment). */
  #withPre(): number {
    return (this.#children.get(0)?.length ?? 0) > 0 ? 1 : 0;
  }

  /** How many moments the active branch has (what comes before the first message counts as one when it has rows). */
  get count(): number {
    this.#sync();
    return this.#messages.length + this.#withPre();
  }

  /** Active moments [from, to) in branch order, as frozen copies (the fold goes on changing). */
  active(from = 0, to = Number.POSITIVE_INFINITY): Moment[] {
    this.#sync();
    const withPre = this.#withPre();
    const out: Moment[] = [];
    const end = Math.min(to, this.#messages.length + withPre);
    for (let i = Math.max(0, from); i < end; i++) out.push(this.#frozen(i + 1 - withPre));
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
    // Listed again only when the branch changed (a leaf move); on the same branch only the messages added since are
    // looked at (one appended at the leaf is on it; one written elsewhere, by another window, is not).
    const since = cached?.generation === this.#generation ? cached.users : 0;
    const added = this.#users.slice(since).filter((u) => this.#line.positionOf(u) === undefined);
    const list = since === 0 ? added : [...(cached?.list ?? []), ...added];
    this.#others = { generation: this.#generation, users: this.#users.length, list };
    return list;
  }

  /** First child of each entry (its id), built the first time another branch is shown, then only grown. */
  #firstChildren(): ReadonlyMap<string, string> {
    const index = this.#firstChild ?? { seen: 0, map: new Map<string, string>() };
    this.#firstChild = index;
    index.seen += this.tree.eachLink(index.seen, (id, parentId, type, subagent) => {
      if (parentId !== null && type !== 'leaf' && !subagent && !index.map.has(parentId)) index.map.set(parentId, id);
    });
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
