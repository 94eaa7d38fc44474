// Level >= 2 truncation of long tool results in the copy sent to the model (docs/behaviour.md#cut); never touches the transcript.
export const TRUNCATE_HEAD_LINES = 20;
export const TRUNCATE_TAIL_LINES = 20;
/** Results with fewer lines than this are never truncated. */
export const TRUNCATE_MIN_LINES = 40;

export function truncationMarker(n: number): string {
  return `[... ${n} lines truncated ...]`;
}

/** Keeps the first 20 and last 20 lines of a tool result of 40 lines or more. */
export function truncateToolResult(text: string): string {
  const lines = text.split('\n');
  if (lines.length < TRUNCATE_MIN_LINES) return text;
  const dropped = lines.length - TRUNCATE_HEAD_LINES - TRUNCATE_TAIL_LINES;
  if (dropped <= 0) return text;
  return [
    ...lines.slice(0, TRUNCATE_HEAD_LINES),
    truncationMarker(dropped),
    ...lines.slice(lines.length - TRUNCATE_TAIL_LINES),
  ].join('\n');
}
