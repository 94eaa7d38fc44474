// Writes and deletes of a restore, confined to a workspace root at the moment they happen: no folder on the way may be a link or lead out.
import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, realpath, rename, rm, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { errCode } from '../fsUtil.js';

/** A path a restore must not touch, with the reason in the user's words. */
export class ConfinementError extends Error {
  override readonly name = 'ConfinementError';
}

/** `path`'s parts below `root` ('/'-separated names), or undefined when it is not strictly inside. */
export function partsBelow(root: string, path: string): string[] | undefined {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
  const parts = rel.split(sep);
  return parts.every((p) => p !== '' && p !== '.' && p !== '..') ? parts : undefined;
}

/**
 * Checks every folder from `root` down to the file's parent: each must be a real folder (not a symbolic link, not
 * a file), and the parent's real path must be exactly where the names say, inside the root. Missing folders are
 * created one at a time with `create` (each checked after it is made); without it, a missing folder ends the walk.
 * Returns the verified parent folder, or undefined when a folder is missing and not created.
 */
export async function checkedParent(root: string, path: string, create: boolean): Promise<string | undefined> {
  const parts = partsBelow(root, path);
  if (parts === undefined) throw new ConfinementError('is outside the workspace folders');
  if ((await realpath(root).catch(() => undefined)) !== root) throw new ConfinementError(`its workspace folder ${root} is missing or is now a link`);
  let dir = root;
  for (const name of parts.slice(0, -1)) {
    dir = join(dir, name);
    let st = await lstat(dir).catch((err: unknown) => (errCode(err) === 'ENOENT' ? undefined : Promise.reject(err)));
    if (st === undefined) {
      if (!create) return undefined;
      await mkdir(dir).catch((err: unknown) => (errCode(err) === 'EEXIST' ? undefined : Promise.reject(err)));
      st = await lstat(dir);
    }
    if (st.isSymbolicLink()) throw new ConfinementError(`the folder ${relative(root, dir)} on its path is now a symbolic link; Capsule does not follow it`);
    if (!st.isDirectory()) throw new ConfinementError(`${relative(root, dir)} on its path is not a folder any more`);
  }
  // The names were checked one by one; the real path closes the gap a rename of a folder above could open.
  if ((await realpath(dir)) !== dir) throw new ConfinementError(`the folder ${relative(root, dir) || '.'} is no longer where it was (a link on its path)`);
  return dir;
}

/** What is at `path` now, without following a link there. */
async function kindAt(path: string): Promise<'absent' | 'file' | 'other'> {
  const st = await lstat(path).catch((err: unknown) => (errCode(err) === 'ENOENT' ? undefined : Promise.reject(err)));
  return st === undefined ? 'absent' : st.isFile() ? 'file' : 'other';
}

/**
 * Writes `bytes` to `path` inside `root`: a temp file created exclusively in the verified parent folder, then the
 * folder is verified again and the temp file renamed over the name (rename replaces a name; it never follows a link).
 */
export async function writeConfined(root: string, path: string, bytes: Uint8Array): Promise<void> {
  const parent = await checkedParent(root, path, true);
  if (parent === undefined) throw new ConfinementError('its folder could not be made');
  const now = await kindAt(path);
  if (now === 'other') throw new ConfinementError('is now a folder or a link, not a file; left as it is');
  const mode = now === 'file' ? (await lstat(path)).mode & 0o7777 : undefined;
  const tmp = join(parent, `.${path.slice(parent.length + 1)}.${randomBytes(4).toString('hex')}.capsule-tmp`);
  // O_EXCL | O_NOFOLLOW: a name someone planted (a link) is never written through.
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  try {
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    // A file that was there keeps its mode; a new one gets the usual one (0666 less the umask).
    if (mode !== undefined) await chmod(tmp, mode);
    if ((await checkedParent(root, path, false)) !== parent) throw new ConfinementError('its folder changed while it was written');
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Deletes the file at `path` inside `root`; a link or folder there is left alone. True when a file was removed. */
export async function deleteConfined(root: string, path: string): Promise<boolean> {
  const parent = await checkedParent(root, path, false);
  if (parent === undefined) return false;
  const now = await kindAt(path);
  if (now === 'absent') return false;
  if (now === 'other') throw new ConfinementError('is now a folder or a link, not a file; left as it is');
  // unlink removes the name; it never follows a link, so nothing outside the folder can go.
  await unlink(path).catch((err: unknown) => (errCode(err) === 'ENOENT' ? undefined : Promise.reject(err)));
  return true;
}
