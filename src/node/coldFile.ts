// Reads one line of a session file back by offset for the compact part of its tree (docs/loading.md), on one descriptor kept open.
import { closeSync, openSync, readSync } from 'node:fs';
import type { Entry } from '../engine/transcript/schema.js';
import type { ColdLoader } from '../engine/transcript/coldPart.js';

/**
 * The file is append-only, so a line before the tail stays where it was indexed; each read is validated again, and
 * the tree checks that it is the entry it indexed there.
 */
/** Read around each line asked for: a walk (back from the leaf, or forward through the file) finds its next lines already read. */
const WINDOW_BYTES = 256 * 1024;

export class ColdFile {
  #fd: number | undefined;
  #win = Buffer.alloc(0);
  #winStart = 0;

  constructor(
    readonly path: string,
    /** Validates the line's text as an entry (as on load), throwing a one-line Error when it is not one. */
    private readonly judge: (text: string) => Entry,
  ) {}

  readonly load: ColdLoader = (rec): Entry => {
    const end = rec.offset + rec.length;
    if (rec.offset < this.#winStart || end > this.#winStart + this.#win.length)
      this.#fill(Math.max(0, rec.offset - WINDOW_BYTES / 2), end, end + WINDOW_BYTES / 2);
    const text = this.#win.toString('utf8', rec.offset - this.#winStart, end - this.#winStart);
    return this.judge(text);
  };

  /** Reads `[start, upTo)` or up to the end of the file, which must reach `need`. */
  #fill(start: number, need: number, upTo: number): void {
    this.#fd ??= openSync(this.path, 'r');
    const buf = Buffer.allocUnsafe(upTo - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(this.#fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    if (start + got < need) throw new Error('the session file is shorter than when it was opened');
    this.#win = buf.subarray(0, got);
    this.#winStart = start;
  }

  /** Lets go of the descriptor; a later read opens the file again. */
  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    this.#win = Buffer.alloc(0);
    if (fd !== undefined) closeSync(fd);
  }
}
