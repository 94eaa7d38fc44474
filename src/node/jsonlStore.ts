// The append-only JSONL session store (docs/behaviour.md#transcript): single writer, one write per line, fsync for durable kinds, torn-tail recovery.
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Clock, LoadProblem, TranscriptStore } from '../engine/ports.js';
import { CURRENT_VERSION, DURABLE_TYPES, EntrySchema, SessionHeaderSchema, type Entry, type SessionHeader } from '../engine/transcript/schema.js';
import type { SessionTree } from '../engine/transcript/tree.js';
import { DEFAULT_MAX_LINE_BYTES } from './lineReader.js';
import { acquireSessionLock, type HeldLock } from './sessionLock.js';
import { loadSessionFile, type SessionLoad } from './sessionLoad.js';
import { moveTailAside, writeAll } from './tornTail.js';
import { errCode, oneLine, syncDir } from './fsUtil.js';

export { loadSessionFile, type LoadOptions, type SessionLoad } from './sessionLoad.js';

export interface OpenOptions {
  /** Create the file with a header if it does not exist (or exists but is empty). */
  readonly create?: { readonly id: string; readonly cwd: string; readonly title?: string };
  /** Open without taking the writer lock; append() rejects. */
  readonly readOnly?: boolean;
  /** Timestamps for a created header and the `.corrupt` note; defaults to the system clock. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Line cap for loading and appending (tests lower it). */
  readonly maxLineBytes?: number;
}

export const OPENED_READ_ONLY_REASON = 'Opened read-only';

// Writable stores open in this process, by resolved path, so deleting a chat can close its writer first.
const openWriters = new Map<string, JsonlSessionStore>();

/** The store holding the writer lock on `path` in this process, if any. */
export function openWriterFor(path: string): JsonlSessionStore | undefined {
  return openWriters.get(resolve(path));
}

function headerLine(create: NonNullable<OpenOptions['create']>, now: number): Buffer {
  const header: SessionHeader = SessionHeaderSchema.parse({
    type: 'session',
    version: CURRENT_VERSION,
    id: create.id,
    createdAt: new Date(now).toISOString(),
    cwd: create.cwd,
    ...(create.title === undefined ? {} : { title: create.title }),
  });
  return Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
}

/** Creates the file with its header, unless it already exists. */
async function createIfMissing(path: string, create: NonNullable<OpenOptions['create']>, now: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  let h: FileHandle;
  try {
    h = await open(path, 'wx');
  } catch (err) {
    if (errCode(err) === 'EEXIST') return;
    throw new Error(`Cannot create session file ${path}: ${oneLine(err)}`);
  }
  try {
    await writeAll(h, headerLine(create, now));
    await h.sync();
  } finally {
    await h.close();
  }
  await syncDir(dirname(path));
}

export class JsonlSessionStore implements TranscriptStore {
  readonly path: string;
  readonly header: SessionHeader;
  readonly problems: readonly LoadProblem[];
  readonly tree: SessionTree;
  /** Where a torn tail was moved when this store opened, if it had one. */
  readonly recoveredTail?: { readonly sidecar: string; readonly bytes: number };
  private reason: string | undefined;
  private handle: FileHandle | undefined;
  private lock: HeldLock | undefined;
  private size: number;
  private queue: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private readonly maxLineBytes: number;

  private constructor(init: {
    path: string;
    load: SessionLoad;
    header: SessionHeader;
    reason: string | undefined;
    handle: FileHandle | undefined;
    lock: HeldLock | undefined;
    recoveredTail: JsonlSessionStore['recoveredTail'];
    maxLineBytes: number;
  }) {
    this.path = init.path;
    this.header = init.header;
    this.problems = init.load.problems;
    this.tree = init.load.tree;
    this.reason = init.reason;
    this.handle = init.handle;
    this.lock = init.lock;
    this.size = init.load.goodBytes;
    this.recoveredTail = init.recoveredTail;
    this.maxLineBytes = init.maxLineBytes;
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

    if (opts.readOnly) {
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
      const load = await loadSessionFile(abs, loadOpts);
      return JsonlSessionStore.readOnlyStore(abs, load, locked.reason, maxLineBytes);
    }
    const lock = locked.lock;
    try {
      // Read under the lock: no other writer can be mid-append now.
      let load = await loadSessionFile(abs, loadOpts);
      if (load.bytes === 0 && opts.create) {
        // Created by a run that died before its header reached the disk.
        const h = await open(abs, 'a');
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
      const handle = await open(abs, 'a');
      store = new JsonlSessionStore({ path: abs, load, header: load.header, reason: undefined, handle, lock, recoveredTail, maxLineBytes });
      openWriters.set(abs, store);
      return store;
    } catch (err) {
      await lock.release();
      throw err;
    }
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
    const lock = this.lock;
    this.lock = undefined;
    if (lock) await lock.release();
  }

  private lockLost(err: Error): void {
    this.reason = `Lost the writer lock on this session (${oneLine(err)}); further changes are not saved`;
  }

  private checkLinks(e: Entry): void {
    const tree = this.tree;
    if (tree.has(e.id)) throw new Error(`Cannot append ${e.type} entry: id ${e.id} already exists`);
    if (e.type === 'leaf') {
      if (e.parentId !== null && !tree.has(e.parentId)) throw new Error(`Cannot append leaf move ${e.id}: unknown parent ${e.parentId}`);
      if (e.targetId !== null && !tree.has(e.targetId)) throw new Error(`Cannot append leaf move ${e.id}: unknown target ${e.targetId}`);
      return;
    }
    if (e.parentId === tree.leafId) return;
    if (e.parentId !== null && tree.has(e.parentId)) return; // a branch from an earlier entry
    throw new Error(`Cannot append ${e.type} entry ${e.id}: parent ${String(e.parentId)} is neither the current leaf (${String(tree.leafId)}) nor an existing entry`);
  }

  private async write(entry: Entry): Promise<void> {
    if (this.reason !== undefined || !this.handle) throw new Error(this.reason ?? 'Session is read-only');
    const parsed = EntrySchema.safeParse(entry);
    if (!parsed.success) {
      const what = parsed.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
      throw new Error(`Refusing to write an invalid entry (${String((entry as { type?: unknown }).type)} ${String((entry as { id?: unknown }).id)}): ${what}`);
    }
    const e = parsed.data;
    this.checkLinks(e);
    // Serialize fully first so the file only ever sees one complete line per write.
    const line = Buffer.from(`${JSON.stringify(e)}\n`, 'utf8');
    if (line.length - 1 > this.maxLineBytes) {
      throw new Error(`Cannot append ${e.type} entry ${e.id}: ${line.length} bytes exceeds the ${this.maxLineBytes}-byte line limit`);
    }
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
