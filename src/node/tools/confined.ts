// Race-free confinement: open first, then check where the opened descriptor really is, and work through that descriptor.
import { constants } from 'node:fs';
import type { Dirent } from 'node:fs';
import { open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import { isInside, realRoots } from './paths.js';
import { ToolError, errnoCode } from './types.js';

/** Linux names every open descriptor's real path here; elsewhere the check-then-open of paths.ts is all there is. */
const FD_LINKS = process.platform === 'linux';

function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

const SWAPPED = (display: string): ToolError =>
  new ToolError(`Access denied: "${display}" changed while it was being opened (a folder on its path was replaced by a link to outside the workspace).`);

/** Throws (closing the handle) unless the opened descriptor lies inside a workspace root. */
async function requireInside(handle: FileHandle, roots: readonly string[], display: string): Promise<FileHandle> {
  if (!FD_LINKS) return handle;
  try {
    const real = await readlink(fdPath(handle));
    const reals = await realRoots(roots);
    if (!reals.some((r) => isInside(r, real))) throw SWAPPED(display);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Opens a resolved workspace file for reading and proves, on the open descriptor, that it is inside the workspace:
 * whatever was swapped between the path check and the open, what is read is what was checked. O_NOFOLLOW refuses a
 * link swapped in for the file itself (the resolved path never ends in one), O_NONBLOCK keeps a FIFO from blocking.
 */
export async function openConfinedForReading(roots: readonly string[], real: string, display: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    if (errnoCode(err) === 'ELOOP') throw SWAPPED(display);
    throw err;
  }
  return requireInside(handle, roots, display);
}

/**
 * Opens the folder a write goes into and proves it is inside the workspace. The caller then names files through
 * `inFolder()`, which resolves against this descriptor, so a folder swapped for a link afterwards changes nothing.
 */
export async function openConfinedFolder(roots: readonly string[], dir: string, display: string): Promise<ConfinedFolder> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  await requireInside(handle, roots, display);
  return {
    inFolder: (name: string) => (FD_LINKS ? `${fdPath(handle)}/${name}` : `${dir}/${name}`),
    close: () => handle.close(),
  };
}

/**
 * The entries of a workspace folder, read through a descriptor proven to be inside the workspace: a folder swapped
 * for a link while a listing walks is refused (O_NOFOLLOW) or caught by the check, never listed.
 */
export async function readdirConfined(roots: readonly string[], dir: string, display: string): Promise<Dirent[]> {
  if (!FD_LINKS) return readdir(dir, { withFileTypes: true });
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    if (errnoCode(err) === 'ELOOP' || errnoCode(err) === 'ENOTDIR') throw SWAPPED(display);
    throw err;
  }
  await requireInside(handle, roots, display);
  try {
    return await readdir(fdPath(handle), { withFileTypes: true });
  } finally {
    await handle.close();
  }
}

export interface ConfinedFolder {
  /** A path for `name` inside the opened folder that cannot be redirected by a later swap. */
  inFolder(name: string): string;
  close(): Promise<void>;
}
