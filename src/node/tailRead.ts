// Reads a session from its end first: the lines the chat and the meter need, judged once, then the rest from the front (docs/loading.md).
import type { FileHandle } from 'node:fs/promises';
import { CURRENT_VERSION, type Entry, type SessionHeader } from '../engine/transcript/schema.js';
import { reachableTail } from '../engine/transcript/tail.js';
import { SessionTree } from '../engine/transcript/tree.js';
import { isSubagentEntry } from '../engine/transcript/subagentRef.js';
import { indexThreadHooks, scanOnIndexThread } from './indexThread.js';
import { scanLines, type ScanResult } from './lineReader.js';
import { openRegularFile } from './regularFile.js';
import { judgeLine, LoadBuilder, parseHeaderLine, type LineVerdict, type SessionLoad } from './sessionLoad.js';

/** How far from the end the tail may reach before the file is simply read front to back. */
const DEFAULT_MAX_TAIL_BYTES = 32 * 1024 * 1024;
/** A header longer than this is left to the full load (it reports why). */
const HEADER_PROBE_BYTES = 64 * 1024;
const WINDOW_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

interface TailLine {
  readonly offset: number;
  readonly length: number;
  readonly terminated: boolean;
  readonly verdict: LineVerdict;
}

/** The end of a session file: enough for the model input of the active leaf, and what showing it needs. */
export interface SessionTail {
  readonly header: SessionHeader;
  /** File size when it was read: the load covers exactly these bytes. */
  readonly size: number;
  /** Offset of the first line read from the end; the lines before it are indexed afterwards. */
  readonly start: number;
  /** Every line from `start` to `size`, in file order, each judged once (their entries are the tree's). */
  readonly lines: readonly TailLine[];
  /** The entries of `lines` as a partial tree: its leaf and branch are the file's, back to where the tail starts. */
  readonly tree: SessionTree;
}

export interface TailOptions {
  readonly maxLineBytes: number;
  readonly maxTailBytes?: number;
}

/** The file is no longer what was read (truncated or rewritten), or a line reaches past the budget: the caller loads it front to back instead. */
class FileChanged extends Error {}

/** A window of the file read backwards; lines are found by the '\n' before them, and the window grows for long lines. */
class BackWindow {
  #a = 0;
  #buf = Buffer.alloc(0);

  constructor(
    private readonly h: FileHandle,
    /** Offset of the header's '\n': a newline is always found at or after it. */
    private readonly floor: number,
    /** Nothing before this offset is read (the tail's budget). */
    private readonly lowest: number,
  ) {}

  async #load(a: number, end: number): Promise<void> {
    const buf = Buffer.allocUnsafe(end - a);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await this.h.read(buf, got, buf.length - got, a + got);
      if (bytesRead === 0) throw new FileChanged('the session file got shorter while it was read');
      got += bytesRead;
    }
    this.#a = a;
    this.#buf = buf;
  }

  /** Offset of the last '\n' before `end`. */
  async newlineBefore(end: number): Promise<number> {
    if (end <= this.lowest) throw new FileChanged('a line reaches past the tail budget');
    for (;;) {
      const covered = end > this.#a && end <= this.#a + this.#buf.length ? end - this.#a : 0;
      if (covered > 0) {
        const i = this.#buf.lastIndexOf(NEWLINE, end - 1 - this.#a);
        if (i >= 0) return this.#a + i;
        if (this.#a <= this.lowest) throw new FileChanged('a line reaches past the tail budget');
      }
      await this.#load(Math.max(this.floor, this.lowest, end - Math.max(WINDOW_BYTES, covered * 2)), end);
    }
  }

  /** The text of `[start, end)`, which the last search covered. */
  text(start: number, end: number): string {
    return this.#buf.toString('utf8', start - this.#a, end - this.#a);
  }

  async byteAt(offset: number): Promise<number> {
    const one = Buffer.alloc(1);
    const { bytesRead } = await this.h.read(one, 0, 1, offset);
    if (bytesRead !== 1) throw new FileChanged('the session file got shorter while it was read');
    return one[0] ?? 0;
  }
}

type Walk =
  | { readonly done: true; readonly leafId: string | null }
  | { readonly done: false; readonly missing: string }
  | { readonly broken: true; readonly done: false };

/**
 * Whether the lines read so far hold the model input of the leaf the full load would find: the last entry sets the
 * leaf (a leaf move: its target), and the walk back from it must reach the latest capsule's first kept and pinned
 * entries and the system-prompt base (reachableTail) with every parent before its child in the file.
 */
function walk(byId: ReadonlyMap<string, { readonly entry: Entry; readonly offset: number }>, last: { readonly entry: Entry; readonly offset: number }): Walk {
  const e = last.entry;
  const need = (id: string): Walk | undefined => {
    const hit = byId.get(id);
    if (hit === undefined) return { done: false, missing: id };
    return hit.offset < last.offset ? undefined : { broken: true, done: false };
  };
  if (e.type === 'leaf') {
    const problem = (e.parentId === null ? undefined : need(e.parentId)) ?? (e.targetId === null ? undefined : need(e.targetId));
    if (problem) return problem;
  }
  let missing: string | undefined;
  let broken = false;
  let prev = last.offset + 1;
  const leafId = e.type === 'leaf' ? e.targetId : e.id;
  reachableTail(
    {
      get(id) {
        const hit = byId.get(id);
        if (hit === undefined) {
          missing ??= id;
          return undefined;
        }
        if (hit.offset >= prev) broken = true;
        prev = hit.offset;
        return broken ? undefined : hit.entry;
      },
    },
    leafId,
  );
  if (broken) return { broken: true, done: false };
  return missing === undefined ? { done: true, leafId } : { done: false, missing };
}

/**
 * Reads lines from the end of `path` until they hold what the chat and the meter need. Undefined when that is not
 * possible cheaply or surely (no valid header, a tail past `maxTailBytes`, links the full load would reject): the
 * caller then loads the file front to back. Throws only on I/O errors.
 */
export async function readTail(path: string, opts: TailOptions): Promise<SessionTail | undefined> {
  const maxTail = opts.maxTailBytes ?? DEFAULT_MAX_TAIL_BYTES;
  const h = await openRegularFile(path, 'session file');
  try {
    const size = (await h.stat()).size;
    const probe = Buffer.alloc(Math.min(size, HEADER_PROBE_BYTES, opts.maxLineBytes + 1));
    const { bytesRead } = await h.read(probe, 0, probe.length, 0);
    const nl = probe.subarray(0, bytesRead).indexOf(NEWLINE);
    const head = nl < 0 || nl > opts.maxLineBytes ? undefined : parseHeaderLine(probe.toString('utf8', 0, nl));
    if (head === undefined) return undefined;
    const headerEnd = nl + 1;
    const win = new BackWindow(h, nl, Math.max(nl, size - maxTail - 1));
    const rev: TailLine[] = [];
    const byId = new Map<string, { entry: Entry; offset: number }>();
    let last: { entry: Entry; offset: number } | undefined;
    let waitingFor: string | undefined;
    let sawGood = false;
    let leafId: string | null = null;
    let complete = size === headerEnd;
    let cur = size;
    let terminated = true;
    if (!complete && (await win.byteAt(size - 1)) === NEWLINE) cur = size - 1;
    else terminated = false;
    while (!complete) {
      const q = await win.newlineBefore(cur);
      const offset = q + 1;
      const length = cur - offset;
      if (size - offset > maxTail) return undefined;
      const verdict: LineVerdict =
        length > opts.maxLineBytes ? { kind: 'oversized' } : !terminated ? { kind: 'unterminated' } : judgeLine(win.text(offset, cur), head.migrate);
      rev.push({ offset, length, terminated, verdict });
      const good = verdict.kind === 'entry' || verdict.kind === 'blank';
      // A bad line before good ones was skipped, and its children with it: which entries that cuts off is only
      // sure from the front. Bad lines after the last good one are the torn tail and cut nothing off.
      if (good) sawGood = true;
      else if (sawGood) return undefined;
      const atHeader = q === nl;
      if (verdict.kind === 'entry') {
        const hit = { entry: verdict.entry, offset };
        // Read backwards, so the earliest copy of a duplicated id ends up here, as in the full load.
        byId.set(verdict.entry.id, hit);
        // A subagent's entry never sets the leaf (docs/session-format.md#subagents).
        if (!isSubagentEntry(verdict.entry)) last ??= hit;
      }
      if (last !== undefined && (waitingFor === undefined || waitingFor === (verdict.kind === 'entry' ? verdict.entry.id : undefined) || atHeader)) {
        const w = walk(byId, last);
        if ('broken' in w) return undefined;
        if (w.done) {
          complete = true;
          leafId = w.leafId;
        } else waitingFor = w.missing;
      } else if (last === undefined && atHeader) complete = true;
      if (atHeader && !complete) return undefined;
      cur = q;
      terminated = true;
    }
    const lines = rev.reverse();
    const tree = new SessionTree({ partial: true });
    for (const l of lines) if (l.verdict.kind === 'entry') tree.add(l.verdict.entry);
    // A duplicate inside the tail can make the tree's leaf differ from the walk's: then only the full load is sure.
    if (tree.leafId !== leafId) return undefined;
    return { header: head.header, size, start: lines[0]?.offset ?? headerEnd, lines, tree };
  } catch (err) {
    if (err instanceof FileChanged) return undefined;
    throw err;
  } finally {
    await h.close();
  }
}

/**
 * The full load of the file as it was when `tail` was read: the lines before the tail from the front, then the
 * tail's lines as judged then. Equal to loadSessionFile() of those bytes (property-tested); the tail's entries are
 * the same objects, so nothing is held twice. Throws when the part before the tail is no longer all there.
 */
export async function indexRest(
  path: string,
  tail: SessionTail,
  maxLineBytes: number,
  compact = false,
  expected = compact ? linesExpectedBefore(tail) : 0,
  thread = true,
): Promise<SessionLoad> {
  // `compact`: the lines before the tail are kept as ids, parents and offsets (docs/loading.md), read again when asked
  // for; `expected`: how many lines that is likely to be (it sizes the index); `thread`: whether the index thread may
  // read them.
  if (indexesOnThread(tail, compact, thread)) {
    // A large part before the tail is read on the index thread; if that cannot run or fails, it is read here.
    const b = new LoadBuilder(maxLineBytes, path, expected);
    const scan = await scanOnIndexThread(path, b, maxLineBytes, tail.start)?.catch(() => undefined);
    if (scan !== undefined) return restWith(b, scan, tail);
  }
  const b = new LoadBuilder(maxLineBytes, compact ? path : undefined, expected);
  return restWith(b, await scanLines(path, b.sink, maxLineBytes, 0, tail.start), tail);
}

/** Hardly an entry line is shorter (its id, parent, timestamp and type take about this much): caps the estimate, which more lines only cost a resize. */
const MIN_LINE_BYTES = 80;

/**
 * How many lines lie before the tail, estimated from the tail's average line (a quarter more, and never more than the
 * bytes allow). Typed columns sized by it are filled once instead of doubled and copied on the way (docs/loading.md#indexing).
 */
export function linesExpectedBefore(tail: SessionTail): number {
  if (tail.lines.length === 0 || tail.start === 0) return 0;
  const average = (tail.size - tail.start) / tail.lines.length;
  return Math.ceil(Math.min(tail.start / MIN_LINE_BYTES, (tail.start / Math.max(average, MIN_LINE_BYTES)) * 1.25));
}

/** Whether the lines before `tail` are indexed on the index thread (allowed, large, compact and of this version's format). */
function indexesOnThread(tail: SessionTail, compact: boolean, thread = true): boolean {
  return thread && compact && tail.start >= indexThreadHooks.minBytes && tail.header.version === CURRENT_VERSION;
}

function restWith(b: LoadBuilder, scan: ScanResult, tail: SessionTail): SessionLoad {
  if (scan.bytes !== tail.start) throw new Error(`the session file changed while it was indexed (${scan.bytes} of ${tail.start} bytes before the tail)`);
  b.endCold();
  for (const l of tail.lines) b.accept({ lineNo: b.nextLineNo, offset: l.offset, length: l.length, terminated: l.terminated }, l.verdict);
  return b.finish(tail.size);
}
