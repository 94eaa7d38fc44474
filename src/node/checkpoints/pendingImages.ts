// The checkpoint before a command without git: when every path the watcher saw change is a file the shadow index tracks, their contents are kept as pending pre-images in-process.
import { lstat, readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { writeLoose } from './looseObjects.js';
import type { StoreBudget } from './types.js';

const toPosix = (p: string): string => p.split(sep).join('/');

export interface PendingRead {
  readonly workTree: string;
  readonly objectsDir: string;
  /** Paths (relative to the work tree) the shadow index tracks as files. */
  readonly tracked: ReadonlySet<string>;
  /** Files left out because they could not be kept (absolute): those are the scan's business. */
  readonly unkept: ReadonlySet<string>;
  readonly maxFileBytes: number;
  readonly budget: StoreBudget;
  /** Most pending pre-images after this read. */
  readonly max: number;
}

/**
 * The pre-images of `paths` (absolute), or undefined when git must look instead. Only files the index tracks
 * qualify: git reports any later change of a tracked file, and neither .gitignore, nested repositories nor links can
 * make it one git does not see. Anything else (a new or untracked file, a folder, a link, a file too large to keep, a
 * full budget) leaves the work to `git status`.
 */
export async function readPending(o: PendingRead, paths: readonly string[], pending: ReadonlyMap<string, string | null>): Promise<Map<string, string | null> | undefined> {
  const rels = paths.map((abs) => toPosix(relative(o.workTree, abs)));
  if (rels.some((rel) => !o.tracked.has(rel)) || paths.some((abs) => o.unkept.has(abs))) return undefined;
  if (new Set([...pending.keys(), ...rels]).size > o.max) return undefined;
  const out = new Map<string, string | null>();
  for (let i = 0; i < paths.length; i++) {
    const abs = paths[i] ?? '';
    const rel = rels[i] ?? '';
    const st = await lstat(abs).catch(() => undefined);
    if (st === undefined) {
      out.set(rel, null);
      continue;
    }
    if (!st.isFile() || st.size > o.maxFileBytes) return undefined;
    const bytes = await readFile(abs).catch(() => undefined);
    if (bytes === undefined || !o.budget.take(bytes.byteLength)) return undefined;
    out.set(rel, (await writeLoose(o.objectsDir, bytes)).id);
  }
  return out;
}
