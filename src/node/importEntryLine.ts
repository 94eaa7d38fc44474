// The JSON of an imported entry without the schema's parse, for the shapes the importers build: the same check and the same bytes as checkedEntry + JSON.stringify, or undefined to let that path decide.
import type { Entry } from '../engine/transcript/schema.js';

type Check = (v: unknown) => boolean;

interface Key {
  readonly key: string;
  readonly optional: boolean;
  readonly ok: Check;
}

const str: Check = (v) => typeof v === 'string';
const bool: Check = (v) => typeof v === 'boolean';
/** The schema's `id`: 1 to 200 UTF-16 units. */
const id: Check = (v) => typeof v === 'string' && v.length >= 1 && v.length <= 200;
const nullableId: Check = (v) => v === null || id(v);
const timestamp: Check = (v) => typeof v === 'string' && v.length >= 1 && v.length <= 64;
const nonEmpty: Check = (v) => typeof v === 'string' && v.length >= 1;

function plain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/**
 * Whether `o`'s own keys are a subsequence of `keys` in that order, each value passing its check, every required key
 * present (`unread`'s value is known good and not read). Then the schema's parse would give back the same keys in the same order and the same values (no key it
 * strips, none it adds or moves), so JSON.stringify(o) is the line it would write.
 */
function inOrder(o: unknown, keys: readonly Key[], unread?: string): boolean {
  if (!plain(o)) return false;
  let i = 0;
  for (const k in o) {
    while (i < keys.length && keys[i]?.key !== k) {
      if (keys[i]?.optional !== true) return false;
      i++;
    }
    const spec = keys[i];
    if (spec === undefined) return false;
    if (k === unread) {
      i++;
      continue;
    }
    const v = o[k];
    if (!(v === undefined ? spec.optional : spec.ok(v))) return false;
    i++;
  }
  for (; i < keys.length; i++) if (keys[i]?.optional !== true) return false;
  return true;
}

const req = (key: string, ok: Check): Key => ({ key, optional: false, ok });
const opt = (key: string, ok: Check): Key => ({ key, optional: true, ok });

const CALL: readonly Key[] = [req('id', nonEmpty), req('name', nonEmpty), req('arguments', str)];
function calls(v: unknown): boolean {
  if (!Array.isArray(v) || Object.getPrototypeOf(v) !== Array.prototype) return false;
  // An index loop, not every(): a hole is an undefined element, which the schema refuses.
  for (let i = 0; i < v.length; i++) if (!inOrder(v[i], CALL)) return false;
  return true;
}

/** The schema's leading keys; `subagent` (between timestamp and type) is left to the schema's parse. */
const BASE: readonly Key[] = [req('id', id), req('parentId', nullableId), req('timestamp', timestamp)];

/** Per type, the keys the importers set, in the schema's order; any other key (images, effects…) takes the schema's path. */
const SHAPES: ReadonlyMap<string, readonly Key[]> = new Map(
  Object.entries({
    user: [...BASE, req('type', str), req('content', str), opt('injected', bool)],
    assistant: [...BASE, req('type', str), req('content', str), req('toolCalls', calls), opt('model', str)],
    tool_result: [
      ...BASE,
      req('type', str),
      req('toolCallId', nonEmpty),
      req('toolName', str),
      req('content', str),
      req('isError', bool),
      opt('interrupted', (v) => v === true),
    ],
    system_update: [...BASE, req('type', str), req('mode', (v) => v === 'base' || v === 'append'), req('content', str), opt('reason', str)],
    leaf: [...BASE, req('type', str), req('targetId', nullableId), opt('reason', str)],
  }),
);

const RESULT_SHAPE = SHAPES.get('tool_result') ?? [];

/**
 * JSON.stringify(entry) when the entry is valid and already in the schema's key order with nothing the schema would
 * strip or default; undefined otherwise (then checkedEntry decides, with its messages).
 */
export function importedEntryJson(entry: Entry): string | undefined {
  const shape = SHAPES.get(entry.type);
  return shape !== undefined && inOrder(entry, shape) ? JSON.stringify(entry) : undefined;
}

/**
 * For a tool_result whose content is written from its JSON bytes (engine/import/jsonString.ts): the entry's JSON
 * before and after those bytes, with the same check and key order as importedEntryJson and without reading the
 * content; undefined when the entry is not in that shape (then it is written the ordinary way).
 */
export function resultJsonAround(entry: Entry): { readonly head: string; readonly tail: string } | undefined {
  if (entry.type !== 'tool_result' || !inOrder(entry, RESULT_SHAPE, 'content')) return undefined;
  // The shape's keys, in its order: all of them but `interrupted` are required, so these are the entry's keys.
  const e = entry;
  const j = JSON.stringify;
  return {
    head: `{"id":${j(e.id)},"parentId":${j(e.parentId)},"timestamp":${j(e.timestamp)},"type":"tool_result","toolCallId":${j(e.toolCallId)},"toolName":${j(e.toolName)},"content":`,
    tail: `,"isError":${String(e.isError)}${e.interrupted === true ? ',"interrupted":true' : ''}}`,
  };
}
