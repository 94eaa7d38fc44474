// Writes an imported session to a temporary file line by line, in large writes, and links it into place only when complete (fsync first), so a failed import leaves nothing.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Entry } from '../engine/transcript/schema.js';
import { checkedEntry } from './entryLine.js';
import { contentJsonOf } from '../engine/import/jsonString.js';
import { importedEntryJson, resultJsonAround } from './importEntryLine.js';
import { errCode, syncDir } from './fsUtil.js';
import { DEFAULT_MAX_LINE_BYTES } from './lineReader.js';
import { headerLine, type SessionCreate } from './sessionCreate.js';
import { writeAll } from './tornTail.js';

/** Written once this much is pending: few writes, bounded memory. */
const BUFFER_BYTES = 4 << 20;

const NEWLINE = 0x0a;

/** A long import is flushed to disk each time this much more is written (see writeOut). */
const SYNC_EVERY_BYTES = 16 << 20;

/** An import that cannot be made a valid session: nothing was written. */
export class ImportRefused extends Error {}

/** The entry's JSON as the session store's check gives it (the schema's parse), or ImportRefused with its message. */
function checkedJson(entry: Entry): string {
  const checked = checkedEntry(entry);
  if (!checked.ok) throw new ImportRefused(`${checked.error}; nothing was written`);
  return JSON.stringify(checked.entry);
}

/**
 * Entries go in with entry() (synchronous: the converters are), lines collect and reach the file with flush(). Each
 * entry is checked as the session store checks an append (schema, line limit), with the same messages; the shapes the
 * importers build are checked by hand (importEntryLine.ts), each serialized once for both the check and the write. The header
 * comes first in the file; until it is known (the title is the person's first words) entries wait in memory.
 */
export class ImportWriter {
  /** Lines encoded straight into a buffer (no joined string, no buffer per write); two alternate, see flush(). */
  private buf: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Lines that did not fit the buffer, or that wait for the header. */
  private overflow: Buffer[] = [];
  private headerWritten = false;
  /** The write in flight, of `spare`'s lines (see flush). */
  private writing: Promise<void> = Promise.resolve();
  private spare: Buffer | undefined;
  private written = 0;
  /** Bytes written since the last datasync. */
  private unsynced = 0;
  /** The datasync in flight, beside the writes (see writeOut). */
  private syncing: Promise<void> = Promise.resolve();

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

  /** Whether flush() would write now: enough is pending (callers with a line at a time skip the call otherwise). */
  get due(): boolean {
    return this.used >= this.buf.length / 2 || this.overflow.length > 0;
  }

  /** Entries written (or waiting to be). */
  get count(): number {
    return this.written;
  }

  entry(entry: Entry): void {
    const content = contentJsonOf(entry);
    const around = content === undefined ? undefined : resultJsonAround(entry);
    if (content !== undefined && around !== undefined) {
      this.parts(entry, around.head, content, around.tail);
      return;
    }
    const json = importedEntryJson(entry) ?? checkedJson(entry);
    // Bytes, as the store counts them (the '\n' included); a UTF-16 unit is at most 3 bytes, so most lines need no count.
    let bytes = json.length * 3 > this.maxLineBytes ? Buffer.byteLength(json) : -1;
    if (bytes > this.maxLineBytes) throw this.tooLong(entry, bytes);
    this.written++;
    if (this.overflow.length === 0) {
      // Encoded in place when it surely fits, counted first when it may not (write() would stop short of a character).
      const room = this.buf.length - this.used - 1;
      if (json.length * 3 <= room || (json.length <= room && (bytes < 0 ? (bytes = Buffer.byteLength(json)) : bytes) <= room)) {
        this.used += this.buf.write(json, this.used, 'utf8');
        this.buf[this.used++] = NEWLINE;
        return;
      }
    }
    this.overflow.push(Buffer.from(`${json}\n`, 'utf8'));
  }

  /** A line written from its parts: the JSON before the content, the content's JSON bytes as they are, the rest. */
  private parts(entry: Entry, head: string, content: Uint8Array, tail: string): void {
    const headBytes = Buffer.byteLength(head);
    const tailBytes = Buffer.byteLength(tail);
    const bytes = headBytes + content.length + tailBytes;
    if (bytes > this.maxLineBytes) throw this.tooLong(entry, bytes);
    this.written++;
    if (this.overflow.length === 0 && bytes < this.buf.length - this.used) {
      this.used += this.buf.write(head, this.used, 'utf8');
      this.buf.set(content, this.used);
      this.used += content.length;
      this.used += this.buf.write(tail, this.used, 'utf8');
      this.buf[this.used++] = NEWLINE;
      return;
    }
    this.overflow.push(Buffer.concat([Buffer.from(head), content, Buffer.from(`${tail}\n`)]));
  }

  private tooLong(entry: Entry, bytes: number): ImportRefused {
    return new ImportRefused(
      `Cannot append ${entry.type} entry ${entry.id}: ${bytes + 1} bytes exceeds the ${this.maxLineBytes}-byte line limit; nothing was written`,
    );
  }

  /**
   * Writes what is pending once there is enough of it (or `force`), the header first once `header` gives it. The
   * write goes on while the caller converts more (into the other buffer); the next flush waits for it first, so
   * writes stay in order and one at a time, and its error (a full disk) comes out of that flush or commit().
   */
  async flush(header: () => SessionCreate | undefined, force = false): Promise<void> {
    if (!force && !this.due) return;
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
    await this.writing;
    const full = this.used > 0 ? this.buf.subarray(0, this.used) : undefined;
    if (full !== undefined) {
      // The buffer the last write took is free again: lines go there while this one is written.
      const next = this.spare ?? Buffer.allocUnsafe(BUFFER_BYTES);
      this.spare = this.buf;
      this.buf = next;
    }
    const rest = this.overflow;
    this.used = 0;
    this.overflow = [];
    const writing = this.writeOut(full, rest);
    // Awaited by the next flush, commit or abort; never left unhandled meanwhile.
    writing.catch(() => undefined);
    this.writing = writing;
    if (force) await writing;
  }

  private async writeOut(full: Buffer | undefined, rest: readonly Buffer[]): Promise<void> {
    if (full !== undefined) await writeAll(this.handle, full);
    for (const b of rest) await writeAll(this.handle, b);
    this.unsynced += (full?.length ?? 0) + rest.reduce((n, b) => n + b.length, 0);
    // Flushed to disk along the way, while the next lines convert and are written (one sync at a time, beside the
    // writes rather than before the next one): the fsync in commit() then has little left to do. Its error (EIO)
    // comes out of the next flush that starts one, or commit().
    if (this.unsynced >= SYNC_EVERY_BYTES) {
      this.unsynced = 0;
      await this.syncing;
      const syncing = this.handle.datasync();
      syncing.catch(() => undefined);
      this.syncing = syncing;
    }
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
    await this.syncing;
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
    await this.writing.catch(() => undefined);
    await this.syncing.catch(() => undefined);
    await this.handle.close().catch(() => undefined);
    await rm(this.tmp, { force: true });
  }
}
