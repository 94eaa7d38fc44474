// Checkpoints around a command through the shadow repository: one scan before (the index catches up with the disk), one after (what changed, with the ids the index held before).
import { lstat, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { FileState } from '../snapshots/fileState.js';
import { SKIPPED_DIRS } from '../snapshots/workspaceScan.js';
import { blobId, loosePath, writeLoose } from './looseObjects.js';
import { changesWithoutGit, type PendingRead, readPending } from './pendingImages.js';
import type { ShadowRepo, ShadowTree, Sweep } from './shadowRepo.js';
import { TreeWatcher } from './treeWatcher.js';
import type { CommandChange, StoreBudget, Unkept } from './checkpointTypes.js';

/** Files read side by side while settling a scan. */
const PARALLEL = 64;
/** Index entries that may differ from the shadow HEAD before it is moved to the index. */
const HEAD_DRIFT = 1000;
/** Most pre-images held back from the index between the scans before and after a command (more: staged at once). */
const PENDING_MAX = 200;
/** A tree with more folders than this is not watched (every scan is whole). */
const WATCH_MAX_DIRS = 20_000;
/** More changes than this between two scans, and the next scan is whole (see TreeWatcher). */
const WATCH_MAX_EVENTS = 1000;
/** How long a watcher may take to confirm it is up to date; it is not trusted after that. */
const WATCH_SYNC_MS = 10_000;

const toPosix = (p: string): string => p.split(sep).join('/');

interface Known {
  readonly size: number;
  readonly mtimeMs: number;
}

async function inBatches<T, R>(xs: readonly T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i += PARALLEL) out.push(...(await Promise.all(xs.slice(i, i + PARALLEL).map(fn))));
  return out;
}

/** How a tree was scanned: whole, only the paths the watcher saw change, or not at all (nothing changed). */
export interface ScanCounts {
  full: number;
  paths: number;
  none: number;
}

/** Every folder (absolute) that holds one of `files` (relative to `workTree`), at any depth. */
function dirsOf(workTree: string, files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const rel of files) {
    for (let i = rel.lastIndexOf('/'); i > 0; i = rel.lastIndexOf('/', i - 1)) {
      const d = join(workTree, rel.slice(0, i));
      if (out.has(d)) break;
      out.add(d);
    }
  }
  return out;
}

export class GitCheckpoints {
  /** Files left out of the index because they could not be kept (size, budget), with the stat they had then. */
  private readonly unkept = new Map<string, Known>();
  /** Trees already scanned by this process: the first scan of a chat may read the whole workspace and gets more time. */
  private readonly scanned = new Set<string>();
  /** Per tree (index file): what changed since the last scan, so each scan is only of that. */
  private readonly watchers = new Map<string, Promise<TreeWatcher>>();
  /**
   * Per tree: pre-images read by the scan before a command and not in the index yet (content id, or null for a
   * tracked file that was gone). The scan after the command takes them as the "before" of those paths and stages them
   * with the command's changes, so the scan before costs no index update.
   */
  private readonly pending = new Map<string, Map<string, string | null>>();
  /** Trees whose index may lag behind what was measured (an update failed): their next scan is whole. */
  private readonly lagging = new Set<string>();
  /** How the scans before commands were done. */
  readonly scans: ScanCounts = { full: 0, paths: 0, none: 0 };
  /** Scans before commands (counted in `scans.paths`) that needed no git: only tracked files had changed. */
  scansWithoutGit = 0;
  /** Scans after commands (counted in `afterScans.paths`) that needed no git: only tracked files had changed. */
  afterScansWithoutGit = 0;
  /** Per tree: the paths its index tracks as files and the id the index holds for each (read again after each index update). */
  private readonly tracked = new Map<string, Map<string, string>>();
  /** How the scans after commands were done. */
  readonly afterScans: ScanCounts = { full: 0, paths: 0, none: 0 };
  /** Index updates and pre-image copies left over from the last command, done after its result was returned. */
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: ShadowRepo,
    private readonly maxFileBytes: number,
    private readonly budget: StoreBudget,
    private readonly told: (u: Unkept) => void,
  ) {}

  /** Resolves when the work left over from the last command (index update, pre-image copies) is done. */
  idle(): Promise<void> {
    return this.work;
  }

  /**
   * Brings the snapshot up to date with the disk (edits made since the last command are not the next command's);
   * finish() lists what the command changed. Both scans look only at the paths the folder watcher saw change since the
   * scan before (none changed: no git at all); when the watcher cannot vouch for a window (see TreeWatcher.take), that
   * scan is whole. finish() must be called once the command's processes are gone (see runCommand): the watcher's take
   * then answers for every change they made.
   */
  async begin(roots: readonly string[]): Promise<{ finish(): Promise<CommandChange[]> }> {
    await this.work;
    const trees = await Promise.all(roots.map((r) => this.repo.tree(r)));
    await Promise.all(trees.map((t) => this.scan(t, this.scans, 'before')));
    return { finish: async () => (await Promise.all(trees.map((t) => this.scan(t, this.afterScans, 'after')))).flat() };
  }

  private async scan(t: ShadowTree, count: ScanCounts, when: 'before' | 'after'): Promise<CommandChange[]> {
    // The next window starts before the scan: a change made while it runs is looked at again next time.
    const since = await (await this.watcher(t)).take();
    const lagging = this.lagging.delete(t.indexFile);
    try {
      if (since.kind === 'unknown' || lagging) {
        count.full++;
        return await this.settle(t, await this.sweep(t), when, undefined);
      }
      // Pre-images still waiting for the index are looked at again: git reports them against the older index entry.
      const waiting = [...(this.pending.get(t.indexFile)?.keys() ?? [])].map((rel) => join(t.workTree, rel));
      if (since.paths.length === 0) {
        count.none++;
        return [];
      }
      count.paths++;
      if (when === 'before') {
        // Only tracked files changed (the usual edit between commands): their contents are kept now, and git looks at
        // them with the command's changes after it.
        const read = await this.readPending(t, since.paths);
        if (read) {
          this.scansWithoutGit++;
          return [];
        }
      } else {
        // Only tracked files changed (the usual command): what changed is found in-process; git looks once a scan needs it.
        const found = await this.afterWithoutGit(t, since.paths);
        if (found !== undefined) {
          this.afterScansWithoutGit++;
          return found;
        }
      }
      const only = when === 'after' ? [...new Set([...since.paths, ...waiting])] : since.paths;
      return await this.settle(t, await this.repo.sweep(t, false, only), when, only);
    } catch (err) {
      // What this scan saw may not be in the index: the next one must not trust the watcher's window alone.
      this.lagging.add(t.indexFile);
      throw err;
    }
  }

  /** How readPending and changesWithoutGit see the tree (undefined: its tracked files are not known yet). */
  private pendingRead(t: ShadowTree): PendingRead | undefined {
    const tracked = this.tracked.get(t.indexFile);
    if (tracked === undefined) return undefined;
    const unkept = new Set(this.unkept.keys());
    return { workTree: t.workTree, objectsDir: this.repo.objectsDir, tracked, unkept, maxFileBytes: this.maxFileBytes, budget: this.budget, max: PENDING_MAX };
  }

  /** Keeps the contents of `paths` as pending pre-images when all are tracked files; false when git must look instead. */
  private async readPending(t: ShadowTree, paths: readonly string[]): Promise<boolean> {
    const pending = this.pending.get(t.indexFile) ?? new Map<string, string | null>();
    const o = this.pendingRead(t);
    if (o === undefined) return false;
    const read = await readPending(o, paths, pending);
    if (read === undefined) return false;
    for (const [rel, id] of read) pending.set(rel, id);
    this.pending.set(t.indexFile, pending);
    return true;
  }

  /**
   * What the command changed when every path the watcher saw change is a tracked file (undefined: git must look).
   * No index update follows: each path's state now stays pending (the next scan takes it as the state before), and
   * the scan that next runs git stages every pending path with what it finds.
   */
  private async afterWithoutGit(t: ShadowTree, paths: readonly string[]): Promise<CommandChange[] | undefined> {
    const o = this.pendingRead(t);
    if (o === undefined) return undefined;
    const pending = new Map(this.pending.get(t.indexFile));
    const found = await changesWithoutGit(o, paths, pending);
    if (found === undefined) return undefined;
    this.pending.set(t.indexFile, pending);
    const out = found.map((c) => ({ path: join(t.workTree, c.rel), before: c.before, after: c.after }));
    this.work = this.work.then(() => this.ownPreImages(out)).catch(() => undefined);
    return out;
  }

  /** Stops watching (the chat is closed). */
  close(): void {
    this.repo.close();
    for (const w of this.watchers.values())
      void w.then(
        (x) => x.close(),
        () => undefined,
      );
    this.watchers.clear();
  }

  /** The tree's watcher, (re)started when it is new or failed: its next take then says unknown. */
  private async watcher(t: ShadowTree): Promise<TreeWatcher> {
    let p = this.watchers.get(t.indexFile);
    if (p === undefined) {
      p = (async () => {
        const files = await this.repo.trackedFiles(t).catch(() => undefined);
        if (files !== undefined) this.tracked.set(t.indexFile, files);
        const tracked = files === undefined ? undefined : dirsOf(t.workTree, [...files.keys()]);
        return new TreeWatcher({
          root: t.root,
          syncDir: join(this.repo.gitDir, 'watch'),
          // Folders git never looks into are not watched; a dependency folder is, when the repository tracks files in it.
          skip: (abs, name) =>
            name === '.git' || name === '.capsule' || this.repo.isOwn(abs) || (SKIPPED_DIRS.has(name) && (tracked === undefined || !tracked.has(abs))),
          maxDirs: WATCH_MAX_DIRS,
          maxEvents: WATCH_MAX_EVENTS,
          syncTimeoutMs: WATCH_SYNC_MS,
        });
      })();
      this.watchers.set(t.indexFile, p);
    }
    const w = await p;
    if (w.needsRestart) await w.restart();
    return w;
  }

  private sweep(t: ShadowTree): Promise<Sweep> {
    const first = !this.scanned.has(t.indexFile);
    this.scanned.add(t.indexFile);
    return this.repo.sweep(t, first);
  }

  /**
   * Updates the index for what the scan found and, after a command, returns each change with the content it replaced.
   * Files over the size limit or the store budget are dropped from the index and remembered by stat instead. Before a
   * command, a few changed files are only read and kept as pending pre-images (see pending); after it, the index update
   * runs once the result is out (the next scan waits for it).
   */
  private async settle(t: ShadowTree, s: Sweep, when: 'before' | 'after', scope: readonly string[] | undefined): Promise<CommandChange[]> {
    const record = when === 'after';
    const first = !record && s.created.length > 1000;
    const pending = this.pending.get(t.indexFile) ?? new Map<string, string | null>();
    const paths = [...s.changed.keys(), ...s.created];
    const seen = new Set(paths);
    // Unkept files git no longer sees (removed, or ignored) are checked by stat.
    for (const abs of this.unkept.keys()) {
      const rel = this.relIn(t, abs);
      if (rel !== undefined && !seen.has(rel)) paths.push(rel);
    }
    // A pending pre-image the scan looked at and git did not report: the index is right for it again (or it is ignored now).
    const under = scope?.map((a) => toPosix(relative(t.workTree, a)));
    const inScope = (rel: string): boolean => under === undefined || under.some((r) => r === '' || rel === r || rel.startsWith(`${r}/`));
    if (!record) for (const rel of [...pending.keys()]) if (!seen.has(rel) && inScope(rel)) pending.delete(rel);
    const defer = !record && pending.size + paths.length <= PENDING_MAX;
    const stage: string[] = [];
    const drop: string[] = [];
    const changes = await inBatches(paths, async (rel): Promise<CommandChange | undefined> => {
      const abs = join(t.workTree, rel);
      const tracked = s.changed.get(rel);
      const wasUnkept = this.unkept.get(abs);
      const was = pending.get(rel);
      const before: FileState = was !== undefined ? was : (tracked ?? (wasUnkept !== undefined ? 'unavailable' : null));
      pending.delete(rel);
      const st = await lstat(abs).catch(() => undefined);
      if (st === undefined || !st.isFile()) {
        // Gone (or now a link or a folder, which are not kept): the index forgets it.
        this.unkept.delete(abs);
        if (tracked !== undefined) {
          if (st !== undefined) drop.push(rel);
          else if (defer) pending.set(rel, null);
          else stage.push(rel);
        }
        return before === null || !record ? undefined : { path: abs, before, after: null };
      }
      if (wasUnkept !== undefined && wasUnkept.size === st.size && wasUnkept.mtimeMs === st.mtimeMs) return undefined;
      const why = st.size > this.maxFileBytes ? 'size' : this.budget.take(st.size) ? undefined : 'budget';
      if (why !== undefined) {
        this.unkept.set(abs, { size: st.size, mtimeMs: st.mtimeMs });
        if (tracked !== undefined) drop.push(rel);
        this.told({ path: abs, bytes: st.size, why });
        return record ? { path: abs, before, after: 'unavailable' } : undefined;
      }
      this.unkept.delete(abs);
      if (defer) {
        // Read and kept now (the command may change it next); the index learns it after the command.
        const bytes = await readFile(abs).catch(() => undefined);
        if (bytes === undefined) stage.push(rel);
        else pending.set(rel, (await writeLoose(this.repo.objectsDir, bytes)).id);
        return undefined;
      }
      stage.push(rel);
      if (!record) return undefined;
      const bytes = await readFile(abs).catch(() => undefined);
      const after = bytes === undefined ? 'unavailable' : blobId(bytes);
      return before === after ? undefined : { path: abs, before, after };
    });
    const out = changes.filter((c): c is CommandChange => c !== undefined);
    if (record) {
      // Pending pre-images git did not report match the index now (or are ignored now): changed back by the command?
      for (const [rel, was] of pending) {
        const now = await this.stateOf(join(t.workTree, rel));
        if (now !== was) out.push({ path: join(t.workTree, rel), before: was, after: now });
      }
      pending.clear();
    }
    if (pending.size > 0) this.pending.set(t.indexFile, pending);
    else this.pending.delete(t.indexFile);
    const update = async (): Promise<void> => {
      await this.repo.stage(t, stage, drop, first);
      // What the index tracks now and the ids it holds (git read the files), for the scans without git (see readPending).
      if ((stage.length > 0 || drop.length > 0) && this.tracked.has(t.indexFile)) {
        const known = await this.repo.trackedFiles(t).catch(() => undefined);
        if (known === undefined) this.tracked.delete(t.indexFile);
        else this.tracked.set(t.indexFile, known);
      }
      // The shadow HEAD drifts from the index as files change; rebased when the drift makes scans long.
      if (s.staged + stage.length > HEAD_DRIFT) await this.repo.rebaseHead(t);
    };
    if (!record) {
      await update();
      return out;
    }
    // After the command, the index update and the pre-image copies wait until its result is out.
    this.work = this.work
      .then(update)
      .catch(() => void this.lagging.add(t.indexFile))
      .then(() => this.ownPreImages(out))
      .catch(() => undefined);
    return out;
  }

  /** A file's content id now (null: absent or not a file; unavailable: too large to read). */
  private async stateOf(abs: string): Promise<FileState> {
    const st = await lstat(abs).catch(() => undefined);
    if (st === undefined || !st.isFile()) return null;
    if (st.size > this.maxFileBytes) return 'unavailable';
    const bytes = await readFile(abs).catch(() => undefined);
    return bytes === undefined ? null : blobId(bytes);
  }

  private relIn(t: ShadowTree, abs: string): string | undefined {
    const prefix = t.workTree.endsWith('/') ? t.workTree : `${t.workTree}/`;
    const root = t.root.endsWith('/') ? t.root : `${t.root}/`;
    return abs.startsWith(root) && abs.startsWith(prefix) ? abs.slice(prefix.length) : undefined;
  }

  /**
   * A pre-image that only the user's repository holds (a clean tracked file) is copied into the shadow store (after
   * the command's result is out; the next checkpoint waits for it): the user may rewrite history and prune it later,
   * and rewind must not depend on that.
   */
  private async ownPreImages(changes: readonly CommandChange[]): Promise<void> {
    const ids = [...new Set(changes.flatMap((c) => (c.before !== null && c.before !== 'unavailable' ? [c.before] : [])))];
    const missing: string[] = [];
    for (const id of ids)
      if (
        !(await lstat(loosePath(this.repo.objectsDir, id)).then(
          () => true,
          () => false,
        ))
      )
        missing.push(id);
    if (missing.length === 0) return;
    for (const bytes of (await this.repo.blobs(missing)).values()) this.budget.add((await writeLoose(this.repo.objectsDir, bytes)).written);
  }
}
