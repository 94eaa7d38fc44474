// Small file-system facts the effect probe compares: stat triples, git-compatible blob hashes, and a bounded tree walk.
import { createHash } from 'node:crypto';
import { lstat, readFile, readdir } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/** The stat of a path, or undefined when it does not exist (or cannot be read). */
export async function statOf(abs: string): Promise<FileStat | undefined> {
  try {
    const st = await lstat(abs);
    return st.isDirectory() ? undefined : { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  } catch {
    return undefined;
  }
}

export function sameStat(a: FileStat, b: FileStat): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** Files above this are not hashed for rename detection: reading them would cost more than the command. */
const MAX_HASH_BYTES = 1024 * 1024;

/** The id git gives this content (sha1 of "blob <size>\0" + bytes), so it compares with `git ls-tree` output. */
export async function blobHash(abs: string, size: number): Promise<string | undefined> {
  if (size > MAX_HASH_BYTES) return undefined;
  try {
    const bytes = await readFile(abs);
    return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  } catch {
    return undefined;
  }
}

export interface WalkResult {
  /** Relative path (forward slashes) → stat. */
  readonly files: Map<string, FileStat>;
  /** Set when the walk stopped at the cap: the tree is larger than we measure. */
  readonly overflow: boolean;
  /** Folders that could not be read (permissions). */
  readonly unreadable: number;
}

/** Every file under `root` except `.git`, breadth first, stopping after `maxEntries` directory entries. */
export async function walkTree(root: string, maxEntries: number): Promise<WalkResult> {
  const files = new Map<string, FileStat>();
  let seen = 0;
  let unreadable = 0;
  const queue: string[] = [''];
  while (queue.length > 0) {
    const rel = queue.shift() ?? '';
    let names: Dirent[];
    try {
      names = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      if (rel === '') throw new Error('the workspace folder cannot be read or no longer exists');
      unreadable++;
      continue;
    }
    seen += names.length;
    if (seen > maxEntries) return { files, overflow: true, unreadable };
    const leaves: string[] = [];
    for (const d of names) {
      const child = rel === '' ? d.name : `${rel}/${d.name}`;
      if (!d.isDirectory()) leaves.push(child);
      else if (d.name !== '.git') queue.push(child);
    }
    // One folder's stats in parallel: the walk is bound by syscalls, not by CPU.
    const stats = await Promise.all(leaves.map((c) => statOf(join(root, c))));
    leaves.forEach((c, i) => {
      const st = stats[i];
      if (st) files.set(c, st);
    });
  }
  return { files, overflow: false, unreadable };
}
