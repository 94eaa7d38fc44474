// File snapshots of one session: the content each agent write or command replaced (kept by id in a shadow git repository, or compressed objects without git), and the change log rewind reads.
import { lstat, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../engine/ports.js';
import type { Rename } from '../../engine/transcript/effects.js';
import { GitCheckpoints, type ScanCounts } from '../checkpoints/gitCheckpoints.js';
import { type GitLocation, gitWorks } from '../checkpoints/gitCommand.js';
import { blobId } from '../checkpoints/looseObjects.js';
import { ShadowRepo } from '../checkpoints/shadowRepo.js';
import {
  type CommandChange,
  type CommandCheckpoint,
  type CommandCheckpointing,
  type FileCapture,
  type MeasuredEffects,
  StoreBudget,
  type Unkept,
} from '../checkpoints/checkpointTypes.js';

export type { CommandCheckpoint, FileCapture } from '../checkpoints/checkpointTypes.js';
import { WalkCheckpoints } from '../checkpoints/walkCheckpoints.js';
import { oneLine } from '../fsUtil.js';
import { realRoots } from '../tools/paths.js';
import { ChangeLog, type Change, type FileState } from './changeLog.js';
import { hashOf, ObjectStore } from './objectStore.js';

export interface SnapshotLimits {
  /** Files larger than this are not kept; a rewind says it cannot restore them. */
  readonly maxFileBytes: number;
  /** The store stops growing here; later pre-images are marked unavailable. */
  readonly maxStoreBytes: number;
  /** Most files one workspace walk looks at (only without git). */
  readonly maxScanFiles: number;
}

const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxFileBytes: 8 * 1024 * 1024, maxStoreBytes: 512 * 1024 * 1024, maxScanFiles: 20_000 };

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
  /** Capsule's own files (the session, its sidecars, the snapshot store, the key): never kept, logged, restored or deleted. */
  readonly ownFiles?: () => readonly string[];
  /** How to run git (default: `git` on PATH); false for the store without git. */
  readonly git?: GitLocation | false;
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
  return c.kind === 'absent' ? null : c.kind === 'large' ? 'unavailable' : blobId(c.bytes);
}

/** The state of `c` named the way `like` was (SHA-256 for older chats' ids, git blob ids otherwise), so the two compare. */
export function stateLike(c: Content, like: FileState): FileState {
  if (c.kind === 'bytes' && typeof like === 'string' && /^[0-9a-f]{64}$/.test(like)) return hashOf(c.bytes);
  return stateOf(c);
}

/** Created, modified, deleted and renamed paths from a command's changes (a move keeps its content id). */
function effectsOf(changes: readonly CommandChange[]): MeasuredEffects {
  const out = { created: [] as string[], modified: [] as string[], deleted: [] as string[], renamed: [] as Rename[] };
  for (const c of changes) (c.before === null ? out.created : c.after === null ? out.deleted : out.modified).push(c.path);
  const gone = new Map<string, string>();
  for (const p of out.deleted) {
    const id = changes.find((c) => c.path === p)?.before;
    if (typeof id === 'string' && id !== 'unavailable' && !gone.has(id)) gone.set(id, p);
  }
  for (const p of [...out.created]) {
    const id = changes.find((c) => c.path === p)?.after;
    const from = typeof id === 'string' ? gone.get(id) : undefined;
    if (from === undefined || id === undefined || id === null) continue;
    gone.delete(id);
    out.renamed.push({ from, to: p });
    out.created.splice(out.created.indexOf(p), 1);
    out.deleted.splice(out.deleted.indexOf(from), 1);
  }
  return out;
}

type Backend = { readonly kind: 'git'; readonly repo: ShadowRepo; readonly store: GitCheckpoints } | { readonly kind: 'walk'; readonly store: WalkCheckpoints };

export class FileSnapshots implements FileCapture {
  readonly objects: ObjectStore;
  readonly log: ChangeLog;
  readonly limits: SnapshotLimits;
  private backendP: Promise<Backend> | undefined;
  private readonly budget: StoreBudget;
  private told = false;

  constructor(private readonly deps: SnapshotDeps) {
    this.limits = { ...DEFAULT_SNAPSHOT_LIMITS, ...deps.limits };
    this.log = new ChangeLog(`${deps.dir}/changes.jsonl`, {
      roots: deps.roots,
      ...(deps.keyFile === undefined ? {} : { keyFile: deps.keyFile }),
      ...(deps.ownFiles === undefined ? {} : { own: deps.ownFiles }),
    });
    this.budget = new StoreBudget([join(deps.dir, 'objects'), join(deps.dir, 'git', 'objects')], this.limits.maxStoreBytes);
    this.objects = new ObjectStore(
      join(deps.dir, 'objects'),
      async () => {
        const b = await this.backend();
        return b.kind === 'git' ? b.repo.objectsDir : join(deps.dir, 'objects');
      },
      async () => {
        const b = await this.backend().catch(() => undefined);
        if (b?.kind !== 'git') return { dirs: [join(deps.dir, 'git', 'objects')] };
        return { dirs: [b.repo.objectsDir], packed: async (id) => (await b.repo.blobs([id]).catch(() => undefined))?.get(id) };
      },
    );
  }

  static dirFor(sessionPath: string): string {
    return `${sessionPath.replace(/\.jsonl$/i, '')}.files`;
  }

  get dir(): string {
    return this.deps.dir;
  }

  /** Capsule's own paths the stores leave out: this folder and whatever the session names. */
  private ownFiles(): string[] {
    return [resolve(this.deps.dir), ...(this.deps.ownFiles?.() ?? [])];
  }

  /** The shadow git repository when git runs here, the object folder otherwise (decided once per chat and process). */
  private backend(): Promise<Backend> {
    this.backendP ??= (async (): Promise<Backend> => {
      await this.budget.load();
      const loc = this.deps.git ?? { git: 'git', path: process.env.PATH };
      const tell = (u: Unkept): void => void this.tellOnce(u);
      if (loc !== false && (await gitWorks(loc))) {
        const repo = new ShadowRepo(join(this.deps.dir, 'git'), loc, () => this.ownFiles());
        return { kind: 'git', repo, store: new GitCheckpoints(repo, this.limits.maxFileBytes, this.budget, tell) };
      }
      const walk = new WalkCheckpoints({
        indexFile: join(this.deps.dir, 'stat-index.json'),
        maxFileBytes: this.limits.maxFileBytes,
        maxScanFiles: this.limits.maxScanFiles,
        skip: () => this.ownFiles(),
        budget: this.budget,
        put: (bytes) => this.objects.put(bytes),
        told: tell,
      });
      return { kind: 'walk', store: walk };
    })();
    return this.backendP;
  }

  /** How the scans before and after commands were done so far in this process (whole, only changed paths, none); undefined without git. */
  async checkpointScans(): Promise<
    { readonly before: ScanCounts; readonly after: ScanCounts; readonly beforeWithoutGit: number; readonly afterWithoutGit: number } | undefined
  > {
    const b = await this.backend();
    return b.kind === 'git'
      ? {
          before: { ...b.store.scans },
          after: { ...b.store.afterScans },
          beforeWithoutGit: b.store.scansWithoutGit,
          afterWithoutGit: b.store.afterScansWithoutGit,
        }
      : undefined;
  }

  /** Resolves when the work a command's checkpoint leaves for after its result (index update, pre-image copies) is done. */
  async idle(): Promise<void> {
    const b = await this.backendP?.catch(() => undefined);
    if (b?.kind === 'git') await b.store.idle();
  }

  /** Stops watching the workspace (the chat is closed); a later command starts again with a whole scan. */
  close(): void {
    void this.backendP?.then(
      (x) => (x.kind === 'git' ? x.store.close() : undefined),
      () => undefined,
    );
  }

  /** Bytes the store holds, as its budget counts them (contents before compression). */
  async storedBytes(): Promise<number> {
    await this.budget.load();
    return this.budget.bytes;
  }

  /** Which store this chat uses here: `git` (shadow repository) or `objects` (no git). */
  async storeKind(): Promise<'git' | 'objects'> {
    return (await this.backend()).kind === 'git' ? 'git' : 'objects';
  }

  /** Keeps the bytes when the store has room; the state to log either way. */
  async keep(c: Content): Promise<FileState> {
    if (c.kind !== 'bytes') return stateOf(c);
    await this.budget.load();
    if (!this.budget.take(c.bytes.byteLength)) return 'unavailable';
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

  /** The checkpoint a command starts from; a snapshot failure never stops the command (its effects then say why they are unknown). */
  async beforeCommand(): Promise<CommandCheckpoint> {
    const leaf = this.deps.leaf();
    let started: { finish(): Promise<CommandChange[]> };
    try {
      const b = await this.backend();
      started = await (b.store satisfies CommandCheckpointing).begin(await realRoots(this.deps.roots));
    } catch (err) {
      this.warn(err);
      return { finish: async () => ({ created: [], modified: [], deleted: [], renamed: [], unknown: `no checkpoint was taken: ${oneLine(err)}` }) };
    }
    return {
      finish: async () => {
        try {
          const changes = await started.finish();
          const at = new Date((this.deps.now ?? Date.now)()).toISOString();
          await this.log.append(changes.map((c) => ({ ...c, leaf, why: 'command' as const, at })));
          return effectsOf(changes);
        } catch (err) {
          this.warn(err);
          return { created: [], modified: [], deleted: [], renamed: [], unknown: `could not measure: ${oneLine(err)}` };
        }
      },
    };
  }

  /** Runs a command between its checkpoint and the log of what it changed. */
  async aroundCommand<T>(run: () => Promise<T>): Promise<T> {
    const ck = await this.beforeCommand();
    const r = await run();
    await ck.finish();
    return r;
  }

  /** Logs the changes of `paths` against their earlier states (a Content read before, or a logged state). */
  async record(paths: readonly string[], before: ReadonlyMap<string, Content | FileState>, leaf: string | null, why: Change['why']): Promise<Change[]> {
    const at = new Date((this.deps.now ?? Date.now)()).toISOString();
    const changes: Change[] = [];
    // Capsule's own files are never snapshotted: not even their pre-image goes into the store.
    const own = await this.log.ownTest();
    const b = await this.backend().catch(() => undefined);
    for (const path of paths.filter((p) => !own(p))) {
      const was = before.get(path);
      const prior: FileState = was === undefined ? null : typeof was === 'object' && was !== null ? await this.keep(was) : was;
      const after = stateOf(await readContent(path, this.limits.maxFileBytes));
      if (b?.kind === 'walk') b.store.forget(path);
      if (prior === after && prior !== 'unavailable') continue;
      changes.push({ path, leaf, before: prior, after, why, at });
    }
    return this.log.append(changes);
  }

  /** Said once per chat (a marker in the snapshot folder remembers it): what a file that could not be kept means for rewind. */
  private async tellOnce(u: Unkept): Promise<void> {
    if (this.told) return;
    this.told = true;
    const marker = join(this.deps.dir, 'unkept-notice');
    if (
      await stat(marker).then(
        () => true,
        () => false,
      )
    )
      return;
    await mkdir(this.deps.dir, { recursive: true });
    await writeFile(marker, `${new Date().toISOString()} ${u.why}\n`).catch(() => undefined);
    const mb = (n: number): string =>
      n >= 1024 * 1024 ? `${Math.round((n / (1024 * 1024)) * 10) / 10} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
    const reason =
      u.why === 'size'
        ? `it is ${mb(u.bytes)}, over the ${mb(this.limits.maxFileBytes)} limit for one file`
        : `the chat's snapshot store reached its ${mb(this.limits.maxStoreBytes)} budget`;
    this.deps.logger?.log(
      'warn',
      `Capsule could not keep a copy of ${JSON.stringify(u.path)} (${reason}). Rewinding cannot bring back content it did not keep: such files are named and left as they are. Their changes are still listed. This is said once per chat.`,
      { userNotice: true },
    );
  }

  private warn(err: unknown): undefined {
    this.deps.logger?.log('warn', `File snapshot not taken: ${oneLine(err)}`);
    return undefined;
  }
}
