// A small unified line diff (Myers) for the approval dialog; common prefix and suffix are trimmed and a very different middle is shown as replaced whole.
type Op = { readonly tag: ' ' | '-' | '+'; readonly line: string };

/** Beyond this many differing lines the middle is shown as "all removed, all added": the Myers trace grows with D². */
const MAX_EDIT_DISTANCE = 1_500;
const CONTEXT_LINES = 3;

/** Lines with their '\n' kept, so a missing newline at the end counts as a difference. */
export function splitLines(text: string): string[] {
  const out = text.split(/(?<=\n)/);
  return out.length === 1 && out[0] === '' ? [] : out;
}

/** The shortest edit script between a and b, or undefined when it needs more than maxD steps. */
function myers(a: readonly string[], b: readonly string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const limit = Math.min(n + m, maxD);
  const off = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[off + k - 1] ?? 0) < (v[off + k + 1] ?? 0));
      let x = down ? (v[off + k + 1] ?? 0) : (v[off + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(off - d, off + d + 1));
        return backtrack(a, b, trace);
      }
    }
    trace.push(v.slice(off - d, off + d + 1));
  }
  return undefined;
}

function backtrack(a: readonly string[], b: readonly string[], trace: readonly Int32Array[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  const at = (d: number, k: number): number => trace[d]?.[k + d] ?? 0;
  for (let d = trace.length - 1; d > 0; d--) {
    const k = x - y;
    const down = k === -d || (k !== d && at(d - 1, k - 1) < at(d - 1, k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(d - 1, prevK);
    const prevY = prevX - prevK;
    for (; x > prevX && y > prevY; x--, y--) ops.push({ tag: ' ', line: a[x - 1] ?? '' });
    if (down) ops.push({ tag: '+', line: b[--y] ?? '' });
    else ops.push({ tag: '-', line: a[--x] ?? '' });
  }
  for (; x > 0 && y > 0; x--, y--) ops.push({ tag: ' ', line: a[x - 1] ?? '' });
  return ops.reverse();
}

function editScript(a: readonly string[], b: readonly string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  const mid = myers(midA, midB, MAX_EDIT_DISTANCE) ?? [
    ...midA.map((line): Op => ({ tag: '-', line })),
    ...midB.map((line): Op => ({ tag: '+', line })),
  ];
  const same = (line: string): Op => ({ tag: ' ', line });
  return [...a.slice(0, pre).map(same), ...mid, ...a.slice(a.length - suf).map(same)];
}

function render(op: Op): string {
  const text = op.line.endsWith('\n') ? op.line.slice(0, -1) : `${op.line}\n\\ No newline at end of file`;
  return `${op.tag}${text}`;
}

function range(start: number, count: number): string {
  // A hunk that holds no lines of one side names the line before it (0 for the start of the file).
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

export interface DiffStats {
  readonly added: number;
  readonly removed: number;
}

/** `diff -u` style text from `oldLabel` to `newLabel`; empty when the texts are equal. */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string): { text: string; stats: DiffStats } {
  const ops = editScript(splitLines(oldText), splitLines(newText));
  const changes = ops.flatMap((o, i) => (o.tag === ' ' ? [] : [i]));
  const stats = { added: ops.filter((o) => o.tag === '+').length, removed: ops.filter((o) => o.tag === '-').length };
  if (changes.length === 0) return { text: '', stats };
  const out = [`--- ${oldLabel}`, `+++ ${newLabel}`];
  // oldBefore[i] / newBefore[i]: lines of each side before ops[i], for the hunk headers.
  const oldBefore: number[] = [0];
  const newBefore: number[] = [0];
  ops.forEach((o, i) => {
    oldBefore.push((oldBefore[i] ?? 0) + (o.tag === '+' ? 0 : 1));
    newBefore.push((newBefore[i] ?? 0) + (o.tag === '-' ? 0 : 1));
  });
  let g = 0;
  while (g < changes.length) {
    let last = g;
    while (last + 1 < changes.length && (changes[last + 1] ?? 0) - (changes[last] ?? 0) <= 2 * CONTEXT_LINES + 1) last++;
    const start = Math.max(0, (changes[g] ?? 0) - CONTEXT_LINES);
    const end = Math.min(ops.length, (changes[last] ?? 0) + CONTEXT_LINES + 1);
    const o0 = oldBefore[start] ?? 0;
    const n0 = newBefore[start] ?? 0;
    const oldCount = (oldBefore[end] ?? 0) - o0;
    const newCount = (newBefore[end] ?? 0) - n0;
    out.push(`@@ -${range(o0 + 1, oldCount)} +${range(n0 + 1, newCount)} @@`, ...ops.slice(start, end).map(render));
    g = last + 1;
  }
  return { text: out.join('\n') + '\n', stats };
}
