// A counting semaphore for subagents (capsule.subagents.maxConcurrent): take() waits for a free slot or the signal.
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  /** The release function once a slot is free; undefined when the signal fired first. */
  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return undefined;
    if (this.free > 0) {
      this.free -= 1;
      return this.releaser();
    }
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(undefined);
      };
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next === undefined) this.free += 1;
      else next();
    };
  }
}
