// Where a chat forks: messages (or answers) that continue the same moment on different branches, for the ‹ 1/2 › switcher, and where a switch lands.
import { resolveRewindPoint } from './rewindPoint.js';
import type { Entry } from './schema.js';
import type { SessionTree } from './tree.js';

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
  /**
   * Anchor → the alternatives that continue it, in file order: one id while there is one (most moments), a list
   * once there are more. Nothing else is kept per entry: an anchor is found by walking up the kinds in the tree.
   */
  readonly #alternatives = new Map<string | null, string | string[]>();
  /** The ids in a list of more than one: what forkOf looks up for every message a view folds, almost never found. */
  readonly #forked = new Set<string>();

  constructor(readonly tree: SessionTree) {}

  /** The nearest anchor at or above `id` (null: the start of the chat, or a parent before a partial tree's first entry). */
  #anchorFrom(id: string | null): string | null {
    for (let cur = id, steps = 0; cur !== null && steps <= this.tree.size; steps++) {
      const type = this.tree.typeOf(cur);
      if (type === undefined) return null;
      if (ANCHORS.has(type)) return cur;
      cur = this.tree.parentOf(cur) ?? null;
    }
    return null;
  }

  #sync(): void {
    // Only the links of what was added since the last call: older entries of a compact history stay in the file.
    this.#seen += this.tree.eachLink(this.#seen, (id, parentId, type, subagent) => {
      if (type === 'leaf' || subagent || !ALTERNATIVES.has(type)) return;
      const anchor = this.#anchorFrom(parentId);
      const list = this.#alternatives.get(anchor);
      if (list === undefined) this.#alternatives.set(anchor, id);
      else if (typeof list === 'string') {
        this.#alternatives.set(anchor, [list, id]);
        this.#forked.add(list).add(id);
      } else {
        list.push(id);
        this.#forked.add(id);
      }
    });
  }

  /** The fork `entryId` starts a branch of; undefined when nothing else continues its moment. */
  forkOf(entryId: string): Fork | undefined {
    this.#sync();
    // Most messages continue their moment alone: answered without reading the tree (a compact history's ids are bytes).
    if (!this.#forked.has(entryId)) return undefined;
    const list = this.#alternatives.get(this.#anchorFrom(this.tree.parentOf(entryId) ?? null));
    if (typeof list !== 'object') return undefined;
    const at = list.indexOf(entryId);
    if (at < 0) return undefined;
    // Only a fork's own messages are read (from the file, in a compact history) to tell a Retry from an edit.
    const texts = list.map((id) => {
      const e = this.tree.typeOf(id) === 'user' ? this.tree.get(id) : undefined;
      return e?.type === 'user' ? e.content : undefined;
    });
    const first = texts[0];
    const retry = first !== undefined && texts.every((t) => t === first);
    const previous = list[at - 1];
    const next = list[at + 1];
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
