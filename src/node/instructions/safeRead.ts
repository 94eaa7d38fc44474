// Reads one instruction or skill file safely: a regular file (never a FIFO or device), inside its allowed folder after links are resolved, bounded, and text.
import { lstat, realpath } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { readRegularFile } from '../regularFile.js';

/** Larger instruction files are refused with a warning, never cut: a file this size is almost always a mistake. */
const MAX_INSTRUCTION_FILE_BYTES = 512 * 1024;

export type SafeRead = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly missing: boolean; readonly why: string };

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
}

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * `allowedRoot` is the real path of the folder the file must stay in (the workspace, or the user's ~/.capsule).
 * A missing file is `missing` (no warning); everything else that is refused says why in words for a warning.
 */
export async function readInstructionFile(path: string, allowedRoot: string, maxBytes = MAX_INSTRUCTION_FILE_BYTES): Promise<SafeRead> {
  try {
    await lstat(path);
  } catch (err) {
    const code = codeOf(err);
    return { ok: false, missing: code === 'ENOENT' || code === 'ENOTDIR', why: code ?? 'unreadable' };
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return { ok: false, missing: false, why: 'it is a link to nothing' };
  }
  if (!inside(allowedRoot, real)) return { ok: false, missing: false, why: 'it links out of the workspace' };
  let bytes: Buffer;
  try {
    const st = await lstat(real);
    if (st.isFile() && st.size > maxBytes)
      return {
        ok: false,
        missing: false,
        why: `it is ${Math.round(st.size / 1024)} KB (at most ${Math.round(maxBytes / 1024)} KB are read; trim or split it)`,
      };
    bytes = await readRegularFile(real, 'instruction file');
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      missing: false,
      why: /not a regular file/.test(msg)
        ? msg.replace(/^instruction file \S+ is /, 'it is ').replace(/; refusing to read it$/, '')
        : (msg.split('\n')[0] ?? 'unreadable'),
    };
  }
  if (bytes.length > maxBytes)
    return {
      ok: false,
      missing: false,
      why: `it is ${Math.round(bytes.length / 1024)} KB (at most ${Math.round(maxBytes / 1024)} KB are read; trim or split it)`,
    };
  if (bytes.includes(0)) return { ok: false, missing: false, why: 'it is binary, not text' };
  try {
    const text = decoder.decode(bytes);
    return { ok: true, text: text.startsWith('\uFEFF') ? text.slice(1) : text };
  } catch {
    return { ok: false, missing: false, why: 'it is not UTF-8 text' };
  }
}

/** The text as the model gets it: exactly the file, without trailing blank lines (so one more newline at the end is not an edit). */
export function promptText(text: string): string {
  return text.replace(/\s+$/, '');
}
