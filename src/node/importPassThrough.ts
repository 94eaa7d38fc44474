// What a streamed Claude Code import reads of a line: `toolUseResult` cut out unread, and each long tool-result string kept as its JSON bytes instead of being decoded, parsed and written again (docs/importing.md#large-sessions).
import { JsonStringBytes } from '../engine/import/jsonString.js';
import { TOOL_USE as TOOL_USE_BYTES, UNREAD_MEMBER, unreadRange } from '../engine/import/memberCut.js';
import { canonicalStringEnd } from './jsonStringScan.js';

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
  const unread = unreadRange(buf, start, end, needles.next(N_UNREAD, start), () => needles.next(N_TOOL_USE, start));
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
