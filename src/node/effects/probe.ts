// Measures what a command did to the workspace: a snapshot before, one after, and the exact difference (created, modified, deleted, renamed).
import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Rename } from '../../engine/transcript/effects.js';
import { blobHash, type FileStat, sameStat, statOf, walkTree } from './diskFacts.js';
import { gitBlobs, gitDiffNames, gitHead, gitStatus, gitTop } from './gitState.js';

/** A folder outside git is walked file by file; above this many entries it is "too large" rather than slow. */
export const MAX_SCAN_ENTRIES = 20_000;
/** A git tree with more uncommitted paths than this is not compared path by path. */
const MAX_DIRTY_PATHS = 20_000;
/** Dirty files hashed before the command so a rename of one can be recognized; beyond this renames show as delete + create. */
const MAX_HASHED = 500;

export interface FileEffects {
  readonly created: string[];
  readonly modified: string[];
  readonly deleted: string[];
  readonly renamed: Rename[];
  /** Why the effects could not be (fully) measured. */
  readonly unknown?: string;
}

interface Before {
  readonly stat?: FileStat;
  readonly hash?: string;
}

type Snapshot =
  | { readonly kind: 'git'; readonly top: string; readonly spec: string; readonly head: string | null; readonly dirty: Map<string, Before> }
  | { readonly kind: 'walk'; readonly files: Map<string, FileStat> }
  | { readonly kind: 'unknown'; readonly reason: string };

export interface EffectProbe {
  /** The difference between now and the snapshot taken when the probe started; never rejects. */
  finish(): Promise<FileEffects>;
}

const toPosix = (p: string): string => p.split(sep).join('/');

async function snapshot(root: string): Promise<Snapshot> {
  const top = await gitTop(root);
  if (top !== undefined) {
    const spec = toPosix(relative(top, root)) || '.';
    // Independent queries in parallel: the probe's cost is a few git round trips, not their sum.
    const [status, head] = await Promise.all([gitStatus(top, spec), gitHead(top)]);
    if (status.size > MAX_DIRTY_PATHS) return { kind: 'unknown', reason: `workspace too large: more than ${MAX_DIRTY_PATHS} uncommitted files` };
    const dirty = new Map<string, Before>();
    let hashed = 0;
    await Promise.all(
      [...status.keys()].map(async (p) => {
        const st = await statOf(join(top, p));
        const hash = st && hashed++ < MAX_HASHED ? await blobHash(join(top, p), st.size) : undefined;
        dirty.set(p, { ...(st ? { stat: st } : {}), ...(hash ? { hash } : {}) });
      }),
    );
    return { kind: 'git', top, spec, head, dirty };
  }
  const walk = await walkTree(root, MAX_SCAN_ENTRIES);
  if (walk.overflow) return { kind: 'unknown', reason: `workspace too large: more than ${MAX_SCAN_ENTRIES} files outside git` };
  return { kind: 'walk', files: walk.files };
}

function empty(unknown?: string): FileEffects {
  return { created: [], modified: [], deleted: [], renamed: [], ...(unknown === undefined ? {} : { unknown }) };
}

/** Pairs a deleted and a created path with the same content (hash) or the same inode: a move. */
function pairRenames(out: { created: string[]; deleted: string[]; renamed: Rename[] }, key: (p: string, side: 'old' | 'new') => string | undefined): void {
  const byKey = new Map<string, string>();
  for (const d of out.deleted) {
    const k = key(d, 'old');
    if (k !== undefined && !byKey.has(k)) byKey.set(k, d);
  }
  for (const c of [...out.created]) {
    const k = key(c, 'new');
    const from = k === undefined ? undefined : byKey.get(k);
    if (from === undefined || k === undefined) continue;
    byKey.delete(k);
    out.renamed.push({ from, to: c });
    out.created.splice(out.created.indexOf(c), 1);
    out.deleted.splice(out.deleted.indexOf(from), 1);
  }
}

async function diffWalk(root: string, before: Map<string, FileStat>): Promise<FileEffects> {
  const after = await walkTree(root, MAX_SCAN_ENTRIES);
  const out = { created: [] as string[], modified: [] as string[], deleted: [] as string[], renamed: [] as Rename[] };
  for (const [p, st] of after.files) {
    const was = before.get(p);
    if (!was) out.created.push(p);
    else if (!sameStat(was, st)) out.modified.push(p);
  }
  for (const p of before.keys()) if (!after.files.has(p)) out.deleted.push(p);
  // A move within one file system keeps the inode: exact, and free.
  pairRenames(out, (p, side) => String((side === 'old' ? before.get(p) : after.files.get(p))?.ino ?? ''));
  const notes = [
    ...(after.overflow ? [`the workspace grew past ${MAX_SCAN_ENTRIES} files during the command; changes beyond that are not listed`] : []),
    ...(after.unreadable > 0 ? [`${after.unreadable} folder(s) could not be read`] : []),
  ];
  return { ...out, ...(notes.length > 0 ? { unknown: notes.join('; ') } : {}) };
}

async function diffGit(s: Extract<Snapshot, { kind: 'git' }>): Promise<FileEffects> {
  const { top, spec } = s;
  const [status, head] = await Promise.all([gitStatus(top, spec), gitHead(top)]);
  const moved = head !== s.head && head !== null && s.head !== null ? await gitDiffNames(top, s.head, head, spec) : new Map<string, string>();
  const out = { created: [] as string[], modified: [] as string[], deleted: [] as string[], renamed: [] as Rename[] };
  const candidates = new Set([...s.dirty.keys(), ...status.keys(), ...moved.keys()]);
  const afterStats = new Map<string, FileStat>();
  for (const p of candidates) {
    const now = await statOf(join(top, p));
    if (now) afterStats.set(p, now);
    const was = s.dirty.get(p);
    if (was) {
      // Dirty before: compare with what we saw then (a commit or `git add` changes the status, not the file).
      if (!was.stat && now) out.created.push(p);
      else if (was.stat && !now) out.deleted.push(p);
      else if (was.stat && now && !sameStat(was.stat, now)) out.modified.push(p);
      continue;
    }
    // Clean before: the file was exactly its HEAD version (or absent when untracked files never showed).
    const code = status.get(p);
    const letter = moved.get(p);
    if (code === '??' || code?.startsWith('A')) out.created.push(p);
    else if (!now) out.deleted.push(p);
    else if (letter === 'A' && s.head !== null) out.created.push(p);
    else out.modified.push(p);
  }
  if (out.created.length > 0 && out.deleted.length > 0) {
    const oldBlobs =
      s.head === null
        ? new Map<string, string>()
        : await gitBlobs(
            top,
            s.head,
            out.deleted.filter((p) => !s.dirty.get(p)?.hash),
          );
    const newHashes = new Map<string, string>();
    for (const c of out.created.slice(0, MAX_HASHED)) {
      const st = afterStats.get(c);
      const h = st ? await blobHash(join(top, c), st.size) : undefined;
      if (h) newHashes.set(c, h);
    }
    pairRenames(out, (p, side) => (side === 'old' ? (s.dirty.get(p)?.hash ?? oldBlobs.get(p)) : newHashes.get(p)));
  }
  return out;
}

function errText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
}

/** Paths relative to `top` re-expressed relative to `root`; paths outside it (another part of the repository) are left out. */
function rebase(e: FileEffects, top: string, root: string): FileEffects {
  const map = (p: string): string | undefined => {
    const rel = toPosix(relative(root, join(top, p)));
    return rel.startsWith('../') || rel === '..' ? undefined : rel;
  };
  const list = (xs: readonly string[]): string[] => xs.flatMap((p) => map(p) ?? []);
  const renamed = e.renamed.flatMap((r) => {
    const from = map(r.from);
    const to = map(r.to);
    return from !== undefined && to !== undefined ? [{ from, to }] : [];
  });
  return {
    created: list(e.created),
    modified: list(e.modified),
    deleted: list(e.deleted),
    renamed,
    ...(e.unknown === undefined ? {} : { unknown: e.unknown }),
  };
}

/**
 * Takes the "before" snapshot of `root` (a real path). In a git work tree: HEAD plus the status and stats of
 * every uncommitted path, so the cost follows the size of the change, not of the repository. Outside git: a
 * stat of every file, up to MAX_SCAN_ENTRIES. Never rejects: a probe that cannot measure reports why.
 */
export async function startEffectProbe(root: string): Promise<EffectProbe> {
  let snap: Snapshot;
  try {
    snap = await snapshot(root);
  } catch (err) {
    snap = { kind: 'unknown', reason: `could not snapshot the workspace: ${errText(err)}` };
  }
  return {
    async finish(): Promise<FileEffects> {
      try {
        if (snap.kind === 'unknown') return empty(snap.reason);
        if (snap.kind === 'walk') return await diffWalk(root, snap.files);
        return rebase(await diffGit(snap), snap.top, root);
      } catch (err) {
        const gone = !(await dirExists(root));
        return empty(gone ? 'the workspace folder no longer exists' : `could not measure: ${errText(err)}`);
      }
    },
  };
}

async function dirExists(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}
