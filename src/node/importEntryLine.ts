// The JSON of an imported entry without the schema's parse, for the shapes the importers build: the same check and the same bytes as checkedEntry + JSON.stringify, or undefined to let that path decide.
import { inOrder, RESULT_SHAPE, schemaShaped } from '../engine/transcript/entryShape.js';
import type { Entry } from '../engine/transcript/schema.js';

/**
 * JSON.stringify(entry) when the entry is valid and already in the schema's key order with nothing the schema would
 * strip or default; undefined otherwise (then checkedEntry decides, with its messages).
 */
export function importedEntryJson(entry: Entry): string | undefined {
  return schemaShaped(entry) ? JSON.stringify(entry) : undefined;
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
