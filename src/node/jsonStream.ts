// Writes a JSON object to a file in bounded chunks, byte-identical to JSON.stringify, without building the whole string.
import type { FileHandle } from 'node:fs/promises';

/** Flush to the file once this much text is pending: large enough for few writes, small enough to bound memory. */
const CHUNK_CHARS = 1 << 20;

/**
 * Top-level arrays (an archive's excluded messages, megabytes at a million tokens) are written item by item;
 * everything else is stringified whole. Keys with `undefined` values are left out, as JSON.stringify does.
 */
export async function writeJsonStreamed(h: FileHandle, value: Readonly<Record<string, unknown>>): Promise<void> {
  let pending: string[] = [];
  let size = 0;
  // put() stays synchronous: only a full chunk costs a write (and an await), not every item.
  const put = (s: string): boolean => {
    pending.push(s);
    size += s.length;
    return size >= CHUNK_CHARS;
  };
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
    await h.write(text, null, 'utf8');
  };
  put('{');
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    put(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(v)) {
      if (put(JSON.stringify(v))) await flush();
      continue;
    }
    put('[');
    for (let i = 0; i < v.length; i++) if (put(`${i === 0 ? '' : ','}${JSON.stringify(v[i]) ?? 'null'}`)) await flush();
    put(']');
  }
  put('}');
  await flush();
}
