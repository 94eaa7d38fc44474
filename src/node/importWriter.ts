// Writes an imported session to a temporary file line by line, in large writes, and links it into place only when complete (fsync first), so a failed import leaves nothing.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Entry } from '../engine/transcript/schema.js';
import { checkedEntry } from './entryLine.js';
import { errCode, syncDir } from './fsUtil.js';
import { DEFAULT_MAX_LINE_BYTES } from './lineReader.js';
import { headerLine, type SessionCreate } from './sessionCreate.js';
import { writeAll } from './tornTail.js';

/** Written once this much is pending: few writes, bounded memory. */
const BUFFER_BYTES = 4 << 20;

/** An import that cannot be made a valid session: nothing was written. */
export class ImportRefused extends Error {}

/**
 * Entries go in with entry() (synchronous: the converters are), lines collect and reach the file with flush(). Each
 * entry is checked as the session store checks an append (schema, line limit), with the same messages. The header
 * comes first in the file; until it is known (the title is the person's first words) entries wait in memory.
 */
export class ImportWriter {
  /** Lines encoded straight into one reused buffer (no joined string, no buffer per write). */
  private buf = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Lines that did not fit the buffer, or that wait for the header. */
  private overflow: Buffer[] = [];
  private headerWritten = false;
  private written = 0;

  private constructor(
    readonly tmp: string,
    private readonly handle: FileHandle,
    private readonly maxLineBytes: number,
  ) {}

  /** A temporary file beside `path`, created exclusively. */
  static async create(path: string, maxLineBytes = DEFAULT_MAX_LINE_BYTES): Promise<ImportWriter> {
    await mkdir(dirname(path), { recursive: true });
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.importing.jsonl`);
    return new ImportWriter(tmp, await open(tmp, 'wx'), maxLineBytes);
  }

  /** Entries written (or waiting to be). */
  get count(): number {
    return this.written;
  }

  entry(entry: Entry): void {
    const checked = checkedEntry(entry);
    if (!checked.ok) throw new ImportRefused(`${checked.error}; nothing was written`);
    const e = checked.entry;
    const line = `${JSON.stringify(e)}\n`;
    // Bytes, as the store counts them; a line can only be over the limit if its UTF-16 length is at least a third of it.
    if (line.length * 3 > this.maxLineBytes + 1) {
      const bytes = Buffer.byteLength(line);
      if (bytes - 1 > this.maxLineBytes)
        throw new ImportRefused(`Cannot append ${e.type} entry ${e.id}: ${bytes} bytes exceeds the ${this.maxLineBytes}-byte line limit; nothing was written`);
    }
    this.written++;
    if (this.overflow.length === 0) {
      // Encoded in place. write() stops short of a character that does not fit; a line that stopped before the
      // buffer's end fitted whole, one that reached it may not have (then it is not counted and goes separately).
      const room = this.buf.length - this.used;
      if (line.length <= room) {
        const n = this.buf.write(line, this.used, 'utf8');
        if (n < room) {
          this.used += n;
          return;
        }
      }
    }
    this.overflow.push(Buffer.from(line, 'utf8'));
  }

  /** Writes what is pending once there is enough of it (or `force`), the header first once `header` gives it. */
  async flush(header: () => SessionCreate | undefined, force = false): Promise<void> {
    if (!force && this.used < this.buf.length / 2 && this.overflow.length === 0) return;
    if (!this.headerWritten) {
      const h = header();
      if (h === undefined) {
        // Until the header is known the buffer cannot go out: keep it and start another.
        if (this.used > 0) this.overflow.unshift(...this.takeBuffer());
        return;
      }
      await writeAll(this.handle, headerLine(h, Date.now()));
      this.headerWritten = true;
    }
    if (this.used > 0) await writeAll(this.handle, this.buf.subarray(0, this.used));
    this.used = 0;
    for (const b of this.overflow) await writeAll(this.handle, b);
    this.overflow = [];
  }

  /** The buffer's lines as a buffer of their own (the buffer is replaced, not reused). */
  private takeBuffer(): Buffer[] {
    const full = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(BUFFER_BYTES);
    this.used = 0;
    return [full];
  }

  /** Writes the rest, fsyncs, and links the file to `path` (never over an existing one). */
  async commit(path: string, header: SessionCreate): Promise<void> {
    await this.flush(() => header, true);
    await this.handle.sync();
    await this.handle.close();
    try {
      await link(this.tmp, path);
    } catch (err) {
      if (errCode(err) === 'EEXIST') throw new ImportRefused(`refusing to overwrite existing session ${path}; choose a new -o path`);
      throw err;
    } finally {
      await rm(this.tmp, { force: true });
    }
    await syncDir(dirname(path));
  }

  /** Removes the temporary file. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.tmp, { force: true });
  }
}
