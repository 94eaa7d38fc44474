// Workspace files the user names (an `@` attachment, a path in an answer): checked with the tools' confinement, for the user's eyes rather than the model's.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { openConfinedForReading } from './confined.js';
import { isInside, resolveWorkspacePath } from './paths.js';
import { ToolError } from './types.js';

/** Git's test, as read_file applies it: a NUL byte in the first 8 KB means binary. */
const SNIFF_BYTES = 8 * 1024;

export type FileCheck = { readonly ok: true; readonly real: string; readonly display: string } | { readonly ok: false; readonly message: string };

/** Why `path` cannot be attached or opened, in words for the user; ok with its real path when it is a text file inside the workspace. */
export async function checkWorkspaceFile(roots: readonly string[], path: string, opts: { readonly text?: boolean } = {}): Promise<FileCheck> {
  let target: Awaited<ReturnType<typeof resolveWorkspacePath>>;
  try {
    target = await resolveWorkspacePath(roots, path);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    if (err.message.includes('outside the workspace') || err.message.includes('symbolic link'))
      return { ok: false, message: `"${path}" is outside the workspace; only files inside the open folder can be used.` };
    return { ok: false, message: err.message };
  }
  if (!target.exists) return { ok: false, message: `"${path}" does not exist in the workspace.` };
  // Opened like the read tool opens (non-blocking, proven inside the workspace on the descriptor): a FIFO must not hang the chat.
  type Opened = { readonly refused?: string; readonly isFile: boolean; readonly isDir: boolean; readonly binary: boolean };
  const st = await openConfinedForReading(roots, target.real, target.display).then(
    async (h): Promise<Opened> => {
      try {
        const s = await h.stat();
        if (!s.isFile() || opts.text !== true) return { isFile: s.isFile(), isDir: s.isDirectory(), binary: false };
        const buf = Buffer.alloc(SNIFF_BYTES);
        const { bytesRead } = await h.read(buf, 0, SNIFF_BYTES, 0);
        return { isFile: true, isDir: false, binary: buf.subarray(0, bytesRead).includes(0) };
      } finally {
        await h.close();
      }
    },
    (err: unknown): Opened => {
      if (err instanceof ToolError) return { refused: err.message, isFile: false, isDir: false, binary: false };
      return { isFile: false, isDir: lstatSync(target.real, { throwIfNoEntry: false })?.isDirectory() ?? false, binary: false };
    },
  );
  if (st.refused !== undefined) return { ok: false, message: st.refused };
  if (st.isDir) return { ok: false, message: `"${target.display}" is a folder; attach the files in it one by one.` };
  if (!st.isFile) return { ok: false, message: `"${target.display}" is not a regular file.` };
  if (st.binary) return { ok: false, message: `"${target.display}" looks like a binary file; only text files can be attached.` };
  return { ok: true, real: target.real, display: target.display };
}

/**
 * The candidates (as written) that name an existing file inside a workspace root; synchronous and cheap (a stat and
 * a realpath each), for building chat items. A symlink that leads out of the workspace is not a link.
 */
export function existingWorkspaceFiles(roots: readonly string[], candidates: readonly string[]): string[] {
  const first = roots[0];
  if (first === undefined || candidates.length === 0) return [];
  const reals = roots.map((r) => {
    try {
      return realpathSync(r);
    } catch {
      return undefined;
    }
  });
  const out: string[] = [];
  for (const c of candidates) {
    const abs = isAbsolute(c) ? resolve(c) : resolve(first, c.replace(/\\/g, '/'));
    if (!statSync(abs, { throwIfNoEntry: false })?.isFile()) continue;
    try {
      const real = realpathSync(abs);
      if (reals.some((r) => r !== undefined && isInside(r, real))) out.push(c);
    } catch {
      // vanished between the two calls: not a link
    }
  }
  return out;
}
