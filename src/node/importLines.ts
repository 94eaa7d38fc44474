// Reads a transcript file as lines, one string per line and never the whole file, and indexes where tool results may be (for pairing results that come late).
import type { FileHandle } from 'node:fs/promises';
import { cutLine, LINE_NEEDLES, Needles, type CutLine } from './importPassThrough.js';

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface TextLine extends CutLine {
  /** 1-based line number. */
  readonly n: number;
  /** Byte offset just past the line's last byte. */
  readonly end: number;
}

/**
 * The lines of the file, a chunk's worth at a time. Each line is decoded once, straight from the read buffer (a
 * line that spans chunks is joined from its pieces first); nothing else of the file is kept. `cut`: each line is
 * read as a Claude Code line (importPassThrough.ts: `toolUseResult` left out, long tool results kept as bytes);
 * otherwise `text` is the line without its '\n' (a '\r' before it stays; callers trim).
 */
export async function* lineBatches(handle: FileHandle, cut = false): AsyncGenerator<readonly TextLine[]> {
  // Two buffers, so the next chunk is read while the lines of this one are converted. Kept strings are views of a
  // chunk, so when lines are cut each read takes a new buffer; the old one goes once its strings are written.
  const fresh = (): Buffer => Buffer.allocUnsafeSlow(CHUNK_BYTES);
  let chunk = fresh();
  let spare = fresh();
  let pieces: Buffer[] = [];
  let n = 1;
  let pos = 0;
  let reading = handle.read(chunk, 0, CHUNK_BYTES, 0);
  try {
    for (;;) {
      const { bytesRead } = await reading;
      if (bytesRead === 0) break;
      const base = pos;
      pos += bytesRead;
      reading = handle.read(spare, 0, CHUNK_BYTES, pos);
      const batch: TextLine[] = [];
      let start = 0;
      const needles = cut ? new Needles(chunk, LINE_NEEDLES) : undefined;
      for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < bytesRead; nl = chunk.indexOf(NEWLINE, start)) {
        let line: CutLine;
        if (pieces.length === 0) line = cutLine(chunk, start, nl, needles);
        else {
          pieces.push(chunk.subarray(start, nl));
          const joined = Buffer.concat(pieces);
          line = cutLine(joined, 0, joined.length, cut ? new Needles(joined, LINE_NEEDLES) : undefined);
          pieces = [];
        }
        batch.push({ n: n++, text: line.text, whole: line.whole, json: line.json, end: base + nl });
        start = nl + 1;
      }
      // The start of a line the next chunk ends: copied, since the chunk is reused.
      if (start < bytesRead) pieces.push(Buffer.from(chunk.subarray(start, bytesRead)));
      [chunk, spare] = cut ? [spare, fresh()] : [spare, chunk];
      if (batch.length > 0) yield batch;
    }
  } finally {
    // A reader that stopped early (an error in the caller) still lets the read in flight finish before the file closes.
    await reading.catch(() => undefined);
  }
  if (pieces.length > 0) {
    const joined = Buffer.concat(pieces);
    const line = cutLine(joined, 0, joined.length, cut ? new Needles(joined, LINE_NEEDLES) : undefined);
    yield [{ n, text: line.text, whole: line.whole, json: line.json, end: pos }];
  }
}

const KEY = Buffer.from('"tool_use_id"');
/** The key's end, searched for first: far rarer a byte to start on than the quote (a JSON line is full of them). */
const KEY_TAIL = Buffer.from('_id"');
const TAIL_AT = KEY.length - KEY_TAIL.length;

/** Where the next whole key starts in `buf` at or after `from`, or -1. */
function keyAt(buf: Buffer, from: number): number {
  for (let p = buf.indexOf(KEY_TAIL, from + TAIL_AT); p !== -1; p = buf.indexOf(KEY_TAIL, p + 1)) {
    const k = p - TAIL_AT;
    if (k >= from && buf.compare(KEY, 0, TAIL_AT, k, p) === 0) return k;
  }
  return -1;
}
/** Room for a cut key and its id; a longer cut (an id this long) is joined instead. */
const CARRY_ROOM = 64 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/**
 * The id after a `"tool_use_id"` key at `at` in `buf`: the id and where it ends; null when `buf` ends first (the
 * caller reads on), undefined when no string value follows (not a tool result).
 */
function idAfter(buf: Buffer, at: number): { readonly id: string; readonly next: number } | null | undefined {
  let i = at + KEY.length;
  while (isSpace(buf[i])) i++;
  if (i >= buf.length) return null;
  if (buf[i] !== 0x3a) return undefined;
  i++;
  while (isSpace(buf[i])) i++;
  if (i >= buf.length) return null;
  if (buf[i] !== QUOTE) return undefined;
  const from = i;
  let escaped = false;
  for (i = from + 1; i < buf.length; i++) {
    const b = buf[i];
    if (b === BACKSLASH) {
      escaped = true;
      i++;
    } else if (b === QUOTE) {
      const raw = buf.toString('utf8', from, i + 1);
      try {
        return { id: escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1), next: i + 1 };
      } catch {
        return undefined;
      }
    }
  }
  return null;
}

/**
 * For every id that follows a `"tool_use_id"` key anywhere in the file, the byte offset of its last occurrence. A
 * raw byte search, no parsing: it may name keys that are not tool results (an over-estimate, which only makes the
 * converter read a little further ahead). Only a key spelled with escapes would be missed.
 */
export async function resultOffsets(handle: FileHandle): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // Two buffers, so the next chunk is read while this one is searched; each has room before its chunk for the bytes
  // carried over from the one before (a key or an id cut by the chunk's end), copied there before the next read.
  let chunk = Buffer.allocUnsafe(CARRY_ROOM + CHUNK_BYTES);
  let spare = Buffer.allocUnsafe(CARRY_ROOM + CHUNK_BYTES);
  let carried: Buffer = Buffer.alloc(0);
  let pos = 0;
  let reading: Promise<{ bytesRead: number }> | undefined = handle.read(chunk, CARRY_ROOM, CHUNK_BYTES, 0);
  try {
    while (reading !== undefined) {
      const bytesRead: number = (await reading).bytesRead;
      const done = bytesRead === 0;
      let view: Buffer;
      if (carried.length <= CARRY_ROOM) {
        carried.copy(chunk, CARRY_ROOM - carried.length);
        view = chunk.subarray(CARRY_ROOM - carried.length, CARRY_ROOM + bytesRead);
      } else view = Buffer.concat([carried, chunk.subarray(CARRY_ROOM, CARRY_ROOM + bytesRead)]);
      const base = pos - carried.length;
      pos += bytesRead;
      // The spare buffer's carried bytes (if any) were copied out above, so it can take the next chunk.
      reading = done ? undefined : handle.read(spare, CARRY_ROOM, CHUNK_BYTES, pos);
      let keep = Math.max(0, view.length - KEY.length);
      for (let at = keyAt(view, 0); at !== -1; at = keyAt(view, at + 1)) {
        const r = idAfter(view, at);
        if (r === null && !done) {
          keep = at;
          break;
        }
        if (r) out.set(r.id, base + at);
      }
      carried = view.subarray(keep);
      [chunk, spare] = [spare, chunk];
    }
  } finally {
    // A search that stopped early still lets the read in flight finish before the file closes.
    await reading?.catch(() => undefined);
  }
  return out;
}
