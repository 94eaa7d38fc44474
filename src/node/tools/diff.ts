// The unified diff shown in the approval dialog, from the `diff` package (Myers); a very different middle is shown as replaced whole.
import { structuredPatch, type StructuredPatchHunk } from 'diff';

/** Beyond this many differing lines the middle is shown as "all removed, all added": Myers' work grows with D². */
const MAX_EDIT_DISTANCE = 1_500;
const CONTEXT_LINES = 3;
const NO_NEWLINE = '\\ No newline at end of file';

/** Lines with their '\n' kept, so a missing newline at the end counts as a difference. */
export function splitLines(text: string): string[] {
  const out = text.split(/(?<=\n)/);
  return out.length === 1 && out[0] === '' ? [] : out;
}

function range(start: number, count: number): string {
  // A hunk that holds no lines of one side names the line before it (0 for the start of the file), as GNU diff does.
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/** Every line of `b` after every line of `a`, with the common head and tail kept as context: the fallback past MAX_EDIT_DISTANCE. */
function replacedWhole(a: readonly string[], b: readonly string[]): StructuredPatchHunk {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const from = Math.max(0, pre - CONTEXT_LINES);
  const head = a.slice(from, pre);
  const tail = a.slice(a.length - suf, Math.min(a.length, a.length - suf + CONTEXT_LINES));
  const lines = [
    ...head.map((l) => ` ${l}`),
    ...a.slice(pre, a.length - suf).map((l) => `-${l}`),
    ...b.slice(pre, b.length - suf).map((l) => `+${l}`),
    ...tail.map((l) => ` ${l}`),
  ].flatMap((l) => (l.endsWith('\n') ? [l.slice(0, -1)] : [l, NO_NEWLINE]));
  const oldLines = head.length + (a.length - suf - pre) + tail.length;
  const newLines = head.length + (b.length - suf - pre) + tail.length;
  return { oldStart: from + 1, oldLines, newStart: from + 1, newLines, lines };
}

export interface DiffStats {
  readonly added: number;
  readonly removed: number;
}

/** `diff -u` style text from `oldLabel` to `newLabel`; empty when the texts are equal. */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string): { text: string; stats: DiffStats } {
  if (oldText === newText) return { text: '', stats: { added: 0, removed: 0 } };
  const hunks = structuredPatch(oldLabel, newLabel, oldText, newText, undefined, undefined, { context: CONTEXT_LINES, maxEditLength: MAX_EDIT_DISTANCE })
    ?.hunks ?? [replacedWhole(splitLines(oldText), splitLines(newText))];
  const out = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    // The header is written here, not by the package's formatPatch, to keep GNU diff's short form (`@@ -1 +1 @@`).
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines);
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  }
  return { text: out.join('\n') + '\n', stats: { added, removed } };
}
