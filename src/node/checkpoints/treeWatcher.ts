// Watches the folders of one workspace folder (inotify through fs.watch) so the checkpoint before a command looks only at the paths that changed since the last scan.
import { type Dirent, type FSWatcher, lstatSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * File systems whose changes inotify reports whoever makes them (ext4, btrfs, xfs, tmpfs, overlayfs, f2fs, zfs).
 * On a network or FUSE file system a change made elsewhere raises no event: there every scan stays whole.
 */
const LOCAL_FS: ReadonlySet<number> = new Set([0xef53, 0x9123683e, 0x58465342, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1]);

/** What changed under the folder since the last `take`: these paths (absolute), or unknown (then scan everything). */
export type SinceLast = { readonly kind: 'paths'; readonly paths: readonly string[] } | { readonly kind: 'unknown'; readonly why: string };

export interface TreeWatchOptions {
  /** The workspace folder (real path). */
  readonly root: string;
  /** A folder of Capsule's own, outside every watched folder, where sync markers are written. */
  readonly syncDir: string;
  /** Paths never watched nor reported: `.git`, Capsule's own files, dependency folders git does not track. */
  readonly skip: (abs: string, name: string) => boolean;
  /** Most folders watched; a larger tree is not watched at all (every scan is whole). */
  readonly maxDirs: number;
  /** Most events between two takes; more, and the next two takes say unknown (see take). */
  readonly maxEvents: number;
  /** How long a sync marker may take to come back before the watcher is not trusted. */
  readonly syncTimeoutMs: number;
}

/**
 * Why this is exact and not a hint: every fs.watch of a process shares one inotify queue, read in order. take()
 * writes a marker file in a watched folder of its own and waits for its event, so every change made on disk before
 * take() was called has been delivered when it answers. What the kernel can lose is covered: a new folder is watched
 * inside the event that announces it (its path is reported too, so what was written in it before is scanned); a
 * folder moved or removed drops its watches (their events would name the old place); a queue overflow drops events
 * silently, and can only happen after the queue holds thousands of unread events, so a window with more than
 * maxEvents makes this take and the next say unknown; any watcher error makes every take unknown until restart().
 */
export class TreeWatcher {
  private readonly dirs = new Map<string, FSWatcher>();
  private changed = new Set<string>();
  private events = 0;
  private broken: string | undefined;
  /** A reason that no restart changes (platform, file system, too many folders): every take says unknown. */
  private never: string | undefined;
  private untrusted = true;
  private rootIno = 0;
  private sync: FSWatcher | undefined;
  private readonly waiting = new Map<string, () => void>();
  private seq = 0;

  constructor(private readonly o: TreeWatchOptions) {}

  /** Watches every folder from scratch (dropping what was watched); the next take says unknown. */
  async restart(): Promise<void> {
    this.close();
    if (this.never !== undefined) return;
    this.broken = undefined;
    this.untrusted = true;
    try {
      if (process.platform !== 'linux') return this.give('folder watching is trusted on Linux only');
      const fs = (await statfs(this.o.root)).type;
      if (!LOCAL_FS.has(fs)) return this.give(`not a local file system (type 0x${fs.toString(16)})`);
      await mkdir(this.o.syncDir, { recursive: true });
      this.sync = watch(this.o.syncDir, { persistent: false }, (_type, name) => {
        const done = name === null ? undefined : this.waiting.get(String(name));
        if (done !== undefined) done();
      });
      this.sync.on('error', () => this.fail('the sync watcher failed'));
      this.rootIno = lstatSync(this.o.root).ino;
      this.add(this.o.root);
    } catch (err) {
      this.fail(`could not watch: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Whether restart() must run before takes can say anything but unknown. */
  get needsRestart(): boolean {
    return this.never === undefined && (this.broken !== undefined || this.sync === undefined);
  }

  /**
   * The paths changed since the previous take (or restart), exact for every change made before this call; starts
   * the next window.
   */
  async take(): Promise<SinceLast> {
    const synced = await this.barrier();
    const paths = [...this.changed];
    const events = this.events;
    const untrusted = this.untrusted;
    this.changed = new Set();
    this.events = 0;
    // A window this busy may have overflowed the queue right after its last delivered event: the next is not trusted.
    this.untrusted = events > this.o.maxEvents;
    if (!synced) return { kind: 'unknown', why: 'the watcher did not answer in time' };
    if (this.broken !== undefined || this.sync === undefined) return { kind: 'unknown', why: this.broken ?? 'not watching' };
    if (untrusted) return { kind: 'unknown', why: 'no complete window yet' };
    if (events > this.o.maxEvents) return { kind: 'unknown', why: `more than ${this.o.maxEvents} changes` };
    const ino = (() => {
      try {
        return lstatSync(this.o.root).ino;
      } catch {
        return -1;
      }
    })();
    if (ino !== this.rootIno) return { kind: 'unknown', why: 'the folder itself was moved or replaced' };
    return { kind: 'paths', paths };
  }

  close(): void {
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
    this.sync?.close();
    this.sync = undefined;
    for (const done of this.waiting.values()) done();
    this.waiting.clear();
  }

  private fail(why: string): void {
    this.broken ??= why;
  }

  private give(why: string): void {
    this.never = why;
    this.fail(why);
    this.close();
  }

  /** Resolves true once every event queued before the call has been handled (false: no answer in time). */
  private async barrier(): Promise<boolean> {
    if (this.sync === undefined || this.broken !== undefined) return true;
    const name = `sync-${process.pid}-${++this.seq}`;
    const marker = join(this.o.syncDir, name);
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<boolean>((res) => {
      this.waiting.set(name, () => res(true));
      timer = setTimeout(() => res(false), this.o.syncTimeoutMs);
    });
    try {
      // Synchronous (an empty file in Capsule's own folder): no thread-pool round trip to wait behind other jobs.
      writeFileSync(marker, '');
    } catch {
      this.waiting.delete(name);
      clearTimeout(timer);
      this.fail('could not write the sync marker');
      return true;
    }
    const ok = await arrived;
    clearTimeout(timer);
    this.waiting.delete(name);
    try {
      rmSync(marker, { force: true });
    } catch {
      // A marker left behind is only an empty file in Capsule's own folder.
    }
    if (!ok) this.fail('the watcher did not answer in time');
    return ok;
  }

  /** Watches `dir` and every folder under it (synchronously: no event can slip between finding a folder and watching it). */
  private add(dir: string): void {
    const stack = [dir];
    while (stack.length > 0 && this.broken === undefined) {
      const d = stack.pop() ?? '';
      if (this.dirs.has(d)) continue;
      if (this.dirs.size >= this.o.maxDirs) return this.give(`more than ${this.o.maxDirs} folders`);
      let w: FSWatcher;
      try {
        w = watch(d, { persistent: false }, (type, name) => this.onEvent(d, type, name === null ? null : String(name)));
      } catch (err) {
        // Removed before it could be watched: its parent's event already names it.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
        return this.fail(`could not watch ${d}: ${(err as Error).message}`);
      }
      w.on('error', () => this.fail(`the watch on ${d} failed`));
      this.dirs.set(d, w);
      let names: Dirent[];
      try {
        names = readdirSync(d, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const n of names) {
        const p = join(d, n.name);
        if (n.isDirectory() && !this.o.skip(p, n.name)) stack.push(p);
      }
    }
  }

  private onEvent(dir: string, type: string, name: string | null): void {
    if (this.broken !== undefined) return;
    if (name === null) return this.fail('an event without a name');
    const abs = join(dir, name);
    if (this.o.skip(abs, name)) return;
    this.events++;
    if (this.changed.size <= this.o.maxEvents) this.changed.add(abs);
    if (type !== 'rename') return;
    // Created, removed or moved: watches at or under this path named the old place; the folder there now is watched.
    const prefix = `${abs}/`;
    for (const [d, w] of this.dirs) {
      if (d === abs || d.startsWith(prefix)) {
        w.close();
        this.dirs.delete(d);
      }
    }
    let isDir = false;
    try {
      isDir = lstatSync(abs).isDirectory();
    } catch {
      isDir = false;
    }
    if (isDir) this.add(abs);
  }
}
