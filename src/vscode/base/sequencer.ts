// Runs async operations one after another in call order; a failure reaches its caller and never blocks the next one.
export class Sequencer {
  #tail: Promise<unknown> = Promise.resolve();

  queue<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(op, op);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}
