// A tool result's text kept as the JSON string the source file held, decoded only if something reads it, so a streamed import can write those bytes straight through (docs/importing.md#large-sessions).
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

/** The result entries made with resultWithJson, and their content's bytes. */
const passed = new WeakMap<object, Uint8Array>();

type ResultFields = Omit<ToolResultEntry, 'content'>;

/**
 * A tool_result entry whose content is `json`'s text, read on first use (an ordinary property to every reader: a
 * spread, JSON.stringify and the checks all get the text). Keys keep the schema's order: the fields before
 * `content`, then `content`, then the rest.
 */
export function resultWithJson(
  before: Pick<ResultFields, 'id' | 'parentId' | 'timestamp' | 'type' | 'toolCallId' | 'toolName'>,
  json: JsonStringBytes,
  after: Omit<ResultFields, keyof typeof before>,
): ToolResultEntry {
  const e: ToolResultEntry = {
    ...before,
    get content(): string {
      return json.text;
    },
    ...after,
  };
  passed.set(e, json.json);
  return e;
}

/** For an entry resultWithJson made (not a copy of one), the JSON bytes of its content; undefined otherwise. */
export function contentJsonOf(e: Entry): Uint8Array | undefined {
  return passed.get(e);
}
