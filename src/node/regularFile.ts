// Opens a file for reading only if it is a regular file: a FIFO, device or socket is refused at once instead of blocking forever.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** What the thing at a path is, in words a user understands. */
function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
}

/**
 * Opens `path` read-only and checks the opened file, not the name: O_NONBLOCK makes opening a FIFO return at once
 * (a plain open waits for a writer forever), and the check runs on the descriptor, so a swap after a stat cannot
 * slip a pipe in. Regular files ignore O_NONBLOCK. `flags` adds e.g. O_NOFOLLOW.
 */
export async function openRegularFile(path: string, what = 'file', flags = 0): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | flags);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotRegularFileError(`${what} ${path} is ${kindOf(st)}, not a regular file; refusing to read it`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The whole content of a regular file (see openRegularFile). */
export async function readRegularFile(path: string, what = 'file'): Promise<Buffer> {
  const handle = await openRegularFile(path, what);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Opens `path` for appending (creating it), refusing anything but a regular file: O_NONBLOCK makes opening a FIFO
 * fail at once (ENXIO without a reader) or return so the check below refuses it, where a plain open would wait for a
 * reader forever.
 */
export async function openRegularFileForAppend(path: string, what = 'file', mode = 0o666): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, mode);
  } catch (err) {
    if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'ENXIO')
      throw new NotRegularFileError(`${what} ${path} is a named pipe (FIFO), not a regular file; refusing to write it`);
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotRegularFileError(`${what} ${path} is ${kindOf(st)}, not a regular file; refusing to write it`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
