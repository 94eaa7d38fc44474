// read_file: numbered lines of a text file in a 1-based inclusive range, capped per call, streamed so a huge file is never loaded whole.
import type { FileHandle } from 'node:fs/promises';
import type { ToolResult } from '../../engine/ports.js';
import { parseToolArgs } from './toolArgs.js';
import { openConfinedForReading } from './confined.js';
import { resolveWorkspacePath } from './paths.js';
import { TOOL_NAMES, readFileArgs, readFileHints } from './schemas.js';
import { effects } from '../../engine/transcript/effects.js';
import { ToolError, formatBytes, toolOk } from './types.js';
import type { ToolContext } from './types.js';

const CHUNK_BYTES = 64 * 1024;
/** Git's test: a NUL byte in the first 8 KB means binary. */
const SNIFF_BYTES = 8 * 1024;
/** Past the cap we keep counting lines (for "of N lines") only in files up to this size. */
const COUNT_ALL_LINES_BYTES = 64 * 1024 * 1024;
const NEWLINE = 0x0a;

interface Scan {
  readonly lines: string[];
  /** First line in the requested range that was not shown, if the cap stopped us. */
  readonly next?: number;
  /** Total lines, when the whole file was scanned. */
  readonly total?: number;
  /** Bytes of the first shown line that were cut because that line alone exceeds the cap. */
  readonly cutBytes: number;
}

function decodeLine(parts: readonly Buffer[], bytes: number): string {
  return Buffer.concat(parts, bytes).toString('utf8').replace(/\r$/, '');
}

async function scanRange(handle: FileHandle, size: number, first: number, last: number, maxLines: number, maxBytes: number): Promise<Scan> {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  const lines: string[] = [];
  let used = 0;
  let next: number | undefined;
  let cutBytes = 0;
  let lineNo = 1;
  let parts: Buffer[] = [];
  let kept = 0;
  let length = 0;
  let tailBytes = 0; // bytes after the last newline
  let pos = 0;

  const collecting = (): boolean => next === undefined && lineNo >= first && lineNo <= last;
  const endLine = (): void => {
    if (collecting()) {
      if (length <= maxBytes - used) {
        lines.push(decodeLine(parts, kept));
        used += length;
        if (lines.length >= maxLines) next = lineNo + 1;
      } else if (lines.length === 0) {
        lines.push(decodeLine(parts, kept));
        cutBytes = length - kept;
        next = lineNo + 1;
      } else {
        next = lineNo;
      }
    }
    parts = [];
    kept = 0;
    length = 0;
    lineNo++;
  };

  for (;;) {
    if ((next !== undefined || lineNo > last) && size > COUNT_ALL_LINES_BYTES) {
      return { lines, next, cutBytes, ...(pos >= size && tailBytes === 0 ? { total: lineNo - 1 } : {}) };
    }
    const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    let start = 0;
    while (start < bytesRead) {
      const nl = buf.indexOf(NEWLINE, start);
      const end = nl === -1 || nl >= bytesRead ? bytesRead : nl;
      if (collecting()) {
        const take = Math.min(end - start, Math.max(0, maxBytes - used - kept));
        if (take > 0) parts.push(Buffer.from(buf.subarray(start, start + take)));
        kept += take;
      }
      length += end - start;
      if (end === bytesRead) {
        tailBytes += end - start;
        break;
      }
      tailBytes = 0;
      endLine();
      start = end + 1;
    }
  }
  if (tailBytes > 0) endLine();
  return { lines, cutBytes, total: lineNo - 1, ...(next === undefined ? {} : { next }) };
}

async function looksBinary(handle: FileHandle): Promise<boolean> {
  const buf = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
  return buf.subarray(0, bytesRead).includes(0);
}

export async function readFileTool(ctx: ToolContext, argsJson: string): Promise<ToolResult> {
  const { limits } = ctx;
  const args = parseToolArgs(TOOL_NAMES.readFile, argsJson, readFileArgs, readFileHints(limits));
  const target = await resolveWorkspacePath(ctx.roots, args.path);
  if (!target.exists) throw new ToolError(`File not found: "${target.display}". Use list_files or search to find the right path.`);
  const first = args.startLine ?? 1;
  const last = args.endLine ?? Number.POSITIVE_INFINITY;
  if (last < first) throw new ToolError(`endLine (${last}) is before startLine (${first}); give a range with startLine ≤ endLine.`);
  // Everything below reads through this one descriptor, checked to be inside the workspace after it was opened.
  const handle = await openConfinedForReading(ctx.roots, target.real, target.display);
  try {
    return await readOpened(handle, target, args, first, last, limits);
  } finally {
    await handle.close();
  }
}

async function readOpened(
  handle: FileHandle,
  target: { readonly display: string },
  args: { readonly path: string },
  first: number,
  last: number,
  limits: ToolContext['limits'],
): Promise<ToolResult> {
  const st = await handle.stat();
  if (st.isDirectory()) throw new ToolError(`"${target.display}" is a folder, not a file; use list_files to see what it contains.`);
  if (!st.isFile()) throw new ToolError(`"${target.display}" is not a regular file (a device, socket or pipe), so it cannot be read.`);
  if (await looksBinary(handle)) {
    throw new ToolError(`"${target.display}" looks like a binary file (${st.size} bytes); read_file only shows text.`);
  }
  const scan = await scanRange(handle, st.size, first, last, limits.readMaxLines, limits.readMaxBytes);
  const { lines, total } = scan;
  const read = effects({ source: 'measured', read: [target.display] });
  if (total === 0) return { ...toolOk(`(empty file: "${target.display}" has no content)`), effects: read };
  if (lines.length === 0) {
    throw new ToolError(`startLine ${first} is past the end of "${target.display}", which has ${total ?? 'fewer'} lines.`);
  }
  const shownLast = first + lines.length - 1;
  const body = lines.map((text, i) => `${first + i}\t${text}`);
  const of = total === undefined ? `of a ${st.size}-byte file` : `of ${total}`;
  const more = scan.next !== undefined && scan.next <= last && (total === undefined || scan.next <= total);
  if (scan.cutBytes > 0) {
    body.push(`[Line ${first} is too long to show whole: its last ${scan.cutBytes} bytes were cut. Use search to find text in it.]`);
  }
  if (more) {
    body.push(
      `[Showing lines ${first}-${shownLast} ${of}: read_file returns at most ${limits.readMaxLines} lines or ${formatBytes(limits.readMaxBytes)} per call. ` +
        `To read on, call read_file with {"path": ${JSON.stringify(args.path)}, "startLine": ${scan.next}}.]`,
    );
  } else if (first > 1 || total === undefined || shownLast < total) {
    body.push(`[Lines ${first}-${shownLast} ${of}.]`);
  }
  return { ...toolOk(body.join('\n')), effects: read };
}
