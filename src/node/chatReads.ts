// What every facade of an open chat reads from its session file (header, branch, entries, appended entries), with a model or without; its writes go through the facade's methods.
import type { SessionTree } from '../engine/transcript/tree.js';
import type { Entry, SessionHeader } from '../engine/transcript/schema.js';
import type { LoadProblem } from '../engine/ports.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import type { ParsedCapsuleFile } from '../engine/portable/capsuleFile.js';
import { appendCapsule, type LoadResult } from './capsuleFiles.js';

/** The open chat as views and actions read it. A store satisfies it too (tests and the views' own folds use that). */
export interface ChatReads {
  readonly path: string;
  readonly header: SessionHeader;
  readonly readOnly: boolean;
  /** Why the file cannot be written here (another window holds it, a newer format, …). */
  readonly readOnlyReason: string | undefined;
  /** What loading found (empty until a tail-first chat is indexed). */
  readonly problems: readonly LoadProblem[];
  /** The entries as a tree, for the views that fold and page it; entries reach it only through the facade's appends. */
  readonly tree: SessionTree;
  /** False while a chat opened tail-first still indexes its file. */
  readonly indexed: boolean;
  whenIndexed(): Promise<void>;
  entries(): readonly Entry[];
  leafId(): string | null;
  /** Announces each appended entry; returns how to stop. */
  onAppended(listener: (entry: Entry) => void): () => void;
}

/** What every facade does with its open session file (reads, and loading a portable capsule), with a model or without. */
export abstract class StoreChat implements ChatReads {
  protected readonly store: JsonlSessionStore;

  protected constructor(store: JsonlSessionStore) {
    this.store = store;
  }

  get path(): string {
    return this.store.path;
  }

  get header(): SessionHeader {
    return this.store.header;
  }

  get readOnly(): boolean {
    return this.store.readOnly;
  }

  get readOnlyReason(): string | undefined {
    return this.store.readOnlyReason;
  }

  get problems(): readonly LoadProblem[] {
    return this.store.problems;
  }

  get tree(): SessionTree {
    return this.store.tree;
  }

  get indexed(): boolean {
    return this.store.indexed;
  }

  whenIndexed(): Promise<void> {
    return this.store.whenIndexed();
  }

  /** The active branch, root to leaf (or to `leafId`). */
  branch(leafId?: string | null): readonly Entry[] {
    return leafId === undefined ? this.store.tree.branch() : this.store.tree.branch(leafId);
  }

  /** Every entry of the file, every branch and subagent. */
  entries(): readonly Entry[] {
    return this.store.entries();
  }

  leafId(): string | null {
    return this.store.leafId();
  }

  onAppended(listener: (entry: Entry) => void): () => void {
    return this.store.onAppended(listener);
  }

  /** Appends a portable capsule's checkpoint and capsule (docs/user/portable.md): the model then sees the capsule instead of the earlier messages. */
  loadCapsule(file: ParsedCapsuleFile): Promise<LoadResult> {
    return appendCapsule(this.store, file);
  }

  /** This chat's session file is `store` (the open chat may have changed under a running agent). */
  runsOn(store: JsonlSessionStore | undefined): boolean {
    return this.store === store;
  }
}
