// A bounded walk of the workspace folders (stat only): what a command may have changed is found by comparing two walks.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Folders never walked: version control, dependency and build caches; restoring them is not Capsule's job. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.cache',
  'dist',
  'out',
  'build',
  'target',
  '.next',
  '.capsule',
]);

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ScanLimits {
  /** Most files one walk records; beyond it the walk is marked incomplete. */
  readonly maxFiles: number;
  /** Folders and files never walked (the snapshot store and the session's files when they lie inside the workspace). */
  readonly skip?: readonly string[];
}

export interface Scan {
  readonly files: ReadonlyMap<string, FileStat>;
  /** The walk stopped at maxFiles: changes beyond it are not seen. */
  readonly complete: boolean;
}

export async function scanWorkspace(roots: readonly string[], limits: ScanLimits): Promise<Scan> {
  const files = new Map<string, FileStat>();
  const skip = new Set(limits.skip ?? []);
  const stack = [...roots];
  let complete = true;
  while (stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of names) {
      const p = join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIPPED_DIRS.has(d.name) && !skip.has(p)) stack.push(p);
        continue;
      }
      // Symlinks are neither followed nor restored: the tools confine writes to real paths, and a link's target is someone else's file.
      if (!d.isFile() || skip.has(p) || d.name.endsWith('.capsule-tmp')) continue;
      if (files.size >= limits.maxFiles) {
        complete = false;
        continue;
      }
      const st = await lstat(p).catch(() => undefined);
      if (st !== undefined) files.set(p, { size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return { files, complete };
}

/** Paths created, deleted or changed (size or mtime) between two walks. */
export function changedPaths(before: Scan, after: Scan): string[] {
  const out: string[] = [];
  for (const [p, a] of after.files) {
    const b = before.files.get(p);
    if (b === undefined || b.size !== a.size || b.mtimeMs !== a.mtimeMs) out.push(p);
  }
  for (const p of before.files.keys()) if (!after.files.has(p)) out.push(p);
  return out;
}
