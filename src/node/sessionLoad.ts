// Read-only load of a session JSONL file: header, migration, per-line zod validation, tree, and every problem found.
import { stat } from 'node:fs/promises';
import type { LoadProblem, LoadProblemKind } from '../engine/ports.js';
import { migrationFor } from '../engine/transcript/migrate.js';
import { EntrySchema, SessionHeaderSchema, type SessionHeader } from '../engine/transcript/schema.js';
import { ProblemList } from '../engine/transcript/problemList.js';
import { SessionTree } from '../engine/transcript/tree.js';
import { DEFAULT_MAX_LINE_BYTES, scanLines, type LineInfo, type ScanResult } from './lineReader.js';

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
}

export interface LoadOptions {
  /** Lines above this many bytes are skipped and reported as `oversized_line`. */
  readonly maxLineBytes?: number;
}

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

function fileError(path: string, err: unknown): Error {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === 'ENOENT') return new Error(`Session file not found: ${path}`);
  if (code === 'EISDIR') return new Error(`Session path is a folder, not a file: ${path}`);
  if (code === 'ENOTREG' && err instanceof Error) return new Error(err.message);
  const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new Error(`Cannot read session file ${path}: ${msg}`);
}

/**
 * Loads a session without touching the file. Content problems are reported, never thrown; only I/O
 * errors (missing file, permissions) throw, with a one-line message.
 */
export async function loadSessionFile(path: string, opts: LoadOptions = {}): Promise<SessionLoad> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (err) {
    throw fileError(path, err);
  }

  // Counts plus the first problems of each kind: a gigabyte of bad lines must not become millions of objects.
  const problemList = new ProblemList<LoadProblem>();
  const report = (kind: LoadProblemKind, message: string, line?: number): void => {
    problemList.add(line === undefined ? { kind, message } : { kind, line, message }, (n) => ({ kind, message: `… and ${n} more ${kind.replace(/_/g, ' ')} problem${n === 1 ? '' : 's'} (not listed)` }));
  };
  const tree = new SessionTree();
  let header: SessionHeader | undefined;
  let migrate: (raw: unknown) => unknown = (raw) => raw;
  let unwritableReason: string | undefined;
  let goodBytes = 0;
  // First line of the current run of bad lines at the end of the file (the torn tail), if any.
  let tailStartLine: number | undefined;
  let tailHasUnterminated = false;

  const markGood = (info: LineInfo): void => {
    goodBytes = info.offset + info.length + 1;
    tailStartLine = undefined;
  };
  const markBad = (info: LineInfo): void => {
    tailStartLine ??= info.lineNo;
  };

  const onHeader = (info: LineInfo, raw: unknown): boolean => {
    const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    if (obj?.type !== 'session') return false;
    const version = obj.version;
    const m = migrationFor(typeof version === 'number' ? version : Number.NaN);
    if (!m.ok) {
      report('unknown_version', m.error, info.lineNo);
      unwritableReason = `Session format not supported (${m.error})`;
    } else {
      migrate = m.migrate;
    }
    const parsed = SessionHeaderSchema.safeParse(migrate(raw));
    if (parsed.success) header = parsed.data;
    else report('missing_header', `line 1 looks like a session header but is invalid: ${describeIssues(parsed.error.issues)}`, info.lineNo);
    return true;
  };

  const onEntry = (info: LineInfo, raw: unknown): boolean => {
    const parsed = EntrySchema.safeParse(migrate(raw));
    if (!parsed.success) {
      report('invalid_entry', `line ${info.lineNo}: ${describeIssues(parsed.error.issues)}; skipped`, info.lineNo);
      return false;
    }
    if (!tree.add(parsed.data)) {
      const p = tree.lastProblem;
      if (p) report(p.kind, `line ${info.lineNo}: ${p.message}`, info.lineNo);
    }
    return true;
  };

  let scan: ScanResult;
  try {
    scan = await scanLines(
      path,
      {
        line(info, buf, start, end) {
          let text = buf.toString('utf8', start, end);
          if (info.lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
          if (!info.terminated) {
            // A line is committed only once its '\n' is on disk: a final segment without one is a torn write.
            tailHasUnterminated = true;
            markBad(info);
            return;
          }
          if (isBlank(text) && info.lineNo > 1) {
            markGood(info);
            return;
          }
          let raw: unknown;
          try {
            raw = JSON.parse(text);
          } catch (err) {
            if (info.lineNo === 1) {
              report('missing_header', 'line 1 is not a session header (not JSON)', 1);
            } else {
              const why = err instanceof Error ? err.message : String(err);
              report('invalid_json', `line ${info.lineNo}: invalid JSON (${why}); skipped`, info.lineNo);
              markBad(info);
            }
            return;
          }
          if (info.lineNo === 1 && onHeader(info, raw)) {
            if (header) markGood(info);
            return;
          }
          if (info.lineNo === 1) report('missing_header', 'line 1 is not a session header; loading its entries read-only', 1);
          if (onEntry(info, raw)) markGood(info);
          else markBad(info);
        },
        oversized(info) {
          if (!info.terminated) tailHasUnterminated = true;
          if (info.lineNo === 1) report('missing_header', `line 1 is ${info.length} bytes, too long to be a session header`, 1);
          report('oversized_line', `line ${info.lineNo}: ${info.length} bytes exceeds the ${opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES}-byte line limit; skipped`, info.lineNo);
          markBad(info);
        },
      },
      opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
  } catch (err) {
    throw fileError(path, err);
  }

  if (scan.bytes === 0) {
    report('empty_file', 'session file is empty');
  } else if (!header && problemList.count('missing_header') + problemList.count('unknown_version') === 0) {
    report('missing_header', 'line 1 is not a session header', 1);
  }
  if (!header && unwritableReason === undefined) unwritableReason = scan.bytes === 0 ? 'Session file is empty' : 'Session file has no valid header';

  if (tailStartLine !== undefined) {
    const tailBytes = scan.bytes - goodBytes;
    const what = tailHasUnterminated ? 'incomplete (no terminating newline)' : 'invalid';
    report('torn_tail', `last ${tailBytes} bytes from line ${tailStartLine} are ${what}; moved to the .corrupt sidecar when the session is next opened for writing`, tailStartLine);
  }
  return { header, tree, problems: problemList.list(), bytes: scan.bytes, goodBytes, unwritableReason };
}
