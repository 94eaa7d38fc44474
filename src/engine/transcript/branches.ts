// Where a chat forks: messages (or answers) that continue the same moment on different branches, for the ‹ 1/2 › switcher, and where a switch lands.
import { resolveRewindPoint } from './rewindPoint.js';
import type { Entry } from './schema.js';
import type { EntryLink, SessionTree } from './tree.js';

/**
 * The entries that fix a moment of the conversation. What lies between two of them (message checkpoints, system
 * updates, model changes, capsules, undo events) belongs to the same moment: a message sent again after a rewind,
 * a model switch or a compaction continues the same point as the one it replaces.
 */
const ANCHORS: ReadonlySet<Entry['type']> = new Set(['user', 'assistant', 'tool_result', 'turn_end']);
/** The entries a branch can start with and be told apart by: what the chat shows as a message. */
const ALTERNATIVES: ReadonlySet<Entry['type']> = new Set(['user', 'assistant']);

export interface Fork {
  /** 1-based position of this branch among the alternatives, in the order they were written. */
  readonly index: number;
  readonly count: number;
  /** The entry the previous (next) branch starts with; absent on the first (last). */
  readonly previous?: string;
  readonly next?: string;
  /** Every alternative is the same message sent again (Retry): the answers differ, the question does not. */
  readonly retry: boolean;
}

export type SwitchPoint =
  | { readonly ok: true; readonly targetId: string | null; readonly tipId: string; readonly adjusted: boolean }
  | { readonly ok: false; readonly error: string };

/**
 * The alternatives of every moment of one tree, built incrementally: the tree only grows, so each call reads only
 * the entries added since the last one.
 */
export class BranchIndex {
  #seen = 0;
  /** Entry id → the nearest anchor above it (null: the start of the chat). */
  readonly #anchorOf = new Map<string, string | null>();
  /** Anchor → the alternatives that continue it (ids and kinds), in file order. */
  readonly #alternatives = new Map<string | null, EntryLink[]>();

  constructor(readonly tree: SessionTree) {}

  #sync(): void {
    // Only the links of what was added since the last call: older entries of a compact history stay in the file.
    const added = this.tree.linksFrom(this.#seen);
    this.#seen += added.length;
    for (const e of added) {
      if (e.type === 'leaf' || e.subagent !== undefined) continue;
      const parentType = e.parentId === null ? undefined : this.tree.typeOf(e.parentId);
      const anchor = e.parentId === null || parentType === undefined ? null : ANCHORS.has(parentType) ? e.parentId : (this.#anchorOf.get(e.parentId) ?? null);
      this.#anchorOf.set(e.id, anchor);
      if (!ALTERNATIVES.has(e.type)) continue;
      const list = this.#alternatives.get(anchor);
      const link: EntryLink = { id: e.id, parentId: e.parentId, type: e.type };
      if (list === undefined) this.#alternatives.set(anchor, [link]);
      else list.push(link);
    }
  }

  /** The fork `entryId` starts a branch of; undefined when nothing else continues its moment. */
  forkOf(entryId: string): Fork | undefined {
    this.#sync();
    if (!this.#anchorOf.has(entryId)) return undefined;
    const list = this.#alternatives.get(this.#anchorOf.get(entryId) ?? null) ?? [];
    const at = list.findIndex((e) => e.id === entryId);
    if (at < 0 || list.length < 2) return undefined;
    // Only a fork's own messages are read (from the file, in a compact history) to tell a Retry from an edit.
    const texts = list.map((l) => {
      const e = l.type === 'user' ? this.tree.get(l.id) : undefined;
      return e?.type === 'user' ? e.content : undefined;
    });
    const first = texts[0];
    const retry = first !== undefined && texts.every((t) => t === first);
    const previous = list[at - 1]?.id;
    const next = list[at + 1]?.id;
    return { index: at + 1, count: list.length, ...(previous === undefined ? {} : { previous }), ...(next === undefined ? {} : { next }), retry };
  }
}

/** The newest entry (in file order) of the subtree that starts at `rootId`, the root itself when nothing follows it. */
export function branchTip(tree: SessionTree, rootId: string): Entry | undefined {
  // Over the links: a compact history's lines are not read back, only the tip is.
  const all = tree.linksFrom(0);
  const start = all.findIndex((e) => e.id === rootId);
  if (all[start] === undefined) return undefined;
  const inside = new Set([rootId]);
  let tip = rootId;
  for (let i = start + 1; i < all.length; i++) {
    const e = all[i];
    if (e === undefined || e.type === 'leaf' || e.parentId === null || !inside.has(e.parentId)) continue;
    inside.add(e.id);
    tip = e.id;
  }
  return tree.get(tip);
}

/**
 * Where switching to the branch that starts at `entryId` puts the leaf: that branch's newest entry, moved off an
 * unanswered tool call like any rewind target. Only the start of an alternative (a message or an answer) is a branch.
 */
export function switchPoint(tree: SessionTree, entryId: string): SwitchPoint {
  const start = tree.get(entryId);
  if (start === undefined) return { ok: false, error: `Entry ${entryId} is not in this chat.` };
  if (!ALTERNATIVES.has(start.type))
    return { ok: false, error: `Entry ${entryId} is a ${start.type.replace('_', ' ')}, not the start of a branch (a message or an answer).` };
  const tip = branchTip(tree, entryId) ?? start;
  if (tip.type === 'user') return { ok: true, targetId: tip.id, tipId: tip.id, adjusted: false };
  const point = resolveRewindPoint(tree, tip.id);
  if (!point.ok) return point;
  return { ok: true, targetId: point.targetId, tipId: tip.id, adjusted: point.adjusted };
}
