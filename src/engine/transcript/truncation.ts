// Level >= 2 truncation of long tool results (by lines, then by size) in the copy sent to the model (docs/behaviour.md#cut); never touches the transcript.
const TRUNCATE_HEAD_LINES = 20;
const TRUNCATE_TAIL_LINES = 20;
/** Results with fewer lines than this are never truncated. */
const TRUNCATE_MIN_LINES = 40;

export function truncationMarker(n: number): string {
  return `[... ${n} lines truncated ...]`;
}

/**
 * A truncated result keeps at most about this many tokens, however its lines are shaped: a single 24k-token line
 * of minified JS has nothing for a line rule to cut. Measured in characters at 3 per token (code and JSON; prose
 * runs nearer 4), so the bound holds without a tokenizer in the model-input builder.
 */
const TRUNCATE_MAX_TOKENS = 2_000;
const CHARS_PER_TOKEN = 3;
export const TRUNCATE_MAX_CHARS = TRUNCATE_MAX_TOKENS * CHARS_PER_TOKEN;

function charTruncationMarker(n: number): string {
  return `[... ${n} characters truncated ...]`;
}

/** Head and tail by characters around a marker, for text whose lines are too long (or too few) to cut by line. */
function truncateChars(text: string): string {
  if (text.length <= TRUNCATE_MAX_CHARS) return text;
  const half = Math.floor(TRUNCATE_MAX_CHARS / 2);
  const dropped = text.length - 2 * half;
  return `${text.slice(0, half)}\n${charTruncationMarker(dropped)}\n${text.slice(text.length - half)}`;
}

/**
 * Keeps the first 20 and last 20 lines of a tool result of 40 lines or more, then bounds what is left by size
 * (head + tail + marker), so single-line output is truncated too.
 */
export function truncateToolResult(text: string): string {
  const lines = text.split('\n');
  const dropped = lines.length - TRUNCATE_HEAD_LINES - TRUNCATE_TAIL_LINES;
  if (lines.length < TRUNCATE_MIN_LINES || dropped <= 0) return truncateChars(text);
  const byLines = [...lines.slice(0, TRUNCATE_HEAD_LINES), truncationMarker(dropped), ...lines.slice(lines.length - TRUNCATE_TAIL_LINES)].join('\n');
  return truncateChars(byLines);
}

/**
 * Older results in the retained tail (beyond the newest keepRecentTokens) are sent in this bounded form: about this
 * many tokens of head and tail, measured like TRUNCATE_MAX_TOKENS (3 characters per token, no tokenizer needed here).
 */
const BOUNDED_RESULT_TOKENS = 240;
const BOUNDED_RESULT_CHARS = BOUNDED_RESULT_TOKENS * CHARS_PER_TOKEN;

function boundedResultMarker(omittedChars: number, entryId: string): string {
  return `[... older result shortened: ${omittedChars} characters omitted; the exact original (entry ${entryId}) is readable with read_compaction_evidence ...]`;
}

/** The bounded form of an older retained result: head + tail around a marker naming the entry; short results stay whole. */
export function boundToolResult(text: string, entryId: string): string {
  if (text.length <= BOUNDED_RESULT_CHARS + 200) return text;
  const half = Math.floor(BOUNDED_RESULT_CHARS / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n${boundedResultMarker(omitted, entryId)}\n${text.slice(text.length - half)}`;
}
