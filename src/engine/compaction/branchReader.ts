// The active branch of a TranscriptStore, kept in a SessionTree that only ingests entries appended since the last read.
import type { TranscriptStore } from '../ports.js';
import type { Entry } from '../transcript/schema.js';
import { SessionTree } from '../transcript/tree.js';
import { branchTo, growthSince, reachableTail, recentTurnsFrom, sinceLastAnswer, type EntryLookup, type Growth } from '../transcript/tail.js';
import { FiguresFold, type BranchFigures } from '../transcript/branchFigures.js';

/**
 * Stores are append-only, so the tree grows by the new tail of `entries()` instead of being rebuilt at
 * every preflight. The store's own leaf pointer is authoritative (a rewind moves it without a new node).
 */
export class BranchReader {
  private tree = new SessionTree();
  private seen = 0;
  private firstSeen: Entry | undefined;

  constructor(private readonly store: TranscriptStore) {}

  private sync(): void {
    const all = this.store.entries();
    // A store that was reopened or replaced would not share our prefix: start over.
    if (all.length < this.seen || (this.seen > 0 && all[0] !== this.firstSeen)) {
      this.tree = new SessionTree();
      this.seen = 0;
    }
    for (let i = this.seen; i < all.length; i++) {
      const e = all[i];
      if (e) this.tree.add(e);
    }
    this.seen = all.length;
    this.firstSeen = all[0];
  }

  /** The store's own index when it has one (no second copy of it), else ours, brought up to date. */
  private lookup(): EntryLookup {
    const store = this.store;
    if (store.get !== undefined) return { get: (id) => store.get?.(id) };
    this.sync();
    return this.tree;
  }

  /** The conversation path from the root to the store's leaf, root first. */
  branch(): Entry[] {
    return branchTo(this.lookup(), this.store.leafId());
  }

  /** The branch ending at `leafId` (entries never change, so it is the same whenever it is asked). */
  branchTo(leafId: string | null): Entry[] {
    return branchTo(this.lookup(), leafId);
  }

  /** The end of the active branch that the model input can reach (see reachableTail); root first. */
  tail(): Entry[] {
    return reachableTail(this.lookup(), this.store.leafId());
  }

  /** The end of the active branch back to its `turns`-th latest user message (the recent turns), root first. */
  recent(turns: number): Entry[] {
    return recentTurnsFrom(this.lookup(), this.store.leafId(), turns);
  }

  /** The end of the active branch back to its latest message, answer or capsule: where open tool calls are found. */
  sinceLastAnswer(): Entry[] {
    return sinceLastAnswer(this.lookup(), this.store.leafId());
  }

  /** What the active branch gained since `id`, or since `orSince` if met first (the whole branch when neither is on it). */
  growthSince(id: string | undefined, orSince?: string): Growth {
    return growthSince(this.lookup(), this.store.leafId(), id, orSince);
  }

  /** Counts, savings, the model and epoch in force on the active branch: the store's running figures when it keeps them. */
  figures(): BranchFigures {
    const store = this.store;
    if (store.figures !== undefined) return store.figures();
    this.sync();
    // Our tree's leaf is the last entry's; a store whose leaf says otherwise gets a walk.
    return this.tree.leafId === store.leafId() ? this.tree.figures() : FiguresFold.of(this.branch());
  }

  /** The active branch's entries of these kinds, root first, read lazily where the store can (a caller may stop early). */
  ofKinds(kinds: ReadonlySet<string>): Iterable<Entry> {
    const store = this.store;
    if (store.branchOfKinds !== undefined && this.store.get !== undefined) return store.branchOfKinds(kinds);
    return this.branch().filter((e) => kinds.has(e.type));
  }

  /** Every entry of the session (all branches), in file order. */
  entries(): readonly Entry[] {
    if (this.store.get !== undefined) return this.store.entries();
    this.sync();
    return this.tree.entries();
  }
}
