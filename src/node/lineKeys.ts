// Finds an entry line's top-level id, parentId, type and subagent mark from its bytes, without building the entry (the compact index, docs/loading.md).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;

/**
 * Kinds kept whole in the compact part: leaf moves, the few lines the branch figures read (capsules, undo events,
 * model changes, system updates) and the checkpoints the Checkpoints tree groups, so neither reads the file back;
 * they are small and a small share of a session.
 */
export const KEPT_WHOLE: ReadonlySet<string> = new Set(['leaf', 'capsule', 'compaction_undo', 'model_change', 'system_update', 'checkpoint']);

export interface LineKeys {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly subagent: boolean;
  /** False only when the line surely names no `skill` tool call: neither the quoted name nor any \u escape occurs in it. */
  readonly maybeSkill: boolean;
}

const SKILL = Buffer.from('"skill"');
const UNICODE_ESCAPE = Buffer.from('\\u');
const SUBAGENT_KEY = Buffer.from('"subagent"');

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** Bytes of a string read in a loop before the native search takes over: keys, ids and kinds end well within it. */
const SHORT_STRING = 64;

/**
 * Index of the quote closing the string whose body starts at `p`, or -1: a short string is read byte by byte (a native
 * call costs more than the loop there), a long one by native search (an escaped quote is skipped).
 */
function stringEnd(buf: Buffer, from: number, end: number): number {
  let p = from;
  for (const stop = Math.min(end, from + SHORT_STRING); p < stop; ) {
    const b = buf[p];
    if (b === QUOTE) return p;
    p += b === BACKSLASH ? 2 : 1;
  }
  if (p >= end) return -1;
  for (;;) {
    const q = buf.indexOf(QUOTE, p);
    if (q < 0 || q >= end) return -1;
    let back = 0;
    while (q - 1 - back >= p && buf[q - 1 - back] === BACKSLASH) back++;
    if (back % 2 === 0) return q;
    p = q + 1;
  }
}

/** Index just past the value starting at `p` (a nested object or array is skipped over, strings by native search), or -1. */
function valueEnd(buf: Buffer, p: number, end: number): number {
  const c = buf[p];
  if (c === QUOTE) {
    const q = stringEnd(buf, p + 1, end);
    return q < 0 ? -1 : q + 1;
  }
  if (c === OPEN_OBJ || c === OPEN_ARR) {
    let depth = 0;
    for (let i = p; i < end; i++) {
      const b = buf[i];
      if (b === QUOTE) {
        const q = stringEnd(buf, i + 1, end);
        if (q < 0) return -1;
        i = q;
      } else if (b === OPEN_OBJ || b === OPEN_ARR) depth++;
      else if (b === CLOSE_OBJ || b === CLOSE_ARR) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number or a literal: up to the next separator.
  let i = p;
  while (i < end && buf[i] !== COMMA && buf[i] !== CLOSE_OBJ && !isWs(buf[i])) i++;
  return i > p ? i : -1;
}

/** The entry kinds: a line's `"type"` value is compared against their quoted bytes (no new string per line). */
export const ENTRY_KINDS: readonly string[] = [
  'user',
  'assistant',
  'tool_result',
  'checkpoint',
  'turn_end',
  'system_update',
  'capsule',
  'model_change',
  'leaf',
  'compaction_undo',
];
const KINDS = ENTRY_KINDS.map((k) => ({ kind: k, quoted: Buffer.from(JSON.stringify(k)) }));

/** A known kind spelled plainly at `[start, stop)`, or undefined (then the value is read as any string). */
function kindOf(buf: Buffer, start: number, stop: number): string | undefined {
  for (const { kind, quoted } of KINDS) {
    if (quoted.length !== stop - start) continue;
    let same = true;
    for (let i = 0; i < quoted.length && same; i++) same = buf[start + i] === quoted[i];
    if (same) return kind;
  }
  return undefined;
}

/** A JSON string token as text (escapes are rare in ids, so they go through JSON.parse). */
function stringValue(buf: Buffer, start: number, stop: number): string | undefined {
  // Plain ASCII without escapes (every id and kind Capsule writes): the bytes are the text.
  if (buf[start] === QUOTE && stop - start >= 2 && stop - start <= SHORT_STRING) {
    let plain = true;
    for (let i = start + 1; i < stop - 1 && plain; i++) plain = (buf[i] ?? 0x80) < 0x80 && buf[i] !== BACKSLASH;
    if (plain) return buf.toString('latin1', start + 1, stop - 1);
  }
  const raw = buf.toString('utf8', start, stop);
  if (raw.charCodeAt(0) !== QUOTE) return undefined;
  if (!raw.includes('\\')) return raw.slice(1, -1);
  const v: unknown = JSON.parse(raw);
  return typeof v === 'string' ? v : undefined;
}

function keyIs(buf: Buffer, start: number, stop: number, key: string): boolean {
  if (stop - start !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (buf[start + i] !== key.charCodeAt(i)) return false;
  return true;
}

/**
 * The keys the tree links by, read from one line's bytes `[start, end)`; undefined when the line is not plainly an
 * object with a string id and type and a string-or-null parentId (the caller then judges it whole). Like JSON.parse,
 * a repeated key counts by its last copy. The rest of the line is not validated here: it is when the entry is read.
 */
export function lineKeys(buf: Buffer, start: number, end: number): LineKeys | undefined {
  return readKeys(buf, start, end, undefined);
}

/** Needles searched for once per buffer rather than once per line (index 0, 1, 2 of `NeedleSearch`). */
const NEEDLES = [SUBAGENT_KEY, SKILL, UNICODE_ESCAPE] as const;
const SUB = 0;
const SKILL_NAME = 1;
const ESCAPE = 2;

/**
 * Where each needle next occurs in one buffer (a chunk many lines share): a needle that occurs nowhere is searched for
 * once per chunk instead of once per line. `reset` names the buffer and how many of its bytes hold lines.
 */
class NeedleSearch {
  #buf: Buffer | undefined;
  #end = 0;
  /** Per needle: the next occurrence at or after `#from`, or -1 when there is none before `#end`. */
  readonly #at = new Float64Array(NEEDLES.length);
  readonly #from = new Float64Array(NEEDLES.length);

  reset(buf: Buffer, end: number): void {
    this.#buf = buf;
    this.#end = end;
    this.#at.fill(-1);
    this.#from.fill(Number.POSITIVE_INFINITY);
  }

  covers(buf: Buffer, end: number): boolean {
    return buf === this.#buf && end <= this.#end;
  }

  /** Whether needle `k` occurs wholly within `[from, to)` of the buffer `reset` named (`covers` it). */
  within(k: number, from: number, to: number): boolean {
    const needle = NEEDLES[k] ?? SKILL;
    let at = this.#at[k] ?? -1;
    if (from < (this.#from[k] ?? 0) || (at !== -1 && at < from)) {
      const q = (this.#buf as Buffer).indexOf(needle, from);
      at = q < 0 || q + needle.length > this.#end ? -1 : q;
      this.#at[k] = at;
      this.#from[k] = from;
    }
    return at !== -1 && at + needle.length <= to;
  }
}

/**
 * Reads the keys of the lines of one file in order (the compact index): searches are shared by the lines of a chunk
 * (`chunk`), and a parent that is the line before's id is that same string (the tree then finds it without a lookup).
 */
export class KeyReader {
  readonly #search = new NeedleSearch();
  #prevId: string | undefined;

  /** The buffer the next lines are read from, and how many of its bytes hold lines. */
  chunk(buf: Buffer, end: number): void {
    this.#search.reset(buf, end);
  }

  read(buf: Buffer, start: number, end: number): LineKeys | undefined {
    const keys = readKeys(buf, start, end, this.#search.covers(buf, end) ? this.#search : undefined, this.#prevId);
    this.#prevId = keys?.id;
    return keys;
  }
}

function readKeys(buf: Buffer, start: number, end: number, search: NeedleSearch | undefined, prevId?: string): LineKeys | undefined {
  let i = start;
  while (i < end && isWs(buf[i])) i++;
  if (buf[i] !== OPEN_OBJ) return undefined;
  i++;
  let id: string | undefined;
  let parentId: string | null | undefined;
  let type: string | undefined;
  let subagent = false;
  for (;;) {
    while (i < end && isWs(buf[i])) i++;
    if (buf[i] === CLOSE_OBJ) break;
    if (buf[i] !== QUOTE) return undefined;
    const kEnd = stringEnd(buf, i + 1, end);
    if (kEnd < 0) return undefined;
    const kStart = i + 1;
    i = kEnd + 1;
    while (i < end && isWs(buf[i])) i++;
    if (buf[i] !== COLON) return undefined;
    i++;
    while (i < end && isWs(buf[i])) i++;
    const vStart = i;
    const vEnd = valueEnd(buf, i, end);
    if (vEnd < 0) return undefined;
    if (keyIs(buf, kStart, kEnd, 'id')) id = stringValue(buf, vStart, vEnd);
    else if (keyIs(buf, kStart, kEnd, 'type')) type = kindOf(buf, vStart, vEnd) ?? stringValue(buf, vStart, vEnd);
    else if (keyIs(buf, kStart, kEnd, 'parentId'))
      parentId =
        buf[vStart] === QUOTE
          ? prevId !== undefined && plainIs(buf, vStart, vEnd, prevId)
            ? prevId
            : stringValue(buf, vStart, vEnd)
          : keyIs(buf, vStart, vEnd, 'null')
            ? null
            : undefined;
    else if (keyIs(buf, kStart, kEnd, 'subagent')) subagent = !keyIs(buf, vStart, vEnd, 'null');
    i = vEnd;
    while (i < end && isWs(buf[i])) i++;
    if (buf[i] === COMMA) {
      i++;
      // Capsule writes the keys the tree links by first (the schema's order: id, parentId, timestamp, subagent, type).
      // Once they are read, the rest of the line is left to the read that validates it (docs/loading.md), unless it
      // names a subagent anywhere: then every key is read, as a mark written after the type must still count.
      if (id !== undefined && parentId !== undefined && type !== undefined && endsObject(buf, i, end)) {
        if (search !== undefined) {
          if (!search.within(SUB, i, end)) return sharedKeys(search, start, end, id, parentId, type, subagent);
        } else {
          // One view of the line for every search in it (each view is an object of its own).
          const line = buf.subarray(start, end);
          if (line.indexOf(SUBAGENT_KEY, i - start) < 0) return keysIn(line, id, parentId, type, subagent);
        }
      }
      continue;
    }
    if (buf[i] === CLOSE_OBJ) break;
    return undefined;
  }
  i++;
  while (i < end && isWs(buf[i])) i++;
  if (i !== end || id === undefined || type === undefined || parentId === undefined) return undefined;
  if (search !== undefined) return sharedKeys(search, start, end, id, parentId, type, subagent);
  return keysIn(buf.subarray(start, end), id, parentId, type, subagent);
}

/** `keysIn` by the searches a chunk's lines share. */
function sharedKeys(search: NeedleSearch, start: number, end: number, id: string, parentId: string | null, type: string, subagent: boolean): LineKeys {
  const maybeSkill = type === 'assistant' && (search.within(SKILL_NAME, start, end) || search.within(ESCAPE, start, end));
  return { id, parentId, type, subagent, maybeSkill };
}

/** Whether the JSON string token at `[start, stop)` is plainly `"` + `text` + `"` (no escapes). */
function plainIs(buf: Buffer, start: number, stop: number, text: string): boolean {
  if (stop - start !== text.length + 2 || buf[stop - 1] !== QUOTE) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || c === BACKSLASH || buf[start + 1 + i] !== c) return false;
  }
  return true;
}

/** The keys of a line given as its own view (`line`). */
function keysIn(line: Buffer, id: string, parentId: string | null, type: string, subagent: boolean): LineKeys {
  const maybeSkill = type === 'assistant' && (line.indexOf(SKILL) >= 0 || line.indexOf(UNICODE_ESCAPE) >= 0);
  return { id, parentId, type, subagent, maybeSkill };
}

/** Whether the line's last byte before trailing white space closes an object. */
function endsObject(buf: Buffer, from: number, end: number): boolean {
  let j = end - 1;
  while (j >= from && isWs(buf[j])) j--;
  return j >= from && buf[j] === CLOSE_OBJ;
}
