// Confines tool paths to the workspace: resolve against the first root, follow symlinks to the real path, require it inside a root's real path.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError, errnoCode } from './types.js';

/** Linux gives up after 40 links; so do we, for dangling chains that realpath cannot follow. */
const MAX_LINK_DEPTH = 40;

export interface ResolvedPath {
  /** Absolute real path (symlinks followed); for a path that does not exist yet, its real parent plus the rest. */
  readonly real: string;
  readonly exists: boolean;
  /** The path as tools show it: relative to the first root, or absolute in another root. */
  readonly display: string;
}

/** True when `p` is `root` or below it. A path check, not a string-prefix check: `/ws-evil` is not inside `/ws`. */
export function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real paths of the workspace roots, in order; roots that no longer exist are left out. */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) {
    try {
      out.push(await realpath(resolve(r)));
    } catch {
      // A removed workspace folder simply stops being a place tools may touch.
    }
  }
  return out;
}

/** How tools print a real path: relative to the first root (which is how relative arguments resolve). */
export function displayPath(roots: readonly string[], real: string): string {
  const first = roots[0];
  if (first !== undefined && isInside(first, real)) return relative(first, real) || '.';
  return real;
}

/**
 * The real path of `abs`, following symlinks even when their target (or the path itself) does not
 * exist yet: a dangling link must not be treated as a fresh name inside the workspace, because
 * writing through it would create its target wherever it points.
 */
async function lenientRealPath(abs: string, depth: number): Promise<{ real: string; exists: boolean }> {
  if (depth > MAX_LINK_DEPTH) throw new ToolError('Too many levels of symbolic links.');
  try {
    return { real: await realpath(abs), exists: true };
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ELOOP') throw new ToolError('Too many levels of symbolic links.');
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  const st = await lstat(abs).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    const target = await readlink(abs);
    const next = await lenientRealPath(resolve(dirname(abs), target), depth + 1);
    return { real: next.real, exists: false };
  }
  const parent = dirname(abs);
  if (parent === abs) return { real: abs, exists: false };
  const p = await lenientRealPath(parent, depth);
  return { real: join(p.real, basename(abs)), exists: false };
}

/**
 * Resolves a path argument for a tool. Relative paths are taken from the first root. Throws a
 * ToolError with a message for the model when the path is empty or lies outside every root.
 */
export async function resolveWorkspacePath(roots: readonly string[], input: string): Promise<ResolvedPath> {
  const text = input.trim();
  if (text === '') throw new ToolError('The path is empty. Give a path relative to the workspace root, e.g. "src/index.ts" (or "." for the root).');
  if (text.includes('\0')) throw new ToolError('The path contains a NUL character.');
  const first = roots[0];
  if (first === undefined) throw new ToolError('No workspace folder is open, so no files can be accessed.');
  const reals = await realRoots(roots);
  if (reals.length === 0) throw new ToolError('The workspace folder no longer exists.');
  const abs = resolve(first, text);
  const { real, exists } = await lenientRealPath(abs, 0);
  if (reals.some((r) => isInside(r, real))) return { real, exists, display: displayPath(reals, real) };
  const lexicallyInside = roots.some((r) => isInside(resolve(r), abs)) || reals.some((r) => isInside(r, abs));
  if (lexicallyInside) {
    throw new ToolError(
      `Access denied: "${text}" goes through a symbolic link to a location outside the workspace. Tools only work on files inside the workspace.`,
    );
  }
  throw new ToolError(
    `Access denied: "${text}" is outside the workspace. Use a path inside the workspace, relative to its root (e.g. "src/index.ts"); "../" and absolute paths outside it are refused.`,
  );
}
