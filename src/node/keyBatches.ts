// The lines before a session's tail as the index thread reads them (docs/loading.md#indexing): per chunk, each line's place and either the keys the tree links by or its text.
import { ENTRY_KINDS, KEPT_WHOLE, KeyReader, type LineKeys } from './lineKeys.js';
import type { LineInfo, LineSink } from './lineReader.js';

/** A line's kind is sent as its index in ENTRY_KINDS; any other type is sent in `keys`. */
const KIND_CODE = new Map(ENTRY_KINDS.map((k, i) => [k, i]));

const TERMINATED = 1;
/** The line's keys were read: its id, parent and (unless a known kind) type are in `keys`. */
const KEYED = 2;
const OVERSIZED = 4;
const SUBAGENT = 8;
const MAYBE_SKILL = 16;
const PARENT_NULL = 32;
/** The parent is the id of the line before (sent once). */
const PARENT_PREV = 64;
const KIND_SHIFT = 8;
const CUSTOM_KIND = 0xff;
/** Numbers per line in `nums`: offset, length, flags. */
const PER_LINE = 3;

/**
 * One chunk's lines, as posted from the index thread: numbers, one string of keys and the texts of the lines judged
 * whole (copying one string between threads costs far less than copying thousands).
 */
export interface KeyBatch {
  readonly firstLineNo: number;
  readonly nums: Float64Array;
  /** In line order, end to end: each keyed line's id, its parent (unless null or the line before's), its type (unless a known kind). */
  readonly keys: string;
  /** The length of each string in `keys`. */
  readonly keyLengths: Int32Array;
  /** The texts of the lines judged whole, in line order. */
  readonly texts: string[];
}

/** What the index thread says when it is done (or failed). */
export type KeyEnd = { readonly done: true; readonly bytes: number; readonly lines: number } | { readonly failed: string };

/**
 * Builds the batches on the index thread: a line whose keys are read and that the compact part keeps by its keys
 * goes as keys, any other (the header, a line kept whole, one the key reader leaves, a torn one) as its text.
 */
export class BatchWriter {
  readonly #reader = new KeyReader();
  #nums: number[] = [];
  #keys: string[] = [];
  #texts: string[] = [];
  #first = 1;
  #prevId: string | undefined;

  constructor(private readonly post: (b: KeyBatch) => void) {}

  readonly sink: LineSink = {
    chunk: (buf, bytes) => {
      this.flush();
      this.#reader.chunk(buf, bytes);
    },
    line: (info, buf, start, end) => {
      const keys = info.lineNo > 1 && info.terminated ? this.#reader.read(buf, start, end) : undefined;
      if (keys !== undefined && !KEPT_WHOLE.has(keys.type)) this.#keyed(info, keys);
      else {
        this.#nums.push(info.offset, info.length, info.terminated ? TERMINATED : 0);
        this.#texts.push(buf.toString('utf8', start, end));
        this.#prevId = undefined;
      }
    },
    oversized: (info) => {
      this.#nums.push(info.offset, info.length, OVERSIZED | (info.terminated ? TERMINATED : 0));
      this.#prevId = undefined;
    },
  };

  #keyed(info: LineInfo, keys: LineKeys): void {
    const code = KIND_CODE.get(keys.type) ?? CUSTOM_KIND;
    let flags = TERMINATED | KEYED | (code << KIND_SHIFT) | (keys.subagent ? SUBAGENT : 0) | (keys.maybeSkill ? MAYBE_SKILL : 0);
    this.#keys.push(keys.id);
    if (keys.parentId === null) flags |= PARENT_NULL;
    else if (keys.parentId === this.#prevId) flags |= PARENT_PREV;
    else this.#keys.push(keys.parentId);
    if (code === CUSTOM_KIND) this.#keys.push(keys.type);
    this.#nums.push(info.offset, info.length, flags);
    this.#prevId = keys.id;
  }

  /** Posts the lines gathered so far. */
  flush(): void {
    const n = this.#nums.length / PER_LINE;
    if (n === 0) return;
    this.post({
      firstLineNo: this.#first,
      nums: Float64Array.from(this.#nums),
      keys: this.#keys.join(''),
      keyLengths: Int32Array.from(this.#keys, (k) => k.length),
      texts: this.#texts,
    });
    this.#first += n;
    this.#nums = [];
    this.#keys = [];
    this.#texts = [];
  }
}

/** Where the batches go on the main thread: the load builder's two ways in. */
export interface BatchReader {
  /** A line the compact part keeps by its keys. */
  keyed(info: LineInfo, keys: LineKeys): void;
  /** A line judged from its text. */
  text(info: LineInfo, text: string): void;
  oversized(info: LineInfo): void;
}

/** Hands one batch's lines, in order, to `to`. `prev` carries the last id across batches; returns it. */
export function readBatch(b: KeyBatch, to: BatchReader, prev: string | undefined): string | undefined {
  let k = 0;
  let at = 0;
  let t = 0;
  const key = (): string => {
    const len = b.keyLengths[k++] ?? 0;
    at += len;
    return b.keys.slice(at - len, at);
  };
  let prevId = prev;
  for (let i = 0, lineNo = b.firstLineNo; i < b.nums.length; i += PER_LINE, lineNo++) {
    const flags = b.nums[i + 2] ?? 0;
    const info: LineInfo = { lineNo, offset: b.nums[i] ?? 0, length: b.nums[i + 1] ?? 0, terminated: (flags & TERMINATED) !== 0 };
    if ((flags & OVERSIZED) !== 0) {
      to.oversized(info);
      prevId = undefined;
    } else if ((flags & KEYED) === 0) {
      to.text(info, b.texts[t++] ?? '');
      prevId = undefined;
    } else {
      const id = key();
      const parentId = (flags & PARENT_NULL) !== 0 ? null : (flags & PARENT_PREV) !== 0 ? (prevId ?? '') : key();
      const code = (flags >> KIND_SHIFT) & 0xff;
      const type = code === CUSTOM_KIND ? key() : (ENTRY_KINDS[code] ?? '');
      to.keyed(info, { id, parentId, type, subagent: (flags & SUBAGENT) !== 0, maybeSkill: (flags & MAYBE_SKILL) !== 0 });
      prevId = id;
    }
  }
  return prevId;
}
