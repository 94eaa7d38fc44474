// Keeps the first and last N bytes of a stream and counts what was dropped between, so a 50 MB output costs 200 KB of memory.
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(
    private readonly headMax: number,
    private readonly tailMax: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headMax) {
      const take = Math.min(rest.length, this.headMax - this.headBytes);
      // Copy: stream chunks can be views into pooled memory that gets reused.
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailMax === 0) return;
    if (rest.length >= this.tailMax) {
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailMax))];
      this.tailBytes = this.tailMax;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailMax) {
      const first = this.tail[0];
      if (first === undefined) break;
      const over = this.tailBytes - this.tailMax;
      if (first.length <= over) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(over);
        this.tailBytes -= over;
      }
    }
  }

  /** Bytes received in total. */
  get bytes(): number {
    return this.total;
  }

  /** Bytes received but not kept. */
  get dropped(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  /** The kept text, with a marker where the middle was dropped. */
  text(): string {
    // Decoded together when nothing was dropped, so a character split across the two parts stays whole.
    if (this.dropped === 0) return Buffer.concat([...this.head, ...this.tail]).toString('utf8');
    const head = Buffer.concat(this.head, this.headBytes).toString('utf8');
    const tail = Buffer.concat(this.tail, this.tailBytes).toString('utf8');
    const sep = head.endsWith('\n') ? '' : '\n';
    return `${head}${sep}[... ${this.dropped} bytes of output dropped (${this.total} bytes in total); the first ${this.headBytes} and last ${this.tailBytes} bytes are shown ...]\n${tail}`;
  }
}
