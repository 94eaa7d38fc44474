// The capsule viewer's line diff, from the `diff` package (Myers, a shortest edit script); pure so it runs (and is tested) in plain Node too.
import { diffArrays } from 'diff';

type DiffOp = 'same' | 'add' | 'del';
export interface DiffLine {
  readonly op: DiffOp;
  readonly text: string;
}
export interface DiffStats {
  readonly added: number;
  readonly removed: number;
  readonly same: number;
}

/** Past this many differing lines the middle is shown as removed-then-added: capsules are far smaller, so this only guards the page. */
export const MAX_EDIT_LENGTH = 2_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // a final newline ends the last line; it is not an extra empty one
  return lines;
}

/** The lines of `before` and `after` in order, each marked kept, added or removed; deletions come before additions. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  if (changes === undefined) return replacedWhole(a, b);
  return changes.flatMap((c) => {
    const op: DiffOp = c.added ? 'add' : c.removed ? 'del' : 'same';
    return c.value.map((text): DiffLine => ({ op, text }));
  });
}

/** The common head and tail kept, every other line removed then added. */
function replacedWhole(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const line =
    (op: DiffOp) =>
    (text: string): DiffLine => ({ op, text });
  return [
    ...a.slice(0, head).map(line('same')),
    ...a.slice(head, a.length - tail).map(line('del')),
    ...b.slice(head, b.length - tail).map(line('add')),
    ...a.slice(a.length - tail).map(line('same')),
  ];
}

export function diffStats(lines: readonly DiffLine[]): DiffStats {
  let added = 0;
  let removed = 0;
  let same = 0;
  for (const l of lines) {
    if (l.op === 'add') added++;
    else if (l.op === 'del') removed++;
    else same++;
  }
  return { added, removed, same };
}
