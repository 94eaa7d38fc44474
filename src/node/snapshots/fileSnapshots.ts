// File snapshots of one session: what each agent write or command changed (content-addressed pre-images), and restoring the files of an earlier moment.
import { lstat, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from '../../engine/ports.js';
import { oneLine } from '../fsUtil.js';
import { realRoots } from '../tools/paths.js';
import { ChangeLog, type Change, type FileState } from './changeLog.js';
import { hashOf, ObjectStore } from './objectStore.js';
import { changedPaths, scanWorkspace, type FileStat, type Scan } from './workspaceScan.js';

export interface SnapshotLimits {
  /** Files larger than this are not kept; a rewind says it cannot restore them. */
  readonly maxFileBytes: number;
  /** The object store stops growing here; later pre-images are marked unavailable. */
  readonly maxStoreBytes: number;
  /** Most files one workspace walk (around a command) looks at. */
  readonly maxScanFiles: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxFileBytes: 8 * 1024 * 1024, maxStoreBytes: 512 * 1024 * 1024, maxScanFiles: 20_000 };

/** What a tool host calls around the tools that change files. */
export interface FileCapture {
  aroundWrite<T>(path: string, run: () => Promise<T>): Promise<T>;
  aroundCommand<T>(run: () => Promise<T>): Promise<T>;
}

export interface SnapshotDeps {
  /** Snapshot folder (`<session>.files` beside the session file). */
  readonly dir: string;
  /** Workspace folders a command may change. */
  readonly roots: readonly string[];
  /** The session's newest entry in file order right now. */
  readonly leaf: () => string | null;
  readonly limits?: Partial<SnapshotLimits>;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** The secret that signs the change log, outside every workspace (default: the CLI's, see integrityKey.ts). */
  readonly keyFile?: string;
  /** Capsule's own files: never logged, so never restored or deleted (changeLog.ts). */
  readonly ownFiles?: () => readonly string[];
}

/** The content of a path now: bytes, absent, or too large to keep. */
type Content = { readonly kind: 'bytes'; readonly bytes: Uint8Array } | { readonly kind: 'absent' } | { readonly kind: 'large' };

export async function readContent(path: string, maxBytes: number): Promise<Content> {
  const st = await lstat(path).catch(() => undefined);
  if (st === undefined || !st.isFile()) return { kind: 'absent' };
  if (st.size > maxBytes) return { kind: 'large' };
  return { kind: 'bytes', bytes: await readFile(path) };
}

export function stateOf(c: Content): FileState {
  return c.kind === 'absent' ? null : c.kind === 'large' ? 'unavailable' : hashOf(c.bytes);
}

export class FileSnapshots implements FileCapture {
  readonly objects: ObjectStore;
  readonly log: ChangeLog;
  readonly limits: SnapshotLimits;
  /** Known contents by stat, so a walk before each command reads and stores only what changed since the last one. */
  private readonly statCache = new Map<string, FileStat & { readonly state: FileState }>();

  constructor(private readonly deps: SnapshotDeps) {
    this.objects = new ObjectStore(`${deps.dir}/objects`);
    this.log = new ChangeLog(`${deps.dir}/changes.jsonl`, { roots: deps.roots, ...(deps.keyFile === undefined ? {} : { keyFile: deps.keyFile }), ...(deps.ownFiles === undefined ? {} : { own: deps.ownFiles }) });
    this.limits = { ...DEFAULT_SNAPSHOT_LIMITS, ...deps.limits };
  }

  static dirFor(sessionPath: string): string {
    return `${sessionPath.replace(/\.jsonl$/i, '')}.files`;
  }

  /** Keeps the bytes when the store has room; the state to log either way. */
  async keep(c: Content): Promise<FileState> {
    if (c.kind !== 'bytes') return stateOf(c);
    if ((await this.objects.size()) + c.bytes.byteLength > this.limits.maxStoreBytes) return 'unavailable';
    return this.objects.put(c.bytes);
  }

  /** Runs a single-file write and logs its pre-image when the content changed. A snapshot failure never stops the write. */
  async aroundWrite<T>(path: string, run: () => Promise<T>): Promise<T> {
    const before = await readContent(path, this.limits.maxFileBytes).catch((err: unknown) => this.warn(err));
    const leaf = this.deps.leaf();
    const r = await run();
    if (before !== undefined) await this.record([path], new Map([[path, before]]), leaf, 'write').catch((err: unknown) => this.warn(err));
    return r;
  }

  /** Runs a command between two walks of the workspace; the paths whose stat changed are logged with the content they had before. */
  async aroundCommand<T>(run: () => Promise<T>): Promise<T> {
    const leaf = this.deps.leaf();
    const pre = await this.prepareCommand().catch((err: unknown) => this.warn(err));
    const r = await run();
    if (pre !== undefined) {
      try {
        const post = await scanWorkspace(await realRoots(this.deps.roots), this.scanLimits());
        const changed = changedPaths(pre.scan, post);
        await this.record(changed, pre.states, leaf, 'command');
      } catch (err) {
        this.warn(err);
      }
    }
    return r;
  }

  /** Logs the changes of `paths` against their earlier states (a Content read before, or a logged state). */
  async record(paths: readonly string[], before: ReadonlyMap<string, Content | FileState>, leaf: string | null, why: Change['why']): Promise<Change[]> {
    const at = new Date((this.deps.now ?? Date.now)()).toISOString();
    const changes: Change[] = [];
    // Capsule's own files are never snapshotted: not even their pre-image goes into the store.
    const own = await this.log.ownTest();
    for (const path of paths.filter((p) => !own(p))) {
      const b = before.get(path);
      const prior: FileState = b === undefined ? null : typeof b === 'object' && b !== null ? await this.keep(b) : b;
      const nowContent = await readContent(path, this.limits.maxFileBytes);
      const after = stateOf(nowContent);
      this.statCache.delete(path);
      if (prior === after && prior !== 'unavailable') continue;
      changes.push({ path, leaf, before: prior, after, why, at });
    }
    return this.log.append(changes);
  }

  private async prepareCommand(): Promise<{ readonly scan: Scan; readonly states: Map<string, FileState> }> {
    const scan = await scanWorkspace(await realRoots(this.deps.roots), this.scanLimits());
    const states = new Map<string, FileState>();
    for (const [path, st] of scan.files) {
      const cached = this.statCache.get(path);
      if (cached !== undefined && cached.size === st.size && cached.mtimeMs === st.mtimeMs) {
        states.set(path, cached.state);
        continue;
      }
      const state = await this.keep(await readContent(path, this.limits.maxFileBytes));
      this.statCache.set(path, { ...st, state });
      states.set(path, state);
    }
    return { scan, states };
  }

  private scanLimits(): { readonly maxFiles: number; readonly skip: readonly string[] } {
    // Sessions may live inside the workspace (the CLI's default): their own snapshots are not workspace files.
    return { maxFiles: this.limits.maxScanFiles, skip: [resolve(this.deps.dir)] };
  }

  private warn(err: unknown): undefined {
    this.deps.logger?.log('warn', `File snapshot not taken: ${oneLine(err)}`);
    return undefined;
  }
}
