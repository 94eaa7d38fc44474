// list_files: a sorted, capped listing of a workspace folder; never descends into .git, node_modules or through symlinks.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolResult } from '../../engine/ports.js';
import { parseToolArgs } from './toolArgs.js';
import { readdirConfined } from './confined.js';
import { displayPath, realRoots, resolveWorkspacePath } from './paths.js';
import { TOOL_NAMES, listFilesArgs, listFilesHints } from './schemas.js';
import { ToolError, toolOk } from './types.js';
import type { ToolContext } from './types.js';

/** Folders listed but never expanded: huge, and rarely what the model is looking for. */
const SKIPPED_DIRS: readonly string[] = ['.git', 'node_modules'];

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Walk {
  /** The folder the listing started in. */
  readonly top: string;
  readonly out: string[];
  readonly max: number;
  readonly skipped: Set<string>;
  full: boolean;
}

async function isDirThroughLink(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

async function walk(w: Walk, dir: string, roots: readonly string[], recursive: boolean, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new ToolError('Cancelled.');
  const entries = await readdirConfined(roots, dir, displayPath(roots, dir)).catch((err: unknown) => {
    // The top folder must be listable; a subfolder that vanished or was swapped mid-walk is just left out.
    if (dir === w.top) throw err;
    return [];
  });
  entries.sort((a, b) => byCodeUnit(a.name, b.name));
  for (const e of entries) {
    if (w.out.length >= w.max) {
      w.full = true;
      return;
    }
    const p = join(dir, e.name);
    // Symlinks are shown, never followed: following could leave the workspace or loop forever.
    const isDir = e.isDirectory() || (e.isSymbolicLink() && (await isDirThroughLink(p)));
    w.out.push(displayPath(roots, p) + (isDir ? '/' : ''));
    if (!isDir || !recursive || e.isSymbolicLink()) continue;
    if (SKIPPED_DIRS.includes(e.name)) {
      w.skipped.add(e.name);
      continue;
    }
    await walk(w, p, roots, recursive, signal);
    if (w.full) return;
  }
}

export async function listFilesTool(ctx: ToolContext, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
  const { limits } = ctx;
  const args = parseToolArgs(TOOL_NAMES.listFiles, argsJson, listFilesArgs(limits), listFilesHints(limits));
  const target = await resolveWorkspacePath(ctx.roots, args.path ?? '.');
  if (!target.exists) throw new ToolError(`Folder not found: "${target.display}". List its parent folder to see what exists.`);
  if (!(await stat(target.real)).isDirectory()) {
    throw new ToolError(`"${target.display}" is a file, not a folder; use read_file to read it.`);
  }
  const max = args.maxEntries ?? limits.listDefaultEntries;
  const w: Walk = { top: target.real, out: [], max, skipped: new Set(), full: false };
  await walk(w, target.real, await realRoots(ctx.roots), args.recursive ?? false, signal);
  if (w.out.length === 0) return toolOk(`(empty folder: "${target.display}" has no entries)`);
  const lines = [...w.out];
  if (w.skipped.size > 0) {
    lines.push(`[Not expanded: ${[...w.skipped].sort(byCodeUnit).join(', ')}; list such a folder by its path to see inside.]`);
  }
  if (w.full) {
    const raise = max < limits.listMaxEntries ? `, or pass a larger maxEntries (at most ${limits.listMaxEntries})` : '';
    lines.push(`[Stopped at ${max} entries; there are more. List a subfolder${raise}.]`);
  }
  return toolOk(lines.join('\n'));
}
