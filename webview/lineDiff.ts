// A line diff by longest common subsequence, for the capsule viewer; pure so it runs (and is tested) in plain Node too.

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

/** Past this many LCS table cells the middle is shown as removed-then-added: capsules are far smaller, so this only guards the page. */
export const MAX_CELLS = 4_000_000;

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
  // Common head and tail cost nothing and usually cover most of two consecutive capsules.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: 'same', text }));
  out.push(...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)));
  out.push(...a.slice(a.length - tail).map((text): DiffLine => ({ op: 'same', text })));
  return out;
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) return [...a.map((text): DiffLine => ({ op: 'del', text })), ...b.map((text): DiffLine => ({ op: 'add', text }))];
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const ai = a[i] ?? '';
    const bj = b[j] ?? '';
    if (ai === bj) {
      out.push({ op: 'same', text: ai });
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0)) {
      out.push({ op: 'del', text: ai });
      i++;
    } else {
      out.push({ op: 'add', text: bj });
      j++;
    }
  }
  for (; i < n; i++) out.push({ op: 'del', text: a[i] ?? '' });
  for (; j < m; j++) out.push({ op: 'add', text: b[j] ?? '' });
  return out;
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
