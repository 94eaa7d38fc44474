// Entries already in the schema's shape: the keys the schema knows, in its order, each value one it accepts, nothing it would strip or default. For such an entry the schema's parse gives back the same entry, so reading a session (sessionLoad.ts) and writing an import (importEntryLine.ts) skip that parse; anything else takes it.
import type { Entry } from './schema.js';

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
export function inOrder(o: unknown, keys: readonly Key[], unread?: string): boolean {
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

export const RESULT_SHAPE = SHAPES.get('tool_result') ?? [];

/**
 * Whether `v` is an entry of a common shape (a message, a tool call's result, a system prompt, a leaf move) already
 * as the schema's parse would return it: then the parse would give back an equal entry with the same keys in the
 * same order, and can be skipped. False says nothing about validity: the schema decides.
 */
export function schemaShaped(v: unknown): v is Entry {
  if (!plain(v)) return false;
  const type = v['type'];
  const shape = typeof type === 'string' ? SHAPES.get(type) : undefined;
  return shape !== undefined && inOrder(v, shape);
}
