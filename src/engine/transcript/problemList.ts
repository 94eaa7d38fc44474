// A bounded list of load problems: counts per kind plus the first few of each, so a file of garbage cannot exhaust memory.
export interface CountedProblem {
  readonly kind: string;
  readonly message: string;
}

/** Problems kept in full per kind; the rest are only counted. */
const MAX_PROBLEMS_PER_KIND = 100;

/**
 * Keeps the first `perKind` problems of each kind and counts the others. `list()` gives the kept problems in the
 * order they came, followed by one summary problem per kind that overflowed ("… and N more"), so every reader shows
 * a complete picture in bounded memory.
 */
export class ProblemList<P extends CountedProblem> {
  private readonly kept: P[] = [];
  private readonly counts = new Map<string, number>();
  private readonly summaries = new Map<string, (dropped: number) => P>();

  constructor(private readonly perKind: number = MAX_PROBLEMS_PER_KIND) {}

  /** `summary` builds the closing problem of this kind if some are dropped; the first one given is used. */
  add(problem: P, summary: (dropped: number) => P): void {
    const n = (this.counts.get(problem.kind) ?? 0) + 1;
    this.counts.set(problem.kind, n);
    if (n <= this.perKind) this.kept.push(problem);
    else if (!this.summaries.has(problem.kind)) this.summaries.set(problem.kind, summary);
  }

  /** How many problems of this kind were added (kept or not). */
  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** The last problem kept, if any. */
  last(): P | undefined {
    return this.kept[this.kept.length - 1];
  }

  list(): P[] {
    const out = [...this.kept];
    for (const [kind, summary] of this.summaries) out.push(summary((this.counts.get(kind) ?? 0) - this.perKind));
    return out;
  }
}
