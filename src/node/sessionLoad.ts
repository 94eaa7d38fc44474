// Read-only load of a session JSONL file: header, migration, per-line zod validation, tree, and every problem found.
import { JsonTooDeepError, parseJsonText } from '../engine/jsonText.js';
import { stat } from 'node:fs/promises';
import type { LoadProblem, LoadProblemKind } from '../engine/ports.js';
import { migrationFor } from '../engine/transcript/migrate.js';
import { schemaShaped } from '../engine/transcript/entryShape.js';
import { EntrySchema, SessionHeaderSchema, type Entry, type SessionHeader } from '../engine/transcript/schema.js';
import { ProblemList } from '../engine/transcript/problemList.js';
import { SessionTree } from '../engine/transcript/tree.js';
import { CURRENT_VERSION } from '../engine/transcript/schema.js';
import { ColdFile } from './coldFile.js';
import { KEPT_WHOLE, KeyReader, type LineKeys } from './lineKeys.js';
import { DEFAULT_MAX_LINE_BYTES, scanLines, type LineInfo, type LineSink, type ScanResult } from './lineReader.js';

export interface SessionLoad {
  /** undefined when the first line is missing or is not a valid header. */
  readonly header: SessionHeader | undefined;
  /** All valid entries, in file order. */
  readonly tree: SessionTree;
  readonly problems: readonly LoadProblem[];
  /** File size. */
  readonly bytes: number;
  /** Offset just after the last good complete line; everything after it is the torn tail. */
  readonly goodBytes: number;
  /** Why this file must not be written (no header, a newer format); undefined when writable. */
  readonly unwritableReason?: string;
  /** Where the tree reads its compact part from (docs/loading.md); its owner closes it. */
  readonly coldFile?: ColdFile;
}

export interface LoadOptions {
  /** Lines above this many bytes are skipped and reported as `oversized_line`. */
  readonly maxLineBytes?: number;
}

/**
 * What one line after the header is, judged from its bytes alone (given the header's migration): the same verdict
 * whether the line is read front to back or from the end of the file first (src/node/tailRead.ts).
 */
export type LineVerdict =
  | { readonly kind: 'blank' }
  | { readonly kind: 'unterminated' }
  | { readonly kind: 'oversized' }
  | { readonly kind: 'json'; readonly why: string }
  | { readonly kind: 'invalid'; readonly issues: string }
  | { readonly kind: 'entry'; readonly entry: Entry };

export type Migrate = (raw: unknown) => unknown;

const MAX_REASON_ISSUES = 3;

/** One-line description of why a value failed a zod schema. */
function describeIssues(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]): string {
  const parts = issues.slice(0, MAX_REASON_ISSUES).map((i) => (i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
  const more = issues.length > MAX_REASON_ISSUES ? ` (+${issues.length - MAX_REASON_ISSUES} more)` : '';
  return parts.join('; ') + more;
}

function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/** The verdict on a parsed value as an entry. */
function entryVerdict(raw: unknown, migrate: Migrate): LineVerdict {
  const value = migrate(raw);
  // A message, result, system prompt or leaf move already in the schema's shape: the parse would give it back as it is.
  if (schemaShaped(value)) return { kind: 'entry', entry: value };
  const parsed = EntrySchema.safeParse(value);
  return parsed.success ? { kind: 'entry', entry: parsed.data } : { kind: 'invalid', issues: describeIssues(parsed.error.issues) };
}

/** Judges one complete line after line 1 (docs/behaviour.md#transcript: each line is validated on read). */
export function judgeLine(text: string, migrate: Migrate): LineVerdict {
  if (isBlank(text)) return { kind: 'blank' };
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (err) {
    return { kind: 'json', why: err instanceof Error ? err.message : String(err) };
  }
  return entryVerdict(raw, migrate);
}

/** The entry of a verdict, or a one-line Error saying why the line is not one. */
function entryOrThrow(v: LineVerdict): Entry {
  if (v.kind === 'entry') return v.entry;
  throw new Error(v.kind === 'json' ? `invalid JSON (${v.why})` : v.kind === 'invalid' ? v.issues : `the line is ${v.kind}`);
}

/** The header of line 1, when it is one this version can read and write. */
export function parseHeaderLine(text: string): { readonly header: SessionHeader; readonly migrate: Migrate } | undefined {
  let raw: unknown;
  try {
    raw = parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (obj?.type !== 'session') return undefined;
  const m = migrationFor(typeof obj.version === 'number' ? obj.version : Number.NaN);
  if (!m.ok) return undefined;
  const parsed = SessionHeaderSchema.safeParse(m.migrate(raw));
  return parsed.success ? { header: parsed.data, migrate: m.migrate } : undefined;
}

function fileError(path: string, err: unknown): Error {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === 'ENOENT') return new Error(`Session file not found: ${path}`);
  if (code === 'EISDIR') return new Error(`Session path is a folder, not a file: ${path}`);
  if (code === 'ENOTREG' && err instanceof Error) return new Error(err.message);
  const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new Error(`Cannot read session file ${path}: ${msg}`);
}

/**
 * Folds lines, in file order, into the load: the header, the tree, the problems and where the torn tail starts.
 * Lines arrive either as text (`sink`) or already judged (`accept`, the tail read first); both give the same result.
 */
export class LoadBuilder {
  // Counts plus the first problems of each kind: a gigabyte of bad lines must not become millions of objects.
  readonly #problems = new ProblemList<LoadProblem>();
  readonly tree: SessionTree;
  /** Set while the lines before a tail are indexed compactly (indexRest); each is read again when asked for. */
  #cold: ColdFile | undefined;
  readonly #coldFile: ColdFile | undefined;
  #header: SessionHeader | undefined;
  #migrate: Migrate = (raw) => raw;
  #unwritableReason: string | undefined;
  #goodBytes = 0;
  /** First line of the current run of bad lines at the end of the file (the torn tail), if any. */
  #tailStartLine: number | undefined;
  #tailHasUnterminated = false;
  /** Number of the next line to come. */
  nextLineNo = 1;

  constructor(
    private readonly maxLineBytes: number,
    /** The file, when the lines scanned are to be kept compactly (by id, parent and offset) instead of parsed. */
    coldPath?: string,
    /** How many lines that is expected to be (an estimate that sizes the index up front). */
    coldLines = 0,
  ) {
    this.#coldFile = coldPath === undefined ? undefined : new ColdFile(coldPath, (text) => entryOrThrow(judgeLine(text, this.#migrate)));
    this.#cold = this.#coldFile;
    this.tree = new SessionTree(this.#coldFile === undefined ? {} : { cold: this.#coldFile.load, coldLines });
  }

  /** The lines from here on (the tail's, read first) are entries kept whole. */
  endCold(): void {
    this.#cold = undefined;
  }

  readonly #keys = new KeyReader();

  readonly sink: LineSink = {
    chunk: (buf, bytes) => this.#keys.chunk(buf, bytes),
    line: (info, buf, start, end) => {
      if (this.#keyedHere(info)) {
        const keys = this.#keys.read(buf, start, end);
        if (keys !== undefined && !KEPT_WHOLE.has(keys.type)) {
          this.keyed(info, keys);
          return;
        }
      }
      this.text(info, buf.toString('utf8', start, end));
    },
    oversized: (info) => this.accept(info, { kind: 'oversized' }),
  };

  /** Whether a line goes into the compact part by its keys. Only lines of this version's format: an older one's are migrated, which needs the whole entry. */
  #keyedHere(info: LineInfo): boolean {
    return this.#cold !== undefined && info.lineNo > 1 && info.terminated && this.#header?.version === CURRENT_VERSION;
  }

  /** A line the compact part keeps by its keys (read here or by the index thread, which sends only such lines as keys). */
  keyed(info: LineInfo, keys: LineKeys): void {
    if (!this.#keyedHere(info) || KEPT_WHOLE.has(keys.type)) throw new Error(`line ${info.lineNo} was indexed by its keys but must be judged whole`);
    this.nextLineNo = info.lineNo + 1;
    this.#added(info, this.tree.addColdLine(keys, info));
    this.#good(info);
  }

  /** A line judged from its text. */
  text(info: LineInfo, raw: string): void {
    this.nextLineNo = info.lineNo + 1;
    const text = info.lineNo === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (!info.terminated) this.accept(info, { kind: 'unterminated' });
    else if (info.lineNo === 1) this.#firstLine(info, text);
    else this.accept(info, judgeLine(text, this.#migrate));
  }

  oversized(info: LineInfo): void {
    this.accept(info, { kind: 'oversized' });
  }

  #report(kind: LoadProblemKind, message: string, line?: number): void {
    this.#problems.add(line === undefined ? { kind, message } : { kind, line, message }, (n) => ({
      kind,
      message: `… and ${n} more ${kind.replace(/_/g, ' ')} problem${n === 1 ? '' : 's'} (not listed)`,
    }));
  }

  #good(info: LineInfo): void {
    this.#goodBytes = info.offset + info.length + 1;
    this.#tailStartLine = undefined;
  }

  #bad(info: LineInfo): void {
    this.#tailStartLine ??= info.lineNo;
  }

  #firstLine(info: LineInfo, text: string): void {
    let raw: unknown;
    try {
      raw = parseJsonText(text);
    } catch (err) {
      this.#report('missing_header', `line 1 is not a session header (${err instanceof JsonTooDeepError ? err.message : 'not JSON'})`, 1);
      return;
    }
    const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    if (obj?.type === 'session') {
      const m = migrationFor(typeof obj.version === 'number' ? obj.version : Number.NaN);
      if (!m.ok) {
        this.#report('unknown_version', m.error, info.lineNo);
        this.#unwritableReason = `Session format not supported (${m.error})`;
      } else {
        this.#migrate = m.migrate;
      }
      const parsed = SessionHeaderSchema.safeParse(this.#migrate(raw));
      if (parsed.success) {
        this.#header = parsed.data;
        this.#good(info);
      } else this.#report('missing_header', `line 1 looks like a session header but is invalid: ${describeIssues(parsed.error.issues)}`, info.lineNo);
      return;
    }
    this.#report('missing_header', 'line 1 is not a session header; loading its entries read-only', 1);
    this.accept(info, entryVerdict(raw, this.#migrate));
  }

  /** One judged line; `info.lineNo` must be `nextLineNo`. */
  accept(info: LineInfo, v: LineVerdict): void {
    this.nextLineNo = info.lineNo + 1;
    switch (v.kind) {
      case 'unterminated':
        // A line is committed only once its '\n' is on disk: a final segment without one is a torn write.
        this.#tailHasUnterminated = true;
        this.#bad(info);
        return;
      case 'oversized':
        if (!info.terminated) this.#tailHasUnterminated = true;
        if (info.lineNo === 1) this.#report('missing_header', `line 1 is ${info.length} bytes, too long to be a session header`, 1);
        this.#report('oversized_line', `line ${info.lineNo}: ${info.length} bytes exceeds the ${this.maxLineBytes}-byte line limit; skipped`, info.lineNo);
        this.#bad(info);
        return;
      case 'blank':
        this.#good(info);
        return;
      case 'json':
        this.#report('invalid_json', `line ${info.lineNo}: invalid JSON (${v.why}); skipped`, info.lineNo);
        this.#bad(info);
        return;
      case 'invalid':
        this.#report('invalid_entry', `line ${info.lineNo}: ${v.issues}; skipped`, info.lineNo);
        this.#bad(info);
        return;
      case 'entry':
        this.#added(info, this.#cold === undefined ? this.tree.add(v.entry) : this.tree.addCold(v.entry));
        this.#good(info);
        return;
    }
  }

  #added(info: LineInfo, ok: boolean): void {
    const p = ok ? undefined : this.tree.lastProblem;
    if (p) this.#report(p.kind, `line ${info.lineNo}: ${p.message}`, info.lineNo);
  }

  finish(bytes: number): SessionLoad {
    const header = this.#header;
    if (bytes === 0) {
      this.#report('empty_file', 'session file is empty');
    } else if (!header && this.#problems.count('missing_header') + this.#problems.count('unknown_version') === 0) {
      this.#report('missing_header', 'line 1 is not a session header', 1);
    }
    const unwritableReason = this.#unwritableReason ?? (header ? undefined : bytes === 0 ? 'Session file is empty' : 'Session file has no valid header');
    if (this.#tailStartLine !== undefined) {
      const tailBytes = bytes - this.#goodBytes;
      const what = this.#tailHasUnterminated ? 'incomplete (no terminating newline)' : 'invalid';
      this.#report(
        'torn_tail',
        `last ${tailBytes} bytes from line ${this.#tailStartLine} are ${what}; moved to the .corrupt sidecar when the session is next opened for writing`,
        this.#tailStartLine,
      );
    }
    return {
      header,
      tree: this.tree,
      problems: this.#problems.list(),
      bytes,
      goodBytes: this.#goodBytes,
      ...(unwritableReason === undefined ? {} : { unwritableReason }),
      ...(this.#coldFile === undefined ? {} : { coldFile: this.#coldFile }),
    };
  }
}

async function checkFile(path: string): Promise<void> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (err) {
    throw fileError(path, err);
  }
}

/**
 * Loads a session without touching the file. Content problems are reported, never thrown; only I/O
 * errors (missing file, permissions) throw, with a one-line message.
 */
export async function loadSessionFile(path: string, opts: LoadOptions = {}): Promise<SessionLoad> {
  await checkFile(path);
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const b = new LoadBuilder(maxLineBytes);
  let scan: ScanResult;
  try {
    scan = await scanLines(path, b.sink, maxLineBytes);
  } catch (err) {
    throw fileError(path, err);
  }
  return b.finish(scan.bytes);
}
