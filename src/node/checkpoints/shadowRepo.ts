// The shadow git repository of one chat: its own GIT_DIR in the snapshot folder, one index per workspace folder, the user's objects borrowed read-only.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SKIPPED_DIRS } from '../snapshots/workspaceScan.js';
import { CatFileBatch } from './catFile.js';
import { type GitLocation, runGit, spawnGit } from './gitCommand.js';
import { BLOB_ID } from './looseObjects.js';

/** A scan or an index update; longer for the first one, which may read the whole workspace. */
const SCAN_TIMEOUT_MS = 60_000;
const FIRST_TIMEOUT_MS = 300_000;
/** Files staged at once beyond which their contents are written as one pack (see stage). */
const BULK_FILES = 1000;

/** One workspace folder as the shadow repository sees it. */
export interface ShadowTree {
  /** The workspace folder (real path). */
  readonly root: string;
  /** The folder git treats as the work tree: the root, or the top of the user's repository that holds it. */
  readonly workTree: string;
  /** The root relative to the work tree, as a pathspec (`.` when they are the same). */
  readonly spec: string;
  readonly indexFile: string;
}

/** What changed in a work tree since its index was last updated. */
export interface Sweep {
  /** Tracked paths whose file changed or disappeared → the content id the index holds (the state before). */
  readonly changed: ReadonlyMap<string, string>;
  /** Paths git does not track yet (not ignored): created since. */
  readonly created: readonly string[];
  /** Index entries that differ from the shadow HEAD only (none of them changed on disk). */
  readonly staged: number;
}

const toPosix = (p: string): string => p.split(sep).join('/');

/** A path as an exclude pattern matching exactly it (anchored, special characters escaped). */
function exactPattern(rel: string): string {
  return `/${toPosix(rel).replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`)}`;
}

export class ShadowRepo {
  private ready: Promise<void> | undefined;
  private readonly trees = new Map<string, Promise<ShadowTree>>();
  private readonly opened: ShadowTree[] = [];
  /** The git that reads contents by id, started on first use and kept for the chat. */
  private batch: CatFileBatch | undefined;

  constructor(
    readonly gitDir: string,
    private readonly loc: GitLocation,
    /** Capsule's own files and folders (absolute): never kept, never restored. */
    private readonly ownFiles: () => readonly string[],
  ) {}

  get objectsDir(): string {
    return join(this.gitDir, 'objects');
  }

  private git(args: readonly string[], tree?: ShadowTree, input?: string | Buffer, timeoutMs = SCAN_TIMEOUT_MS): Promise<Buffer> {
    return runGit(this.loc, {
      gitDir: this.gitDir,
      ...(tree === undefined ? {} : { workTree: tree.workTree, indexFile: tree.indexFile }),
      args,
      timeoutMs,
      ...(input === undefined ? {} : { input }),
    });
  }

  private ensure(): Promise<void> {
    this.ready ??= (async () => {
      if (
        !(await stat(join(this.gitDir, 'HEAD')).then(
          () => true,
          () => false,
        ))
      ) {
        await mkdir(this.gitDir, { recursive: true });
        await this.git(['init', '--bare', '-q', '--template=', this.gitDir]);
      }
      await mkdir(join(this.gitDir, 'info'), { recursive: true });
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /** The shadow view of a workspace folder; the first time, its index starts as a copy of the user's (see seed). */
  tree(root: string): Promise<ShadowTree> {
    let t = this.trees.get(root);
    if (t === undefined) {
      t = this.openTree(root).catch((err: unknown) => {
        this.trees.delete(root);
        throw err;
      });
      this.trees.set(root, t);
    }
    return t;
  }

  private async openTree(root: string): Promise<ShadowTree> {
    await this.ensure();
    const user = await this.userRepo(root);
    const workTree = user?.top ?? root;
    const spec = toPosix(relative(workTree, root)) || '.';
    const key = createHash('sha1').update(workTree).update('\0').update(spec).digest('hex').slice(0, 12);
    const tree: ShadowTree = { root, workTree, spec, indexFile: join(this.gitDir, `index-${key}`) };
    this.opened.push(tree);
    // A lock left by a git this chat started in a process that was killed: the chat is this process's alone (its
    // session lock), and this process has not run git on the index yet.
    await rm(`${tree.indexFile}.lock`, { force: true });
    await this.writeExcludes();
    if (
      user !== undefined &&
      user.sha1 &&
      !(await stat(tree.indexFile).then(
        () => true,
        () => false,
      ))
    )
      await this.seed(tree, user);
    return tree;
  }

  /** The user's repository holding `root`, read with git's own discovery (nothing in it is changed). */
  private async userRepo(
    root: string,
  ): Promise<{ readonly top: string; readonly gitDir: string; readonly objects: string; readonly sha1: boolean } | undefined> {
    try {
      const out = (
        await runGit(this.loc, {
          gitDir: undefined,
          workTree: root,
          args: ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir', '--show-object-format'],
          timeoutMs: SCAN_TIMEOUT_MS,
        })
      )
        .toString('utf8')
        .split('\n');
      const [top, gitDir, common, format] = out;
      if (top === undefined || top === '' || gitDir === undefined || common === undefined) return undefined;
      return { top: resolve(top), gitDir, objects: join(isAbsolute(common) ? common : resolve(root, common), 'objects'), sha1: format === 'sha1' };
    } catch {
      return undefined;
    }
  }

  /**
   * A git workspace's first checkpoint costs no copy: the user's objects serve as alternates (read only), and the
   * index starts as a copy of the user's (stat data included), so clean tracked files are known without reading them.
   */
  private async seed(tree: ShadowTree, user: { readonly gitDir: string; readonly objects: string }): Promise<void> {
    const alternates = join(this.objectsDir, 'info', 'alternates');
    await mkdir(join(this.objectsDir, 'info'), { recursive: true });
    const have = (await readFile(alternates, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    if (!have.includes(user.objects)) {
      await writeFile(alternates, [...have, user.objects].map((l) => `${l}\n`).join(''));
      // A running cat-file read the list when it started: the next read starts one that sees these objects too.
      this.close();
    }
    const source = join(user.gitDir, 'index');
    const st = await stat(source).catch(() => undefined);
    if (st === undefined) return;
    // A split index keeps most entries in sharedindex.* files beside it: they come along.
    for (const n of await readdir(user.gitDir).catch(() => [] as string[]))
      if (n.startsWith('sharedindex.')) await copyFile(join(user.gitDir, n), join(this.gitDir, n));
    await copyFile(source, tree.indexFile);
    // The shadow HEAD starts at the user's commit (read through the alternates), so a scan lists only what differs from it.
    const head = await runGit(this.loc, {
      gitDir: user.gitDir,
      workTree: tree.workTree,
      args: ['rev-parse', '-q', '--verify', 'HEAD^{commit}'],
      timeoutMs: SCAN_TIMEOUT_MS,
    }).catch(() => undefined);
    const id = head?.toString('utf8').trim() ?? '';
    if (/^[0-9a-f]{40}$/.test(id) && this.opened.length === 1) await writeFile(join(this.gitDir, 'HEAD'), `${id}\n`);
    // The copy keeps the original's time, so git's check for files changed in the same second as the index still applies.
    await utimes(tree.indexFile, st.atime, st.mtime);
    try {
      await this.git(['ls-files', '-z', '--', ':(top)nonexistent-capsule-probe'], tree);
    } catch {
      // An index this git cannot read (a newer format): start without it; the first scan then reads every file once.
      await rm(tree.indexFile, { force: true });
    }
  }

  /** Skipped folders, Capsule's files and restore's temp files: never snapshotted (anchored patterns for each open tree). */
  private async writeExcludes(): Promise<void> {
    const lines = [
      '# Written by Capsule: what its checkpoints never keep.',
      ...[...SKIPPED_DIRS].filter((d) => d !== '.git').map((d) => `${d}/`),
      '.capsule/',
      '*.capsule-tmp',
    ];
    for (const own of [...this.ownFiles(), this.gitDir]) {
      for (const t of this.opened) {
        const rel = relative(t.workTree, own);
        if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) lines.push(exactPattern(rel));
      }
    }
    await writeFile(join(this.gitDir, 'info', 'exclude'), `${[...new Set(lines)].join('\n')}\n`);
  }

  /**
   * What changed in the tree since its index was last updated: one `git status` (one pass over the files). The
   * shadow HEAD is only there to keep that output short: entries that differ from it but not from the disk are counted.
   */
  async sweep(tree: ShadowTree, first = false, only?: readonly string[]): Promise<Sweep> {
    // `only`: absolute paths under the root (files or folders); git then stats just those index entries and folders.
    const specs = only === undefined ? [tree.spec] : only.map((abs) => `:(literal)${toPosix(relative(tree.workTree, abs))}`);
    const args = ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=all', '--', ...specs];
    const timeout = first ? FIRST_TIMEOUT_MS : SCAN_TIMEOUT_MS;
    const out = await this.git(args, tree, undefined, timeout).catch(async (err: unknown) => {
      // The HEAD borrowed from the user may be gone (history rewritten and pruned): scan against no HEAD instead.
      const head = await readFile(join(this.gitDir, 'HEAD'), 'utf8').catch(() => '');
      if (!/^[0-9a-f]{40}\s*$/.test(head)) throw err;
      await writeFile(join(this.gitDir, 'HEAD'), 'ref: refs/heads/capsule\n');
      return this.git(args, tree, undefined, timeout);
    });
    const changed = new Map<string, string>();
    const created: string[] = [];
    let staged = 0;
    for (const rec of out.toString('utf8').split('\0')) {
      if (rec.startsWith('? ')) {
        // A nested repository shows as its folder ("sub/"): its files are its own repository's business.
        if (!rec.endsWith('/')) created.push(rec.slice(2));
        continue;
      }
      // 1 XY sub mH mI mW hH hI path
      const m = /^1 (.)(.) \S+ \d{6} (\d{6}) \d{6} [0-9a-f]{40} ([0-9a-f]{40}) (.*)$/s.exec(rec);
      if (m?.[2] === undefined || m[3] === undefined || m[4] === undefined || m[5] === undefined) continue;
      if (m[2] === '.') {
        staged++;
        continue;
      }
      // Links and submodules are neither kept nor restored: a link's target is someone else's file.
      if (m[3] === '120000' || m[3] === '160000' || m[3] === '000000') {
        if (m[3] === '000000') created.push(m[5]);
        continue;
      }
      changed.set(m[5], m[4]);
    }
    return { changed, created, staged };
  }

  /** Whether `abs` is one of Capsule's own files or folders (or inside one): never kept, so never watched. */
  isOwn(abs: string): boolean {
    return [...this.ownFiles(), this.gitDir].some((o) => abs === o || abs.startsWith(o.endsWith('/') ? o : `${o}/`));
  }

  /**
   * The paths (relative to the work tree) the tree's index tracks under its root, with their content ids. Links and
   * submodules are left out, and so are paths in a merge conflict (a copy of your index mid-merge): their entries hold
   * the merge's sides, not what is on disk, so git is asked about them instead.
   */
  async trackedFiles(tree: ShadowTree): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const conflicted = new Set<string>();
    for (const rec of (await this.git(['ls-files', '-s', '-z', '--', tree.spec], tree)).toString('utf8').split('\0')) {
      // <mode> <id> <stage>\t<path>
      const tab = rec.indexOf('\t');
      if (tab < 0) continue;
      const path = rec.slice(tab + 1);
      if (rec.slice(48, tab) !== '0') conflicted.add(path);
      else if (rec.startsWith('100')) out.set(path, rec.slice(7, 47));
    }
    for (const path of conflicted) out.delete(path);
    return out;
  }

  /** Points the shadow HEAD at the index as it is now, so later scans list only what differs from it. */
  async rebaseHead(tree: ShadowTree): Promise<void> {
    const treeId = (await this.git(['write-tree'], tree)).toString('utf8').trim();
    const commit = (await this.git(['commit-tree', treeId, '-m', 'Capsule checkpoint base'], tree)).toString('utf8').trim();
    await writeFile(join(this.gitDir, 'HEAD'), `${commit}\n`);
  }

  /** Brings the index up to date for `paths` (relative to the work tree): adds or updates files, drops missing ones, forgets `drop`. */
  async stage(tree: ShadowTree, paths: readonly string[], drop: readonly string[], first = false): Promise<void> {
    const timeout = first ? FIRST_TIMEOUT_MS : SCAN_TIMEOUT_MS;
    // Many files at once (a first checkpoint without git history) go straight into one pack rather than one loose file
    // each: git streams every file over core.bigFileThreshold into a single pack per update-index.
    const bulk = paths.length > BULK_FILES ? ['-c', 'core.bigFileThreshold=1'] : [];
    if (paths.length > 0) await this.git([...bulk, 'update-index', '--add', '--remove', '-z', '--stdin'], tree, `${paths.join('\0')}\0`, timeout);
    if (drop.length > 0) await this.git(['update-index', '--force-remove', '-z', '--stdin'], tree, `${drop.join('\0')}\0`, timeout);
  }

  /** Contents by id from the shadow store or the user's objects it borrows; ids git does not have are left out. */
  async blobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const asked = [...new Set(ids.filter((id) => BLOB_ID.test(id)))];
    if (asked.length === 0) return new Map();
    await this.ensure();
    this.batch ??= new CatFileBatch(() => spawnGit(this.loc, { gitDir: this.gitDir, args: ['cat-file', '--batch'] }), SCAN_TIMEOUT_MS);
    return this.batch.get(asked);
  }

  /** Ends the git process that reads contents (the chat is closed); the next read starts another. */
  close(): void {
    this.batch?.close();
    this.batch = undefined;
  }
}
