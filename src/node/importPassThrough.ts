// What a streamed Claude Code import reads of a line: `toolUseResult` cut out unread, and each long tool-result string kept as its JSON bytes instead of being decoded, parsed and written again (docs/importing.md#large-sessions).
import { isUtf8 } from 'node:buffer';
import { JsonStringBytes } from '../engine/import/jsonString.js';
import { memberRange, TOOL_USE as TOOL_USE_BYTES, UNREAD_MEMBER } from '../engine/import/memberCut.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The one-letter escapes, as JSON.stringify writes them (the quote, the backslash, and five controls). */
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;
/** Control characters JSON.stringify writes as `\u00xx` (all but the five with a letter). */
const LONG_ESCAPE = new Uint8Array(32).fill(1);
for (const c of [0x08, 0x09, 0x0a, 0x0c, 0x0d]) LONG_ESCAPE[c] = 0;

function hexDigit(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  // Lower case only: JSON.stringify writes `\u001f`, never `\u001F`.
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return -1;
}

/** 1: a byte that ends a run of plain text in a JSON string (a control character, the quote, the backslash); 2: above 0x7f. */
const STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STOP[c] = 1;
STOP[QUOTE] = 1;
STOP[BACKSLASH] = 1;
for (let c = 0x80; c < 0x100; c++) STOP[c] = 2;

/**
 * Just past the JSON string whose opening quote is at `at`, when the string ends by `end` and its bytes are exactly
 * what JSON.stringify would write for its text: no raw control character, only the escapes it uses, and UTF-8 that
 * decodes as written. -1 otherwise (a string another writer spelled differently, or a damaged one): the caller
 * then reads it the ordinary way, so its text and its errors are the parser's.
 */
export function canonicalStringEnd(buf: Uint8Array, at: number, end: number): number {
  // The byte at `end` (a line's '\n', or none past the buffer) stops the scan by itself: the inner loop needs no bound.
  if (end < buf.length && STOP[buf[end]!] === 0) return canonicalStringEnd(buf.subarray(0, end), at, end);
  let high = false;
  let i = at + 1;
  for (;;) {
    let b = 0;
    while (STOP[(b = buf[i]!)] === 0) i++;
    if (i >= end) return -1;
    if (b === QUOTE) return high && !isUtf8(buf.subarray(at, i)) ? -1 : i + 1;
    if (b === BACKSLASH) {
      const e = buf[i + 1]!;
      if (SHORT_ESCAPE[e] === 1) {
        i += 2;
        continue;
      }
      // `\u00xx` for a control character without a letter escape; anything else (`\/`, `\u0041`, a surrogate) is not the canonical form.
      if (e !== 0x75 || buf[i + 2] !== 0x30 || buf[i + 3] !== 0x30) return -1;
      const hi = hexDigit(buf[i + 4]);
      const lo = hexDigit(buf[i + 5]);
      if (hi < 0 || hi > 1 || lo < 0 || LONG_ESCAPE[hi * 16 + lo] !== 1) return -1;
      i += 6;
      continue;
    }
    if (b < 0x20) return -1;
    // Above 0x7f: checked as UTF-8 at the end, natively.
    high = true;
    i++;
  }
}

/**
 * A byte string to search for, found by its part from `rare` on: indexOf is several times faster from a byte that
 * is rare in JSON lines (`_`, `U`) than from a quote or a comma. The bytes before it are compared where it stands.
 */
export class Needle {
  readonly head: Buffer;
  readonly tail: Buffer;

  constructor(
    readonly bytes: Buffer,
    rare: number,
  ) {
    this.head = bytes.subarray(0, rare);
    this.tail = bytes.subarray(rare);
  }

  /** Where the whole needle first stands in `buf` at or after `from`, or -1. */
  find(buf: Buffer, from: number): number {
    const h = this.head.length;
    for (let p = buf.indexOf(this.tail, from + h); p !== -1; p = buf.indexOf(this.tail, p + 1)) {
      if (buf.compare(this.head, 0, h, p - h, p) === 0) return p - h;
    }
    return -1;
  }
}

/**
 * Each needle's next place in one buffer, searched once per place it stands rather than once per line. Callers ask
 * for each needle with `from` never going back (line after line, and forward within a line): a place found earlier
 * is then still the next one.
 */
export class Needles {
  private readonly at: number[];

  constructor(
    private readonly buf: Buffer,
    private readonly needles: readonly Needle[],
  ) {
    this.at = needles.map(() => -2);
  }

  /** Where needle `i` next stands at or after `from` (-1: nowhere in the buffer). */
  next(i: number, from: number): number {
    const at = this.at[i]!;
    if (at === -1 || at >= from) return at;
    const found = this.needles[i]!.find(this.buf, from);
    this.at[i] = found;
    return found;
  }
}

const UNREAD = new Needle(Buffer.from(UNREAD_MEMBER), 6);
const TOOL_USE = new Needle(Buffer.from(TOOL_USE_BYTES), 12);
/**
 * A tool_result block's string content, as Claude Code writes the block (`{"tool_use_id":…,"type":"tool_result",
 * "content":"…"`). The quote before `type` follows no backslash, so it is JSON's own, not a string's.
 */
const CONTENT = new Needle(Buffer.from('"type":"tool_result","content":"'), 12);
/** The needles a line is searched for, in Needles' order. */
export const LINE_NEEDLES: readonly Needle[] = [UNREAD, TOOL_USE, CONTENT];
const [N_UNREAD, N_TOOL_USE, N_CONTENT] = [0, 1, 2];

/** Shorter strings are parsed as usual: keeping their bytes would save nothing. */
const PASS_THROUGH_MIN = 256;
/** What stands for a kept string in the text that is parsed. The line's other text must not hold a NUL. */
const PLACEHOLDER = Buffer.from('"\\u0000"');
const NUL_ESCAPE = Buffer.from('\\u0000');

export interface CutLine {
  /** The text to parse: the line without its cuts. */
  readonly text: string;
  /** The line as it is in the file, when anything was cut (decoded when asked, while the batch is read). */
  readonly whole: (() => string) | undefined;
  /** The kept tool-result strings, in file order; each stands in `text` as "\u0000". */
  readonly json: readonly Uint8Array[] | undefined;
}

/**
 * The line `buf[start, end)` to parse. `toolUseResult` is left out where the cut is exact (engine/import/memberCut.ts), and a
 * tool_result's string content of some length, in the form JSON.stringify writes, is replaced by a placeholder and
 * kept as bytes (they stay views of `buf`, which the caller must not reuse). Plain decoding without `needles`.
 */
export function cutLine(buf: Buffer, start: number, end: number, needles?: Needles): CutLine {
  if (needles === undefined) return plain(buf, start, end);
  let unread: readonly [number, number] | undefined;
  const member = needles.next(N_UNREAD, start);
  if (member !== -1 && member < end) {
    const use = needles.next(N_TOOL_USE, start);
    if (use === -1 || use >= end) unread = memberRange(buf, start, end, UNREAD.bytes, member);
  }
  const kept: [number, number][] = [];
  for (let c = needles.next(N_CONTENT, start); c !== -1 && c < end; ) {
    const q = c + CONTENT.bytes.length - 1;
    const before = buf[c - 1];
    if ((unread !== undefined && q > unread[0] && q < unread[1]) || (before !== 0x2c && before !== 0x7b)) {
      c = needles.next(N_CONTENT, unread !== undefined && q < unread[1] ? unread[1] : q);
      continue;
    }
    const stop = canonicalStringEnd(buf, q, end);
    if (stop < 0) break;
    if (stop - q >= PASS_THROUGH_MIN) kept.push([q, stop]);
    c = needles.next(N_CONTENT, stop);
  }
  return joined(buf, start, end, unread, kept);
}

/** A line with nothing cut from it. */
function plain(buf: Buffer, start: number, end: number): CutLine {
  return { text: buf.toString('utf8', start, end), whole: undefined, json: undefined };
}

/** The line without its cuts, decoded once (the parts joined as bytes: one flat string for JSON.parse). */
function joined(buf: Buffer, start: number, end: number, unread: readonly [number, number] | undefined, kept: readonly (readonly [number, number])[]): CutLine {
  if (unread === undefined && kept.length === 0) return plain(buf, start, end);
  const cuts: (readonly [number, number, boolean])[] = kept.map(([a, b]) => [a, b, true]);
  if (unread !== undefined) cuts.push([unread[0], unread[1], false]);
  cuts.sort((x, y) => x[0] - y[0]);
  const parts: Buffer[] = [];
  const json: Uint8Array[] = [];
  let p = start;
  for (const [a, b, keep] of cuts) {
    parts.push(buf.subarray(p, a));
    if (keep) {
      parts.push(PLACEHOLDER);
      json.push(buf.subarray(a, b));
    }
    p = b;
  }
  parts.push(buf.subarray(p, end));
  // A NUL elsewhere in the line would pass for a placeholder: then no string is kept (the toolUseResult cut stands).
  if (json.length > 0 && parts.some((x) => x !== PLACEHOLDER && x.indexOf(NUL_ESCAPE) !== -1)) return joined(buf, start, end, unread, []);
  return { text: Buffer.concat(parts).toString('utf8'), whole: () => buf.toString('utf8', start, end), json: json.length > 0 ? json : undefined };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Puts the kept strings back into the parsed line: each placeholder must be the content of a tool_result block of
 * the line's message, one per kept string. False when they are not all found so (the line is then parsed whole).
 */
export function restoreKept(value: unknown, json: readonly Uint8Array[]): boolean {
  const message = isRecord(value) ? value['message'] : undefined;
  const blocks = isRecord(message) ? message['content'] : undefined;
  if (!Array.isArray(blocks)) return false;
  let k = 0;
  for (const b of blocks) {
    if (!isRecord(b) || b['type'] !== 'tool_result' || b['content'] !== '\u0000') continue;
    const bytes = json[k++];
    if (bytes === undefined) return false;
    b['content'] = new JsonStringBytes(bytes);
  }
  return k === json.length;
}
