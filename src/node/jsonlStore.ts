// The append-only JSONL session store (docs/behaviour.md#transcript): single writer, one write per line, fsync for durable kinds, torn-tail recovery.
import { stat, type FileHandle } from 'node:fs/promises';
import { openRegularFileForAppend } from './regularFile.js';
import { basename, resolve } from 'node:path';
import type { Clock, LoadProblem, TranscriptStore } from '../engine/ports.js';
import { CURRENT_VERSION, DURABLE_TYPES, type Entry, type SessionHeader } from '../engine/transcript/schema.js';
import type { SessionTree } from '../engine/transcript/tree.js';
import type { BranchFigures } from '../engine/transcript/branchFigures.js';
import { entryLine } from './entryLine.js';
import { DEFAULT_MAX_LINE_BYTES } from './lineReader.js';
import { acquireSessionLock, type HeldLock } from './sessionLock.js';
import { loadSessionFile, type SessionLoad } from './sessionLoad.js';
import { indexRest, readTail, type SessionTail } from './tailRead.js';
import { moveTailAside, writeAll } from './tornTail.js';
import { errCode, oneLine } from './fsUtil.js';
import type { ColdFile } from './coldFile.js';
import { createIfMissing, headerLine, type SessionCreate } from './sessionCreate.js';

export { loadSessionFile, type SessionLoad } from './sessionLoad.js';

export interface OpenOptions {
  /** Create the file with a header if it does not exist (or exists but is empty). */
  readonly create?: SessionCreate;
  /** Open without taking the writer lock; append() rejects. */
  readonly readOnly?: boolean;
  /** Timestamps for a created header and the `.corrupt` note; defaults to the system clock. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Line cap for loading and appending (tests lower it). */
  readonly maxLineBytes?: number;
  /**
   * Read the end of the file first (docs/loading.md): open() returns once `tree` holds the tail the chat and the
   * meter need, and the rest is indexed in the background; `whenIndexed()` resolves when `tree` is the whole file.
   * Appends wait for it. Without it (the default), open() returns the whole file.
   */
  readonly tailFirst?: boolean;
  /** How far from the end a tail may reach before the file is read front to back instead (tests lower it). */
  readonly maxTailBytes?: number;
  /**
   * With `tailFirst`: keep the lines before the tail as ids, parents and offsets, read from the file when asked for
   * (docs/loading.md#compact-history). On unless turned off (`false`: every entry parsed and held, as before).
   */
  readonly compactHistory?: boolean;
  /**
   * With `tailFirst` and a compact history: index a large part before the tail on the index thread, so this thread
   * goes on meanwhile (the default), or on this thread (`false`). A one-shot CLI turn takes `false`: its turn waits for
   * the index anyway, and the thread's isolate and the batches it posts cost about 15 MB at a 100 MB session's peak.
   */
  readonly indexThread?: boolean;
}

/** Test seam: runs before a tail-first store indexes the rest, so a test can see the state before indexing ends. */
export const tailFirstHooks: { beforeIndex?: (path: string) => Promise<void> } = {};

const OPENED_READ_ONLY_REASON = 'Opened read-only';

// Writable stores open in this process, by resolved path, so deleting a chat can close its writer first.
const openWriters = new Map<string, JsonlSessionStore>();

/** The store holding the writer lock on `path` in this process, if any. */
export function openWriterFor(path: string): JsonlSessionStore | undefined {
  return openWriters.get(resolve(path));
}

export class JsonlSessionStore implements TranscriptStore {
  readonly path: string;
  readonly header: SessionHeader;
  #problems: readonly LoadProblem[];
  #tree: SessionTree;
  #recoveredTail: { readonly sidecar: string; readonly bytes: number } | undefined;
  /** Where the tree's compact part is read from (a tail-first store, once indexed). */
  #coldFile: ColdFile | undefined;
  /** Settles once `tree` holds the whole file (at once, unless the store was opened tail-first). */
  #indexing: Promise<void> = Promise.resolve();
  #indexed = true;
  private reason: string | undefined;
  private handle: FileHandle | undefined;
  private lock: HeldLock | undefined;
  private size: number;
  private queue: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private readonly maxLineBytes: number;
  /** Who shows the session (the chat's projection) learns of each entry once it is on disk and in the tree. */
  private readonly appendListeners = new Set<(entry: Entry) => void>();

  private constructor(init: {
    path: string;
    load: Pick<SessionLoad, 'tree' | 'problems' | 'goodBytes'>;
    header: SessionHeader;
    reason: string | undefined;
    handle: FileHandle | undefined;
    lock: HeldLock | undefined;
    recoveredTail: JsonlSessionStore['recoveredTail'];
    maxLineBytes: number;
  }) {
    this.path = init.path;
    this.header = init.header;
    this.#problems = init.load.problems;
    this.#tree = init.load.tree;
    this.reason = init.reason;
    this.handle = init.handle;
    this.lock = init.lock;
    this.size = init.load.goodBytes;
    this.#recoveredTail = init.recoveredTail;
    this.maxLineBytes = init.maxLineBytes;
  }

  /** Every entry, or (tail-first, until `whenIndexed()`) the entries of the tail: the active branch back past its model input. */
  get tree(): SessionTree {
    return this.#tree;
  }

  /** What loading found; empty until a tail-first store is indexed. */
  get problems(): readonly LoadProblem[] {
    return this.#problems;
  }

  /** Where a torn tail was moved when this store opened (or, tail-first, was indexed), if it had one. */
  get recoveredTail(): { readonly sidecar: string; readonly bytes: number } | undefined {
    return this.#recoveredTail;
  }

  /** False while a tail-first store still indexes the file. */
  get indexed(): boolean {
    return this.#indexed;
  }

  /** Resolves once `tree` holds the whole file; never rejects (a failed index leaves the store read-only, with the reason). */
  whenIndexed(): Promise<void> {
    return this.#indexing;
  }

  /**
   * Opens (optionally creating) a session. Content problems never throw: they are in `problems`, and
   * a file we must not write (no header, newer format, lock held elsewhere) opens read-only.
   * Throws a one-line Error for I/O failures such as a missing file.
   */
  static async open(path: string, opts: OpenOptions = {}): Promise<JsonlSessionStore> {
    const abs = resolve(path);
    const now = (): number => (opts.clock ? opts.clock.now() : Date.now());
    const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (opts.create) await createIfMissing(abs, opts.create, now());
    const loadOpts = { maxLineBytes };

    const fast = (lock: HeldLock | undefined, reason: string | undefined): Promise<JsonlSessionStore | undefined> =>
      opts.tailFirst === true
        ? JsonlSessionStore.tailStore(abs, lock, reason, {
            maxLineBytes,
            now,
            compact: opts.compactHistory !== false,
            thread: opts.indexThread !== false,
            ...(opts.maxTailBytes === undefined ? {} : { maxTailBytes: opts.maxTailBytes }),
          })
        : Promise.resolve(undefined);

    if (opts.readOnly) {
      const quick = await fast(undefined, OPENED_READ_ONLY_REASON);
      if (quick) return quick;
      const load = await loadSessionFile(abs, loadOpts);
      return JsonlSessionStore.readOnlyStore(abs, load, OPENED_READ_ONLY_REASON, maxLineBytes);
    }

    // Check before locking, so a missing file throws a clear error instead of leaving a lock behind.
    await stat(abs).catch((err: unknown) => {
      throw new Error(errCode(err) === 'ENOENT' ? `Session file not found: ${abs}` : `Cannot open session file ${abs}: ${oneLine(err)}`);
    });
    let store: JsonlSessionStore | undefined;
    const locked = await acquireSessionLock(abs, (err) => store?.lockLost(err));
    if (!locked.ok) {
      const quick = await fast(undefined, locked.reason);
      if (quick) return quick;
      const load = await loadSessionFile(abs, loadOpts);
      return JsonlSessionStore.readOnlyStore(abs, load, locked.reason, maxLineBytes);
    }
    const lock = locked.lock;
    try {
      const quick = await fast(lock, undefined);
      if (quick) {
        store = quick;
        openWriters.set(abs, quick);
        return quick;
      }
      // Read under the lock: no other writer can be mid-append now.
      let load = await loadSessionFile(abs, loadOpts);
      if (load.bytes === 0 && opts.create) {
        // Created by a run that died before its header reached the disk.
        const h = await openRegularFileForAppend(abs, 'session file');
        try {
          await writeAll(h, headerLine(opts.create, now()));
          await h.sync();
        } finally {
          await h.close();
        }
        load = await loadSessionFile(abs, loadOpts);
      }
      if (load.unwritableReason !== undefined || !load.header) {
        await lock.release();
        return JsonlSessionStore.readOnlyStore(abs, load, `${load.unwritableReason ?? 'Session file has no valid header'}; opened read-only`, maxLineBytes);
      }
      let recoveredTail: JsonlSessionStore['recoveredTail'];
      if (load.goodBytes < load.bytes) {
        // Before any append: otherwise the next entry would be glued onto the broken line.
        const sidecar = await moveTailAside(abs, load.goodBytes, load.bytes, new Date(now()));
        recoveredTail = { sidecar, bytes: load.bytes - load.goodBytes };
      }
      const handle = await openRegularFileForAppend(abs, 'session file');
      store = new JsonlSessionStore({ path: abs, load, header: load.header, reason: undefined, handle, lock, recoveredTail, maxLineBytes });
      openWriters.set(abs, store);
      return store;
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** A store over the tail of the file, indexing the rest in the background; undefined when the tail is not enough. */
  private static async tailStore(
    path: string,
    lock: HeldLock | undefined,
    reason: string | undefined,
    o: { readonly maxLineBytes: number; readonly maxTailBytes?: number; readonly now: () => number; readonly compact: boolean; readonly thread: boolean },
  ): Promise<JsonlSessionStore | undefined> {
    const tail = await readTail(path, o).catch(() => undefined);
    if (tail === undefined) return undefined;
    const load = { tree: tail.tree, problems: [], goodBytes: tail.size };
    const store = new JsonlSessionStore({
      path,
      load,
      header: tail.header,
      reason,
      handle: undefined,
      lock,
      recoveredTail: undefined,
      maxLineBytes: o.maxLineBytes,
    });
    store.#indexed = false;
    store.#indexing = store.#indexRest(tail, o.now, o.compact, o.thread).then(
      () => undefined,
      async (err: unknown) => {
        store.reason ??= `The session file could not be read to the end (${oneLine(err)}); opened read-only`;
        await store.#dropWriter();
      },
    );
    // Appends wait for the whole tree (links are checked against it) and for a torn tail to be moved aside.
    store.queue = store.#indexing;
    return store;
  }

  async #indexRest(tail: SessionTail, now: () => number, compact: boolean, thread: boolean): Promise<void> {
    try {
      await tailFirstHooks.beforeIndex?.(this.path);
      const opts = { maxLineBytes: this.maxLineBytes };
      // Shorter now than when its tail was read (rewritten by hand, say): the file as it is, front to back.
      const load = await indexRest(this.path, tail, this.maxLineBytes, compact, undefined, thread).catch(() => loadSessionFile(this.path, opts));
      this.#tree = load.tree;
      this.#coldFile = load.coldFile;
      this.#problems = load.problems;
      this.size = load.goodBytes;
      if (this.reason !== undefined || this.lock === undefined) return;
      if (load.unwritableReason !== undefined || !load.header) {
        this.reason = `${load.unwritableReason ?? 'Session file has no valid header'}; opened read-only`;
        await this.#dropWriter();
        return;
      }
      if (load.goodBytes < load.bytes) {
        const sidecar = await moveTailAside(this.path, load.goodBytes, load.bytes, new Date(now()));
        this.#recoveredTail = { sidecar, bytes: load.bytes - load.goodBytes };
      }
      this.handle = await openRegularFileForAppend(this.path, 'session file');
    } finally {
      this.#indexed = true;
    }
  }

  /** A store that turned out not to be writable lets go of the lock, so another window can write the file. */
  async #dropWriter(): Promise<void> {
    if (openWriters.get(this.path) === this) openWriters.delete(this.path);
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release().catch(() => undefined);
  }

  private static readOnlyStore(path: string, load: SessionLoad, reason: string, maxLineBytes: number): JsonlSessionStore {
    // TranscriptStore needs a header even for a file without one; describe it from what we know.
    const header: SessionHeader = load.header ?? {
      type: 'session',
      version: CURRENT_VERSION,
      id: basename(path).replace(/\.jsonl$/, '') || 'unknown',
      createdAt: new Date(0).toISOString(),
      cwd: '',
    };
    return new JsonlSessionStore({ path, load, header, reason, handle: undefined, lock: undefined, recoveredTail: undefined, maxLineBytes });
  }

  get readOnly(): boolean {
    return this.reason !== undefined;
  }

  get readOnlyReason(): string | undefined {
    return this.reason;
  }

  entries(): readonly Entry[] {
    return this.tree.entries();
  }

  leafId(): string | null {
    return this.tree.leafId;
  }

  get(id: string): Entry | undefined {
    return this.tree.get(id);
  }

  figures(): BranchFigures {
    return this.tree.figures();
  }

  branchOfKinds(kinds: ReadonlySet<string>): Iterable<Entry> {
    return this.tree.branchOfKinds(kinds);
  }

  /**
   * Validates and writes one entry as one complete line; durable kinds are fsynced before this
   * resolves. Calls are queued, so concurrent appends never interleave and each sees the previous one.
   */
  append(entry: Entry): Promise<void> {
    // Appends made before close() still complete; close() waits for them.
    if (this.closing) return Promise.reject(new Error(`Session ${this.header.id} is closed`));
    const run = this.queue.then(() => this.write(entry));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Calls `listener` after every successful append, in append order; returns the unsubscribe. A throwing listener never fails the append. */
  onAppended(listener: (entry: Entry) => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** Waits for pending appends, closes the file and releases the lock. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    await this.queue;
    if (openWriters.get(this.path) === this) openWriters.delete(this.path);
    const h = this.handle;
    this.handle = undefined;
    if (h) await h.close().catch(() => undefined);
    this.#coldFile?.close();
    const lock = this.lock;
    this.lock = undefined;
    if (lock) await lock.release();
  }

  private lockLost(err: Error): void {
    this.reason = `Lost the writer lock on this session (${oneLine(err)}); further changes are not saved`;
  }

  private async write(entry: Entry): Promise<void> {
    if (this.reason !== undefined || !this.handle) throw new Error(this.reason ?? 'Session is read-only');
    const { entry: e, line } = entryLine(entry, this.tree, this.maxLineBytes);
    const handle = this.handle;
    try {
      await writeAll(handle, line);
      if (DURABLE_TYPES.has(e.type)) await handle.sync();
    } catch (err) {
      await this.rollback(handle, err);
      throw new Error(`Failed to write ${e.type} entry ${e.id} to ${this.path}: ${oneLine(err)}`);
    }
    this.size += line.length;
    this.tree.add(e);
    for (const listener of [...this.appendListeners]) {
      try {
        listener(e);
      } catch {
        // The entry is written; how it is shown is the listener's concern, not the writer's.
      }
    }
  }

  /** Cuts a partly written line back off, so a failed append never leaves a line to glue onto. */
  private async rollback(handle: FileHandle, cause: unknown): Promise<void> {
    try {
      await handle.truncate(this.size);
    } catch {
      this.reason = `A write to the session file failed (${oneLine(cause)}) and could not be undone; reopen the chat to recover`;
    }
  }
}
