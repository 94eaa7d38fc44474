// Reads one line of a session file back by offset for the compact part of its tree (docs/loading.md), on one descriptor kept open.
import { closeSync, openSync, readSync } from 'node:fs';
import type { Entry } from '../engine/transcript/schema.js';
import type { ColdLoader } from '../engine/transcript/coldPart.js';

/**
 * The file is append-only, so a line before the tail stays where it was indexed; each read is validated again, and
 * the tree checks that it is the entry it indexed there.
 */
export class ColdFile {
  #fd: number | undefined;

  constructor(
    readonly path: string,
    /** Validates the line's text as an entry (as on load), throwing a one-line Error when it is not one. */
    private readonly judge: (text: string) => Entry,
  ) {}

  readonly load: ColdLoader = (rec): Entry => {
    this.#fd ??= openSync(this.path, 'r');
    const buf = Buffer.allocUnsafe(rec.length);
    let got = 0;
    while (got < rec.length) {
      const n = readSync(this.#fd, buf, got, rec.length - got, rec.offset + got);
      if (n === 0) throw new Error('the session file is shorter than when it was opened');
      got += n;
    }
    return this.judge(buf.toString('utf8'));
  };

  /** Lets go of the descriptor; a later read opens the file again. */
  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }
}
