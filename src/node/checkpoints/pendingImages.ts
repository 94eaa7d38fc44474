// Checkpoints without git: when every path the watcher saw change is a file the shadow index tracks, their contents are kept as pending states in-process (before a command), and what the command changed is found the same way (after it).
import { type Stats, lstatSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { SYNC_IO_MAX, writeLoose } from './looseObjects.js';
import type { StoreBudget } from './checkpointTypes.js';

const toPosix = (p: string): string => p.split(sep).join('/');

/** A path's own stat (undefined: gone); synchronous, like the small reads (see SYNC_IO_MAX). */
function lstatOrUndefined(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}

function readSmall(abs: string): Buffer | undefined {
  try {
    return readFileSync(abs);
  } catch {
    return undefined;
  }
}

export interface PendingRead {
  readonly workTree: string;
  readonly objectsDir: string;
  /** Paths (relative to the work tree) the shadow index tracks as files, with the content id the index holds for each. */
  readonly tracked: ReadonlyMap<string, string>;
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
    const st = lstatOrUndefined(abs);
    if (st === undefined) {
      if (o.tracked.has(rel) || pending.has(rel)) {
        out.set(rel, null);
        continue;
      }
      // Gone and never known (an editor's or sed's temp file): nothing to keep, unless it was a folder of known files.
      const under = `${rel}/`;
      if ([...o.tracked.keys(), ...pending.keys()].some((k) => k.startsWith(under))) return undefined;
      continue;
    }
    if (!o.tracked.has(rel) || !st.isFile() || st.size > o.maxFileBytes) return undefined;
    const bytes = st.size <= SYNC_IO_MAX ? readSmall(abs) : await readFile(abs).catch(() => undefined);
    if (bytes === undefined || !o.budget.take(bytes.byteLength)) return undefined;
    out.set(rel, (await writeLoose(o.objectsDir, bytes)).id);
    if (new Set([...pending.keys(), ...out.keys()]).size > o.max) return undefined;
  }
  return out;
}

/** One change found without git: the path (relative to the work tree) and its states. */
export interface PendingChange {
  readonly rel: string;
  readonly before: string | null;
  readonly after: string | null;
}

/**
 * What a command changed in `paths` (absolute), without git, or undefined when git must look (see readPending for
 * which paths qualify). A path's state before is its pending state (a pre-image read before the command, or what an
 * earlier command left), else the id the index holds; its state now is read and kept, and becomes its pending state.
 * Pending paths the watcher did not see change still hold their pending state: the command did not touch them.
 */
export async function changesWithoutGit(o: PendingRead, paths: readonly string[], pending: Map<string, string | null>): Promise<PendingChange[] | undefined> {
  const read = await readPending(o, paths, pending);
  if (read === undefined) return undefined;
  const out: PendingChange[] = [];
  for (const [rel, after] of read) {
    const was = pending.get(rel);
    const before = was !== undefined ? was : (o.tracked.get(rel) ?? null);
    if (before !== after) out.push({ rel, before, after });
  }
  for (const [rel, after] of read) pending.set(rel, after);
  return out;
}
