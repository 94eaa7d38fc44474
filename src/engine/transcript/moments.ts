// The moments of a chat for the checkpoints tree: each user message with the checkpoints and compactions that belong to it, branches apart.
import type { CapsuleEntry, CheckpointEntry, CompactionUndoEntry, Entry, UserEntry } from './schema.js';

export type MomentChild =
  | { readonly kind: 'checkpoint'; readonly entry: CheckpointEntry }
  | { readonly kind: 'compaction'; readonly entry: CapsuleEntry; readonly undone: boolean; readonly events: readonly CompactionUndoEntry[] };

export interface Moment {
  /** The message, or undefined for what comes before the first message (a loaded capsule, an early checkpoint). */
  readonly message?: UserEntry;
  /** 1-based position among the messages of its branch. */
  readonly index: number;
  /** The message's own checkpoint (taken right before it was sent). */
  readonly checkpoint?: CheckpointEntry;
  /**
   * Provider-reported prompt tokens of the last request before the message (the input size at that moment), when it
   * is one of the PROMPT_LOOKBACK latest answers before it: a figure from further back would not describe the moment.
   */
  readonly tokens?: number;
  readonly children: readonly MomentChild[];
}

export interface Moments {
  readonly active: readonly Moment[];
  /** Messages on other branches (after a rewind or an edit), with where they branched off. */
  readonly other: readonly Moment[];
}

/** How many answers back a message's token figure is looked for (answers without usage: imports, some providers). */
export const PROMPT_LOOKBACK = 64;

/** Groups the entries of `path` into moments, one per user message. */
function group(
  path: readonly Entry[],
  byId: Pick<ReadonlyMap<string, Entry>, 'get'>,
  undoEvents: ReadonlyMap<string, readonly CompactionUndoEntry[]>,
  activeIds: ReadonlySet<string>,
): Moment[] {
  const out: { message?: UserEntry; index: number; checkpoint?: CheckpointEntry; tokens?: number; children: MomentChild[] }[] = [];
  let current: (typeof out)[number] = { index: 0, children: [] };
  let lastPrompt: number | undefined;
  /** Answers since the one that set lastPrompt. */
  let answersSince = 0;
  let count = 0;
  for (const e of path) {
    if (e.type === 'user') {
      if (current.message !== undefined || current.children.length > 0) out.push(current);
      count++;
      const parent = e.parentId === null ? undefined : byId.get(e.parentId);
      const checkpoint = parent?.type === 'checkpoint' && parent.forEntryId === e.id ? parent : undefined;
      current = {
        message: e,
        index: count,
        children: [],
        ...(checkpoint === undefined ? {} : { checkpoint }),
        ...(lastPrompt === undefined || answersSince >= PROMPT_LOOKBACK ? {} : { tokens: lastPrompt }),
      };
    } else if (e.type === 'assistant') {
      if (e.usage !== undefined) {
        lastPrompt = e.usage.promptTokens;
        answersSince = 0;
      } else answersSince++;
    } else if (e.type === 'checkpoint' && e.forEntryId === undefined && !isCompactionCheckpoint(e, path))
      current.children.push({ kind: 'checkpoint', entry: e });
    else if (e.type === 'capsule') {
      const events = (undoEvents.get(e.id) ?? []).filter((u) => activeIds.has(u.id));
      const last = events[events.length - 1];
      current.children.push({ kind: 'compaction', entry: e, undone: last?.action === 'undo', events });
    }
  }
  if (current.message !== undefined || current.children.length > 0) out.push(current);
  return out;
}

function isCompactionCheckpoint(e: CheckpointEntry, path: readonly Entry[]): boolean {
  return path.some((x) => x.type === 'capsule' && x.checkpointId === e.checkpointId);
}

/**
 * The active branch as moments, and the messages that live only on other branches as moments of their own (each
 * with the entries after its branch point up to the next message). A fold of the whole tree: the Checkpoints tree
 * keeps the same moments incrementally (momentIndex.ts); this is the reference it is tested against.
 */
export function momentsOf(entries: readonly Entry[], branch: readonly Entry[]): Moments {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const activeIds = new Set(branch.map((e) => e.id));
  const undoEvents = new Map<string, CompactionUndoEntry[]>();
  for (const e of entries) if (e.type === 'compaction_undo') undoEvents.set(e.capsuleId, [...(undoEvents.get(e.capsuleId) ?? []), e]);
  const active = group(branch, byId, undoEvents, activeIds);
  // First child of each entry, found once: other branches are walked child by child.
  const firstChild = new Map<string, Entry>();
  for (const e of entries) if (e.parentId !== null && e.type !== 'leaf' && !firstChild.has(e.parentId)) firstChild.set(e.parentId, e);
  const other: Moment[] = [];
  for (const e of entries) {
    if (e.type !== 'user' || activeIds.has(e.id)) continue;
    const m = otherMoment(e, other.length + 1, (id) => firstChild.get(id), byId, undoEvents, entries.length);
    if (m !== undefined) other.push(m);
  }
  return { active, other };
}

/**
 * The moment of a message on another branch: the entries of its turn, found by walking down first children until the
 * next message (at most `limit` steps). `index` is its 1-based place among the other branches' messages.
 */
export function otherMoment(
  message: UserEntry,
  index: number,
  firstChild: (id: string) => Entry | undefined,
  byId: Pick<ReadonlyMap<string, Entry>, 'get'>,
  undoEvents: ReadonlyMap<string, readonly CompactionUndoEntry[]>,
  limit: number,
): Moment | undefined {
  const path: Entry[] = [message];
  for (let next = firstChild(message.id); next !== undefined && next.type !== 'user' && path.length <= limit; next = firstChild(next.id)) path.push(next);
  const m = group(path, byId, undoEvents, new Set(path.map((x) => x.id)))[0];
  return m === undefined ? undefined : { ...m, index };
}

/** Chat titles that tell chats apart: two chats that start alike get their start time added. */
export function distinctTitles<T extends { readonly id: string; readonly title?: string; readonly createdAt: string }>(
  chats: readonly T[],
  when: (iso: string) => string,
): Map<string, string> {
  const base = new Map(chats.map((c) => [c.id, c.title !== undefined && c.title.trim() !== '' ? oneLine(c.title) : `Chat of ${when(c.createdAt)}`]));
  const seen = new Map<string, number>();
  for (const t of base.values()) seen.set(t, (seen.get(t) ?? 0) + 1);
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const c of chats) {
    const t = base.get(c.id) ?? c.id;
    let title = (seen.get(t) ?? 0) > 1 ? `${t} · ${when(c.createdAt)}` : t;
    // Same title and same minute: the id tells them apart for certain.
    if (used.has(title)) title = `${title} · ${c.id.slice(-6)}`;
    used.add(title);
    out.set(c.id, title);
  }
  return out;
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
