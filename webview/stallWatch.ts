// Notices a turn that has gone quiet: after `afterMs` with no data from the model, it says so (and the view offers Stop / Retry).

/** The timer the watch uses; the view passes the window's, tests a fake clock, so nothing here waits on the wall clock. */
export interface StallTimer {
  set(fn: () => void, ms: number): number;
  clear(handle: number): void;
}

/** How long a running turn may go without a delta, a tool row or a progress step before the view says so. */
export const STALL_AFTER_MS = 30_000;

export class StallWatch {
  #handle: number | undefined;
  #stalled = false;

  constructor(
    private readonly timer: StallTimer,
    private readonly afterMs: number,
    private readonly changed: (stalled: boolean) => void,
  ) {}

  get stalled(): boolean {
    return this.#stalled;
  }

  /** Something arrived (or a turn started): the quiet period starts again. */
  activity(): void {
    this.#cancel();
    if (this.#stalled) {
      this.#stalled = false;
      this.changed(false);
    }
    this.#handle = this.timer.set(() => {
      this.#handle = undefined;
      this.#stalled = true;
      this.changed(true);
    }, this.afterMs);
  }

  /** The turn ended: nothing to watch. */
  stop(): void {
    this.#cancel();
    if (this.#stalled) {
      this.#stalled = false;
      this.changed(false);
    }
  }

  #cancel(): void {
    if (this.#handle !== undefined) this.timer.clear(this.#handle);
    this.#handle = undefined;
  }
}
