// The part of a branch the model input can reach, found by walking back from the leaf instead of from the root.
import { buildModelInput, type ModelInput } from './modelInput.js';
import type { CapsuleEntry, Entry } from './schema.js';

/** What the walk needs from the tree: entries by id (parents always precede children, so it cannot cycle). */
export interface EntryLookup {
  get(id: string): Entry | undefined;
}

/**
 * The suffix of the branch ending at `leafId` that holds everything buildModelInput reads: the latest capsule, the
 * entries from its firstKeptEntryId, its pinned entries, and the latest `base` system update. Older entries can
 * never reach the model, so the preflight costs the same at 1k and 1M entries. Without a capsule (or without a
 * base) the whole branch is needed and returned. Root first, leaf moves excluded, like SessionTree.branch().
 */
export function reachableTail(tree: EntryLookup, leafId: string | null): Entry[] {
  const rev: Entry[] = [];
  let capsule: CapsuleEntry | undefined;
  let missing = new Set<string>();
  let baseSeen = false;
  // Undo/redo events come after their capsule: walking back, the first one seen per capsule is its latest.
  const toggled = new Map<string, 'undo' | 'redo'>();
  let cur = leafId === null ? undefined : tree.get(leafId);
  while (cur !== undefined) {
    if (cur.type !== 'leaf') {
      rev.push(cur);
      if (cur.type === 'compaction_undo' && !toggled.has(cur.capsuleId)) toggled.set(cur.capsuleId, cur.action);
      if (capsule === undefined && cur.type === 'capsule' && toggled.get(cur.id) !== 'undo') {
        capsule = cur;
        missing = new Set(cur.pinnedEntryIds);
        if (cur.firstKeptEntryId !== null) missing.add(cur.firstKeptEntryId);
      } else if (capsule !== undefined) missing.delete(cur.id);
      if (cur.type === 'system_update' && cur.mode === 'base') baseSeen = true;
      if (capsule !== undefined && missing.size === 0 && baseSeen) break;
    }
    cur = cur.parentId === null ? undefined : tree.get(cur.parentId);
  }
  return rev.reverse();
}

/** The whole branch ending at `leafId`, root first, leaf moves excluded: SessionTree.branch() over any lookup. */
export function branchTo(tree: EntryLookup, leafId: string | null): Entry[] {
  const path: Entry[] = [];
  let cur = leafId === null ? undefined : tree.get(leafId);
  while (cur !== undefined) {
    if (cur.type !== 'leaf') path.push(cur);
    cur = cur.parentId === null ? undefined : tree.get(cur.parentId);
  }
  return path.reverse();
}

/** buildModelInput over the reachable tail only; equal to buildModelInput(tree.branch(leafId)) (property-tested). */
export function modelInputFromLeaf(
  tree: EntryLookup,
  leafId: string | null,
  defaultSystem: string,
): { readonly input: ModelInput; readonly tail: readonly Entry[] } {
  const tail = reachableTail(tree, leafId);
  return { input: buildModelInput(tail, defaultSystem), tail };
}

/**
 * The end of the branch back to (and including) its `turns`-th latest user message, root first: what a per-turn
 * average over the recent turns reads, without walking the rest.
 */
export function recentTurnsFrom(tree: EntryLookup, leafId: string | null, turns: number): Entry[] {
  const rev: Entry[] = [];
  let users = 0;
  let cur = leafId === null ? undefined : tree.get(leafId);
  while (cur !== undefined && users < turns) {
    if (cur.type !== 'leaf') {
      rev.push(cur);
      if (cur.type === 'user') users++;
    }
    cur = cur.parentId === null ? undefined : tree.get(cur.parentId);
  }
  return rev.reverse();
}

/**
 * The end of the branch back to its latest user message, answer or capsule, root first: all that
 * unansweredAtLeaf reads (the calls of the latest answer and the results that followed it).
 */
export function sinceLastAnswer(tree: EntryLookup, leafId: string | null): Entry[] {
  const rev: Entry[] = [];
  let cur = leafId === null ? undefined : tree.get(leafId);
  while (cur !== undefined) {
    if (cur.type !== 'leaf') {
      rev.push(cur);
      if (cur.type === 'user' || cur.type === 'assistant' || cur.type === 'capsule') break;
    }
    cur = cur.parentId === null ? undefined : tree.get(cur.parentId);
  }
  return rev.reverse();
}

/**
 * What a branch gained since an entry: `grew` when `sinceId` (or the other mark given) is on it, then `entries` are
 * those after it and `from` says which mark was met first; else the whole branch.
 */
export interface Growth {
  readonly grew: boolean;
  readonly entries: readonly Entry[];
  readonly from?: string;
}

/**
 * The entries after `sinceId` on the branch ending at `leafId`, found from the leaf: O(growth), a whole walk only after
 * a leaf move. `orSince`: another entry the walk may stop at (one that records what the caller needs up to it).
 */
export function growthSince(tree: EntryLookup, leafId: string | null, sinceId: string | undefined, orSince?: string): Growth {
  const rev: Entry[] = [];
  let cur = leafId === null ? undefined : tree.get(leafId);
  while (cur !== undefined) {
    if ((sinceId !== undefined && cur.id === sinceId) || (orSince !== undefined && cur.id === orSince))
      return { grew: true, entries: rev.reverse(), from: cur.id };
    if (cur.type !== 'leaf') rev.push(cur);
    cur = cur.parentId === null ? undefined : tree.get(cur.parentId);
  }
  return { grew: false, entries: rev.reverse() };
}
