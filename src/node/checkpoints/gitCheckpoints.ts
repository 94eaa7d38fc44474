// Checkpoints around a command through the shadow repository: one scan before (the index catches up with the disk), one after (what changed, with the ids the index held before).
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileState } from '../snapshots/fileState.js';
import { SKIPPED_DIRS } from '../snapshots/workspaceScan.js';
import { blobId, loosePath, writeLoose } from './looseObjects.js';
import type { ShadowRepo, ShadowTree, Sweep } from './shadowRepo.js';
import { TreeWatcher } from './treeWatcher.js';
import type { CommandChange, StoreBudget, Unkept } from './checkpointTypes.js';

/** Files read side by side while settling a scan. */
const PARALLEL = 64;
/** Index entries that may differ from the shadow HEAD before it is moved to the index. */
const HEAD_DRIFT = 1000;
/** A tree with more folders than this is not watched (every scan is whole). */
const WATCH_MAX_DIRS = 20_000;
/** More changes than this between two scans, and the next scan is whole (see TreeWatcher). */
const WATCH_MAX_EVENTS = 1000;
/** How long a watcher may take to confirm it is up to date; it is not trusted after that. */
const WATCH_SYNC_MS = 10_000;

interface Known {
  readonly size: number;
  readonly mtimeMs: number;
}

async function inBatches<T, R>(xs: readonly T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < xs.length; i += PARALLEL) out.push(...(await Promise.all(xs.slice(i, i + PARALLEL).map(fn))));
  return out;
}

export class GitCheckpoints {
  /** Files left out of the index because they could not be kept (size, budget), with the stat they had then. */
  private readonly unkept = new Map<string, Known>();
  /** Trees already scanned by this process: the first scan of a chat may read the whole workspace and gets more time. */
  private readonly scanned = new Set<string>();
  /** Per tree (index file): what changed since the last scan, so the scan before a command is only of that. */
  private readonly watchers = new Map<string, Promise<TreeWatcher>>();
  /** How the scans before commands were done: whole, only the changed paths, or not at all (nothing changed). */
  readonly scans = { full: 0, paths: 0, none: 0 };
  /** Pre-images being copied out of the user's objects, after the command's result was returned. */
  private copying: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: ShadowRepo,
    private readonly maxFileBytes: number,
    private readonly budget: StoreBudget,
    private readonly told: (u: Unkept) => void,
  ) {}

  /**
   * Brings the snapshot up to date with the disk (edits made since the last command are not the next command's);
   * finish() lists what the command changed. Before the command only the paths the watcher saw change are looked at
   * (none: no git at all); after it, the whole tree is scanned, since what a command did must never be missed.
   */
  async begin(roots: readonly string[]): Promise<{ finish(): Promise<CommandChange[]> }> {
    await this.copying;
    const trees = await Promise.all(roots.map((r) => this.repo.tree(r)));
    await Promise.all(
      trees.map(async (t) => {
        const since = await (await this.watcher(t)).take();
        if (since.kind === 'unknown') {
          this.scans.full++;
          return this.settle(t, await this.sweep(t), false);
        }
        if (since.paths.length === 0) {
          this.scans.none++;
          return [];
        }
        this.scans.paths++;
        return this.settle(t, await this.repo.sweep(t, false, since.paths), false);
      }),
    );
    return {
      finish: async () =>
        (
          await Promise.all(
            trees.map(async (t) => {
              // The next window starts before the scan: a change made while it runs is looked at again next time.
              await (await this.watcher(t)).take();
              return this.settle(t, await this.sweep(t), true);
            }),
          )
        ).flat(),
    };
  }

  /** Stops watching (the chat is closed). */
  close(): void {
    for (const w of this.watchers.values()) void w.then((x) => x.close(), () => undefined);
    this.watchers.clear();
  }

  /** The tree's watcher, (re)started when it is new or failed: its next take then says unknown. */
  private async watcher(t: ShadowTree): Promise<TreeWatcher> {
    let p = this.watchers.get(t.indexFile);
    if (p === undefined) {
      p = (async () => {
        const tracked = await this.repo.trackedDirs(t).catch(() => undefined);
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
   * Updates the index for what the scan found and, when `record`, returns each change with the content it replaced.
   * Files over the size limit or the store budget are dropped from the index and remembered by stat instead.
   */
  private async settle(t: ShadowTree, s: Sweep, record: boolean): Promise<CommandChange[]> {
    const first = !record && s.created.length > 1000;
    const paths = [...s.changed.keys(), ...s.created];
    // Unkept files git no longer sees (removed, or ignored) are checked by stat.
    const seen = new Set(paths);
    for (const abs of this.unkept.keys()) {
      const rel = this.relIn(t, abs);
      if (rel !== undefined && !seen.has(rel)) paths.push(rel);
    }
    const stage: string[] = [];
    const drop: string[] = [];
    const changes = await inBatches(paths, async (rel): Promise<CommandChange | undefined> => {
      const abs = join(t.workTree, rel);
      const tracked = s.changed.get(rel);
      const wasUnkept = this.unkept.get(abs);
      const before: FileState = tracked ?? (wasUnkept !== undefined ? 'unavailable' : null);
      const st = await lstat(abs).catch(() => undefined);
      if (st === undefined || !st.isFile()) {
        // Gone (or now a link or a folder, which are not kept): the index forgets it.
        this.unkept.delete(abs);
        if (tracked !== undefined) (st === undefined ? stage : drop).push(rel);
        return before === null ? undefined : { path: abs, before, after: null };
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
      stage.push(rel);
      if (!record) return undefined;
      const bytes = await readFile(abs).catch(() => undefined);
      const after = bytes === undefined ? 'unavailable' : blobId(bytes);
      return before === after ? undefined : { path: abs, before, after };
    });
    const out = changes.filter((c): c is CommandChange => c !== undefined);
    await this.repo.stage(t, stage, drop, first);
    // The shadow HEAD drifts from the index as files change; rebased when the drift makes scans long.
    if (s.staged + stage.length > HEAD_DRIFT) {
      await this.repo.rebaseHead(t);
    }
    if (record) this.copying = this.copying.then(() => this.ownPreImages(out)).catch(() => undefined);
    return out;
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
    for (const id of ids) if (!(await lstat(loosePath(this.repo.objectsDir, id)).then(() => true, () => false))) missing.push(id);
    if (missing.length === 0) return;
    for (const bytes of (await this.repo.blobs(missing)).values()) this.budget.add((await writeLoose(this.repo.objectsDir, bytes)).written);
  }
}
