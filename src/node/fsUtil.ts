// Small file-system helpers shared by the Node ports: error codes, one-line messages, existence, directory fsync, JSON-lines sidecars.
import { parseJsonText } from '../engine/jsonText.js';
import { open, stat } from 'node:fs/promises';
import { readRegularFile } from './regularFile.js';

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), or '' when there is none. */
export function errCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
}

/** The first line of an error's message, for one-line reports. */
export function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Makes a directory entry (a created or renamed file) durable; directories cannot be fsynced everywhere (Windows), so best effort. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const h = await open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    // The file itself was fsynced; that is the best this platform allows.
  }
}

/**
 * The lines of a JSON-lines sidecar that `parse` accepts, in order; a missing file is empty, torn or bad lines are
 * counted and skipped. The file is opened as a regular file, so a FIFO in its place is refused instead of blocking.
 */
export async function readJsonLines<T>(
  file: string,
  parse: (raw: unknown) => T | undefined,
  what = 'file',
): Promise<{ readonly items: T[]; readonly skipped: number }> {
  let text: string;
  try {
    text = (await readRegularFile(file, what)).toString('utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return { items: [], skipped: 0 };
    throw err;
  }
  const items: T[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = parseJsonText(line);
    } catch {
      skipped++;
      continue;
    }
    const item = parse(raw);
    if (item === undefined) skipped++;
    else items.push(item);
  }
  return { items, skipped };
}

/** A fresh temporary name beside `path` for an exclusive create; node:crypto is loaded by the first write, not by every command that only reads. */
export async function tempPathBeside(path: string): Promise<string> {
  const { randomBytes } = await import('node:crypto');
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}
