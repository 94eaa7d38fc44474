// Shared benchmark helpers: repeated timing, medians, and the result rows every benchmark returns.
export interface BenchRow {
  /** What was measured, e.g. "preflight after 1 new entry (10k entries)". */
  readonly name: string;
  /** Median over the runs, in milliseconds. */
  readonly medianMs: number;
  readonly runs: number;
  /** The baseline measured in the same run, if any. */
  readonly baselineName?: string;
  readonly baselineMedianMs?: number;
  /** baselineMedianMs / medianMs (how many times faster than the baseline). */
  readonly speedup?: number;
  /** Extra figures, e.g. peak memory in MB or tokenizer calls. */
  readonly extra?: Readonly<Record<string, number | string>>;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** Runs `fn` `runs` times (after `warmup` unmeasured runs) and returns the median wall time in ms. */
export async function timeMedian(fn: () => unknown | Promise<unknown>, runs = 7, warmup = 1): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

export function compare(name: string, medianMs: number, baselineName: string, baselineMedianMs: number, runs: number, extra?: BenchRow['extra']): BenchRow {
  return { name, medianMs, runs, baselineName, baselineMedianMs, speedup: medianMs > 0 ? baselineMedianMs / medianMs : Number.POSITIVE_INFINITY, extra };
}
