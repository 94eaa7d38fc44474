// Turns, compactions and model switches run one at a time, in call order; the agent's `busy`, `idle()` and idle clock read it.
export class ExclusiveRuns {
  private queue: Promise<unknown> = Promise.resolve();
  private running = 0;
  private last: number;

  constructor(private readonly now: () => number) {
    this.last = now();
  }

  /** A run is going on or queued. */
  get active(): number {
    return this.running;
  }

  /** When the last run ended (or the agent was made). */
  get lastActivity(): number {
    return this.last;
  }

  /** Runs `fn` after every earlier run has settled; a rejection reaches only this caller. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.running += 1;
    const run = this.queue.then(fn, fn).finally(() => {
      this.running -= 1;
      this.last = this.now();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every queued run has finished. */
  async idle(): Promise<void> {
    while (this.running > 0) await this.queue;
  }
}
