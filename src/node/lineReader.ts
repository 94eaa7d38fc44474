// Streams a file in fixed-size chunks and splits it into lines on '\n' bytes, never holding more than one line.
import { openRegularFile } from './regularFile.js';

/** Lines longer than this are skipped rather than buffered (a 200 MB tool dump must not become one string). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface LineInfo {
  /** 1-based line number. */
  readonly lineNo: number;
  /** Byte offset of the line's first byte. */
  readonly offset: number;
  /** Length in bytes, without the '\n'. */
  readonly length: number;
  /** False for a final segment that has no '\n' (a torn write or a hand-edited file). */
  readonly terminated: boolean;
}

export interface LineSink {
  /**
   * One line's bytes are `buf[start, end)`. The buffer is reused after the call returns, so the sink
   * must consume it synchronously (decode or copy).
   */
  line(info: LineInfo, buf: Buffer, start: number, end: number): void;
  /** A line longer than the cap; its bytes were skipped, not buffered. */
  oversized(info: LineInfo): void;
  /** The buffer the next lines lie in, and how many of its bytes were read (each chunk, before its lines). */
  chunk?(buf: Buffer, bytes: number): void;
}

export interface ScanResult {
  /** Bytes read (the file size at the time of reading). */
  readonly bytes: number;
  readonly lines: number;
}

/**
 * Reads `path` front to back and reports every line to `sink`. Throws only on I/O errors.
 * Memory stays bounded by the chunk size plus the longest line under `maxLineBytes`. Stops at `endOffset` when given
 * (the part before a tail that was read first).
 */
export async function scanLines(
  path: string,
  sink: LineSink,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  startOffset = 0,
  endOffset = Number.POSITIVE_INFINITY,
): Promise<ScanResult> {
  const handle = await openRegularFile(path, 'session file');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // Bytes of the current line that arrived in earlier chunks (copied, since `chunk` is reused).
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let skipping = false;
    let lineNo = 1;
    let lineStart = startOffset;
    let pos = startOffset;

    const finishLine = (buf: Buffer, start: number, end: number, terminated: boolean): void => {
      const length = pendingBytes + (end - start);
      const info: LineInfo = { lineNo, offset: lineStart, length, terminated };
      if (skipping || length > maxLineBytes) {
        sink.oversized(info);
      } else if (pendingBytes === 0) {
        sink.line(info, buf, start, end);
      } else {
        pending.push(buf.subarray(start, end));
        const whole = Buffer.concat(pending, length);
        sink.line(info, whole, 0, whole.length);
      }
      pending = [];
      pendingBytes = 0;
      skipping = false;
      lineNo++;
      lineStart += length + (terminated ? 1 : 0);
    };

    for (;;) {
      const want = Math.min(CHUNK_BYTES, endOffset - pos);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(chunk, 0, want, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      sink.chunk?.(chunk, bytesRead);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(NEWLINE, start);
        if (nl === -1 || nl >= bytesRead) break;
        finishLine(chunk, start, nl, true);
        start = nl + 1;
      }
      if (start < bytesRead) {
        const restBytes = bytesRead - start;
        if (!skipping && pendingBytes + restBytes > maxLineBytes) {
          // Too long to keep: drop what we have and count the rest of the line without storing it.
          skipping = true;
          pending = [];
        }
        if (!skipping) pending.push(Buffer.from(chunk.subarray(start, bytesRead)));
        pendingBytes += restBytes;
      }
    }
    if (pendingBytes > 0) {
      const empty = Buffer.alloc(0);
      finishLine(empty, 0, 0, false);
    }
    return { bytes: pos, lines: lineNo - 1 };
  } finally {
    await handle.close();
  }
}
