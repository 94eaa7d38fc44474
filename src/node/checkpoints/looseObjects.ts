// Git's loose object format (zlib of "blob <size>\0" + bytes, named by its sha1): how both stores keep contents, readable by git and by Node alone.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflate, deflateSync, inflate } from 'node:zlib';
import { errCode } from '../fsUtil.js';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/** A content id as git names a blob: 40 hex digits. */
export const BLOB_ID = /^[0-9a-f]{40}$/;

export function blobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}

export function loosePath(objectsDir: string, id: string): string {
  return join(objectsDir, id.slice(0, 2), id.slice(2));
}

/**
 * Contents up to this size are stored (and, in the checkpoints, read) with synchronous calls: a small file takes
 * microseconds that way, while each of the seven or so thread-pool round trips of the asynchronous path waits its turn
 * behind every other job on a loaded machine.
 */
export const SYNC_IO_MAX = 64 * 1024;

/** writeLoose for small contents, without the thread pool (see SYNC_IO_MAX). */
function writeLooseSync(objectsDir: string, bytes: Uint8Array): { readonly id: string; readonly written: number } {
  const id = blobId(bytes);
  const target = loosePath(objectsDir, id);
  if (existsSync(target)) return { id, written: 0 };
  const packed = deflateSync(Buffer.concat([Buffer.from(`blob ${bytes.byteLength}\0`), bytes]), { level: 1 });
  mkdirSync(join(objectsDir, id.slice(0, 2)), { recursive: true });
  const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, packed);
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return { id, written: packed.byteLength };
}

/** Stores the bytes once (by id); returns the id and how many bytes were written (0 when it was there). */
export async function writeLoose(objectsDir: string, bytes: Uint8Array): Promise<{ readonly id: string; readonly written: number }> {
  if (bytes.byteLength <= SYNC_IO_MAX) return writeLooseSync(objectsDir, bytes);
  const id = blobId(bytes);
  const target = loosePath(objectsDir, id);
  if (
    await stat(target).then(
      () => true,
      () => false,
    )
  )
    return { id, written: 0 };
  const packed = await deflateAsync(Buffer.concat([Buffer.from(`blob ${bytes.byteLength}\0`), bytes]), { level: 1 });
  await mkdir(join(objectsDir, id.slice(0, 2)), { recursive: true });
  // Temp file + rename: a crash leaves either no object or a whole one, never a half one under a valid name.
  const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, packed);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { id, written: packed.byteLength };
}

/** The bytes of a loose blob; undefined when it is not there or is damaged (its content no longer matches its name). */
export async function readLoose(objectsDir: string, id: string): Promise<Uint8Array | undefined> {
  if (!BLOB_ID.test(id)) return undefined;
  let raw: Buffer;
  try {
    raw = await readFile(loosePath(objectsDir, id));
  } catch (err) {
    if (errCode(err) === 'ENOENT' || errCode(err) === 'EISDIR' || errCode(err) === 'ENOTDIR') return undefined;
    throw err;
  }
  try {
    const whole = await inflateAsync(raw);
    const nul = whole.indexOf(0);
    const header = whole.subarray(0, nul).toString('latin1');
    const body = whole.subarray(nul + 1);
    if (nul < 0 || header !== `blob ${body.byteLength}` || blobId(body) !== id) return undefined;
    return body;
  } catch {
    return undefined;
  }
}
