// Cuts a member the importer never reads out of a line's bytes before the line is parsed: Claude Code's `toolUseResult`, a second copy of each tool's output; the streamed import cuts it from every line, the in-memory one from a line that does not parse whole (docs/importing.md#large-sessions).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Bytes that may stand outside strings in a JSON value: white space, structure, numbers and the letters of true,
 * false and null. Anything else means the line is damaged there; it is then not cut, so JSON.parse reports it.
 */
const BARE = new Uint8Array(256);
for (const c of ' \t\r\n{}[],:-+.0123456789eEtrufalsn') BARE[c.charCodeAt(0)] = 1;

/**
 * Where the JSON value starting at or after `from` ends (just past it), within `[from, end)`: a string, or an
 * object or array with its strings skipped whole, or a bare scalar. -1 when it does not end by `end`, or when a
 * byte outside its strings could not be JSON. A `"` inside a string is always escaped, so skipping a string needs
 * no parse: the next quote that follows an even run of backslashes closes it.
 */
export function valueEnd(buf: Uint8Array, from: number, end: number): number {
  let depth = 0;
  for (let i = from; i < end; ) {
    const b = buf[i]!;
    if (b === QUOTE) {
      i = stringEnd(buf, i, end);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (b === 0x7b || b === 0x5b) depth++;
    else if (b === 0x7d || b === 0x5d) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (b === 0x2c && depth === 0) return i;
    else if (BARE[b] !== 1) return -1;
    i++;
  }
  return -1;
}

/** Just past the string whose opening quote is at `at`, or -1 when it is not closed by `end`. */
function stringEnd(buf: Uint8Array, at: number, end: number): number {
  for (let q = buf.indexOf(QUOTE, at + 1); q !== -1 && q < end; q = buf.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (buf[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/** Where `needle` first stands in `hay` at or after `from`, or -1. */
export function bytesIndexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  if (first === undefined) return from;
  for (let p = hay.indexOf(first, from); p !== -1 && p + needle.length <= hay.length; p = hay.indexOf(first, p + 1)) {
    let i = 1;
    while (i < needle.length && hay[p + i] === needle[i]) i++;
    if (i === needle.length) return p;
  }
  return -1;
}

/**
 * The byte range of `,"<key>":<value>` in the line `[start, end)` of `buf`, given `member` = the bytes `,"<key>":`;
 * undefined when the line holds no such member or its value does not end cleanly (then the line is read whole).
 * The comma before the quote proves the quote opens a key: inside a string it would follow a backslash.
 */
export function memberRange(
  buf: Uint8Array,
  start: number,
  end: number,
  member: Uint8Array,
  /** Where `member` next stands in `buf` at or after `start` (-1: nowhere), when the caller searched already. */
  at = bytesIndexOf(buf, member, start),
): readonly [number, number] | undefined {
  if (at === -1 || at < start || at + member.length > end) return undefined;
  const stop = valueEnd(buf, at + member.length, end);
  // What follows must close the object or start its next member, as in the line before the cut.
  if (stop < 0 || (buf[stop] !== 0x2c && buf[stop] !== 0x7d && buf[stop] !== 0x20)) return undefined;
  return [at, stop];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Claude Code's second copy of a tool's output; no importer reads it. */
export const UNREAD_MEMBER = encoder.encode(',"toolUseResult":');
/** A tool_use block: its `input` is read whole, so a line with one is never cut (its input could hold an UNREAD key). */
export const TOOL_USE = encoder.encode('"type":"tool_use"');

/**
 * The byte range of the line `[start, end)` that is left out unread: its `toolUseResult` member, when it cuts exactly
 * and the line holds no tool call (whose input is read whole and could hold such a key). The one rule for both
 * importers; a caller that searched already passes where the member stands and how to find a tool call.
 */
export function unreadRange(
  buf: Uint8Array,
  start: number,
  end: number,
  member = bytesIndexOf(buf, UNREAD_MEMBER, start),
  toolUseAt: () => number = () => bytesIndexOf(buf, TOOL_USE, start),
): readonly [number, number] | undefined {
  if (member === -1 || member >= end) return undefined;
  const use = toolUseAt();
  if (use !== -1 && use < end) return undefined;
  return memberRange(buf, start, end, UNREAD_MEMBER, member);
}

/**
 * `line` without its `toolUseResult` member, when the line holds one that cuts exactly and no tool call; otherwise
 * undefined. For a line that does not parse whole: what the streamed import reads of every line, so a line damaged
 * only inside that copy is read alike both ways.
 */
export function withoutUnreadMember(line: string): string | undefined {
  const bytes = encoder.encode(line);
  const r = unreadRange(bytes, 0, bytes.length);
  if (r === undefined) return undefined;
  return decoder.decode(bytes.subarray(0, r[0])) + decoder.decode(bytes.subarray(r[1]));
}
