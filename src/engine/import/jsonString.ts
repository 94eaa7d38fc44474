// A tool result's text kept as the JSON string the source file held, decoded only if something reads it, so a streamed import can write those bytes straight through (docs/importing.md#large-sessions).
import { exitCodeOf } from '../effects/resultStatus.js';
import { bytesIndexOf } from './memberCut.js';
import type { Entry, ToolResultEntry } from '../transcript/schema.js';

const decoder = new TextDecoder();

/**
 * The bytes of a JSON string (quotes included) in exactly the form JSON.stringify writes its text: the streamed
 * importer makes one only after checking that (node/importPassThrough.ts), so writing the bytes is writing the text.
 */
export class JsonStringBytes {
  #text: string | undefined;

  constructor(readonly json: Uint8Array) {}

  /** The text, decoded on first use. */
  get text(): string {
    this.#text ??= JSON.parse(decoder.decode(this.json)) as string;
    return this.#text;
  }
}

/** The result entries made with resultWithJson, and their content. */
const passed = new WeakMap<object, JsonStringBytes>();

/** A tool result's fields but its content. */
export interface ResultFields {
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly isError: boolean;
}

/**
 * A tool_result entry whose content is `json`'s text, read on first use (an ordinary property to every reader: a
 * spread, JSON.stringify and the checks all get the text). Keys keep the schema's order. A literal, not spreads:
 * an import makes one per result.
 */
export function resultWithJson(f: ResultFields, json: JsonStringBytes): ToolResultEntry {
  const e: ToolResultEntry = {
    id: f.id,
    parentId: f.parentId,
    timestamp: f.timestamp,
    type: 'tool_result',
    toolCallId: f.toolCallId,
    toolName: f.toolName,
    get content(): string {
      return json.text;
    },
    isError: f.isError,
  };
  passed.set(e, json);
  return e;
}

/** For an entry resultWithJson made (not a copy of one), the JSON bytes of its content; undefined otherwise. */
export function contentJsonOf(e: Entry): Uint8Array | undefined {
  return passed.get(e)?.json;
}

const BACKSLASH = 0x5c;
const N = 0x6e;
/** How far into each end of a long result its first and last lines are looked for. */
const END_BYTES = 512;
/** Results shorter than this are decoded whole: reading their ends would save nothing. */
const WHOLE_BELOW = 4 * END_BYTES;
const TAG = new TextEncoder().encode('<returncode>');

/** Whether a `\n` escape starts at `p` (a backslash after an even run of backslashes, then `n`). */
function newlineAt(b: Uint8Array, p: number): boolean {
  if (b[p] !== BACKSLASH || b[p + 1] !== N) return false;
  let run = 0;
  while (b[p - 1 - run] === BACKSLASH) run++;
  return run % 2 === 0;
}

const nonBlank = (t: string): boolean => t.trim() !== '';

/**
 * exitCodeOf of a passed-through result's text, decoding only its ends when that gives the same answer: the
 * text holds no `<returncode>` tag (its bytes are searched: JSON.stringify writes `<` as it is), does not start
 * with `{` (a JSON result is read whole), and its first and last non-blank lines lie within its first and last
 * kilobyte or so, each cut at a line break. Otherwise, or for a short result, the whole text.
 */
function exitCodeOfJson(json: JsonStringBytes): number | null {
  const b = json.json;
  if (b.length < WHOLE_BELOW || bytesIndexOf(b, TAG, 0) !== -1) return exitCodeOf(json.text);
  let head = -1;
  for (let p = b.indexOf(BACKSLASH, END_BYTES); p !== -1 && p < 2 * END_BYTES; p = b.indexOf(BACKSLASH, p + 1)) {
    if (newlineAt(b, p)) {
      head = p;
      break;
    }
  }
  let tail = -1;
  for (let p = b.lastIndexOf(BACKSLASH, b.length - END_BYTES); p !== -1 && p > b.length - 2 * END_BYTES; p = b.lastIndexOf(BACKSLASH, p - 1)) {
    if (newlineAt(b, p)) {
      tail = p;
      break;
    }
  }
  if (head < 0 || tail < 0) return exitCodeOf(json.text);
  // Each end is a JSON string of its own: the bytes up to a `\n`, or after one, closed by a quote.
  const first = JSON.parse(`${decoder.decode(b.subarray(0, head))}"`) as string;
  const last = JSON.parse(`"${decoder.decode(b.subarray(tail + 2))}`) as string;
  if (!nonBlank(first) || !nonBlank(last) || first.trimStart().startsWith('{')) return exitCodeOf(json.text);
  return exitCodeOf(`${first}\n${last}`);
}

/** The exit code a result's text states (exitCodeOf), without decoding the whole of a long passed-through one. */
export function statedExitCode(e: ToolResultEntry): number | null {
  const json = passed.get(e);
  return json === undefined ? exitCodeOf(e.content) : exitCodeOfJson(json);
}
