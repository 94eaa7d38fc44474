// The checkpoint before a command without git: when every path the watcher saw change is a file the shadow index tracks, their contents are kept as pending pre-images in-process.
import { lstat, readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { writeLoose } from './looseObjects.js';
import type { StoreBudget } from './checkpointTypes.js';

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
 * make it one git does not see. A path that is gone and was never known (a temp file an editor or `sed -i` renamed
 * away) needs nothing. Anything else (a new or untracked file, a folder, a link, a file too large to keep, a full
 * budget) leaves the work to `git status`.
 */
export async function readPending(
  o: PendingRead,
  paths: readonly string[],
  pending: ReadonlyMap<string, string | null>,
): Promise<Map<string, string | null> | undefined> {
  const out = new Map<string, string | null>();
  for (const abs of paths) {
    const rel = toPosix(relative(o.workTree, abs));
    if (o.unkept.has(abs)) return undefined;
    const st = await lstat(abs).catch(() => undefined);
    if (st === undefined) {
      if (o.tracked.has(rel) || pending.has(rel)) {
        out.set(rel, null);
        continue;
      }
      // Gone and never known (an editor's or sed's temp file): nothing to keep, unless it was a folder of known files.
      const under = `${rel}/`;
      if ([...o.tracked, ...pending.keys()].some((k) => k.startsWith(under))) return undefined;
      continue;
    }
    if (!o.tracked.has(rel) || !st.isFile() || st.size > o.maxFileBytes) return undefined;
    const bytes = await readFile(abs).catch(() => undefined);
    if (bytes === undefined || !o.budget.take(bytes.byteLength)) return undefined;
    out.set(rel, (await writeLoose(o.objectsDir, bytes)).id);
    if (new Set([...pending.keys(), ...out.keys()]).size > o.max) return undefined;
  }
  return out;
}
