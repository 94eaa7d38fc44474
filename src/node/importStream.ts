// Imports a transcript file into a new session: a Claude Code session streams line by line (one string per line, entries written as they are made); other formats are read whole.
import { ImportBuilder, SidechainWhileStreaming } from '../engine/import/builder.js';
import { ClaudeCodeConverter } from '../engine/import/claudeCode.js';
import { detectFormat } from '../engine/import/detect.js';
import { InferredCounter } from '../engine/import/inferred.js';
import { errText } from '../engine/import/input.js';
import { ImportError, importTranscript, type TranscriptImportOptions } from '../engine/import/importTranscript.js';
import { FORMAT_NAMES, ReportBuilder, type ImportReport } from '../engine/import/report.js';
import { parseJsonText } from '../engine/jsonText.js';
import { ImportRepairStream } from '../engine/transcript/importRepair.js';
import type { Entry } from '../engine/transcript/schema.js';
import { writeImportedSession } from './importSession.js';
import { lineBatches, resultOffsets, type TextLine } from './importLines.js';
import { restoreKept } from './importPassThrough.js';
import { ImportWriter } from './importWriter.js';
import { openRegularFile } from './regularFile.js';

export interface SessionImport {
  readonly report: ImportReport;
  /** Entries the conversation became (before repairs). */
  readonly entries: number;
  /** One line per repair made so that the session verifies. */
  readonly repairs: readonly string[];
}

/** The first lines of a JSON lines file, enough to tell its format (as the in-memory importer samples it). */
const SAMPLE_LINES = 200;
/**
 * Lines the converter may hold while a message waits for a result before the file is searched for where results
 * are: a well-formed session holds a line or two, so the search is made only for one whose result is missing or
 * written far later (then the converter knows exactly how long to wait, and memory stays bounded).
 */
const HELD_LINES = 256;

interface GoodLine {
  readonly n: number;
  readonly value: unknown;
  readonly end: number;
}

/** What reading lines found so far: the good lines waiting for the format, and the lines that could not be read. */
interface LineState {
  readonly sample: GoodLine[];
  readonly bad: { readonly n: number; readonly error: string }[];
  nonBlank: number;
}

/** A line as the in-memory reader sees it: trimmed, a byte-order mark dropped; blank lines are skipped. */
function readLine(l: TextLine, s: LineState): GoodLine | undefined {
  const text = trimmed(l.n, l.text);
  if (text === '') return undefined;
  s.nonBlank++;
  if (s.nonBlank === 1 && !text.startsWith('{')) throw new NotLines();
  let error: unknown;
  try {
    const value = parseJsonText(text);
    // Kept tool results go back where they stood; if they cannot, the line is read whole below.
    if (l.json === undefined || restoreKept(value, l.json)) return { n: l.n, value, end: l.end };
  } catch (e) {
    error = e;
  }
  // A line something was cut from is judged as it is in the file: its own error, or its value after all.
  if (l.whole !== undefined) {
    try {
      return { n: l.n, value: parseJsonText(trimmed(l.n, l.whole())), end: l.end };
    } catch (e) {
      error = e;
    }
  }
  if (s.nonBlank === 1) throw new NotLines();
  s.bad.push({ n: l.n, error: errText(error) });
  return undefined;
}

function trimmed(n: number, text: string): string {
  return (n === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).trim();
}

/** The file is not JSON lines (its first line is no JSON object, or it has one line): it is read whole. */
class NotLines extends Error {}

/** The format is not Claude Code: read whole, by the in-memory importer. */
class OtherFormat extends Error {}

/**
 * Streams a Claude Code session into `output`. `collect` keeps the entries until the end (a session with sidechains:
 * they are written after the main chain, and the whole is verified as the in-memory importer does).
 */
async function streamClaudeCode(input: string, output: string, opts: TranscriptImportOptions, collect: boolean): Promise<SessionImport> {
  const handle = await openRegularFile(input, 'input file');
  let writer: ImportWriter | undefined;
  try {
    const s: LineState = { sample: [], bad: [], nonBlank: 0 };
    const report = new ReportBuilder();
    const inferred = new InferredCounter();
    writer = collect ? undefined : await ImportWriter.create(output);
    const w = writer;
    const repair = w === undefined ? undefined : new ImportRepairStream(opts.ids.next.bind(opts.ids), (e) => w.entry(e));
    const sink =
      repair === undefined
        ? undefined
        : (e: Entry): void => {
            inferred.add(e);
            repair.push(e);
          };
    const b = new ImportBuilder(
      {
        sessionId: opts.sessionId,
        cwd: opts.cwd,
        now: opts.now,
        ids: opts.ids,
        ...(opts.model === undefined ? {} : { model: opts.model }),
        ...(sink ? { sink } : {}),
      },
      report,
    );
    let converter: ClaudeCodeConverter | undefined;
    // Where each call's results may still be: unknown (so a message waiting for one holds the lines after it) until
    // the converter holds more than HELD_LINES, then searched for once in the whole file (resultOffsets).
    let offsets: ReadonlyMap<string, number> | undefined;
    const start = (): ClaudeCodeConverter => {
      if (opts.from === undefined) {
        const d = detectFormat({ kind: 'jsonl', lines: s.sample, bad: s.bad, total: s.sample.length + s.bad.length });
        if (!d.ok || d.format !== 'claude-code') throw new OtherFormat();
      }
      const c = new ClaudeCodeConverter(b, (id) => (offsets === undefined ? Number.POSITIVE_INFINITY : offsets.get(id)));
      for (const l of s.sample) c.line(l.n, l.value, l.end);
      s.sample.length = 0;
      return c;
    };
    const header = (): { id: string; cwd: string; title: string } | undefined => {
      const h = b.settled();
      return h === undefined ? undefined : { id: opts.sessionId, ...h };
    };
    let lines = 0;
    for await (const batch of lineBatches(handle, true)) {
      for (const l of batch) {
        const good = readLine(l, s);
        if (good === undefined) {
          const bad = s.bad[s.bad.length - 1];
          if (bad?.n === l.n) report.unreadable(bad.n, bad.error);
          continue;
        }
        lines++;
        if (converter) converter.line(good.n, good.value, good.end);
        else s.sample.push(good);
      }
      if (!converter && s.sample.length >= SAMPLE_LINES) converter = start();
      if (offsets === undefined && converter !== undefined && converter.backlog.lines > HELD_LINES) offsets = await resultOffsets(handle);
      if (w?.due === true) await w.flush(header);
    }
    if (s.nonBlank < 2) throw new NotLines();
    converter ??= start();
    converter.end();
    const finished = b.finish('end of file');
    repair?.end();
    if (b.count === 0) {
      const first = report.finishCounted('claude-code', inferred).dropped[0];
      const why = first === undefined ? '' : `; every record was skipped, e.g. ${first.what} (${first.why})`;
      throw new ImportError(`${FORMAT_NAMES['claude-code']}: no conversation found in ${lines + s.bad.length} lines${why}`);
    }
    const created = { id: opts.sessionId, cwd: finished.header.cwd, ...(finished.header.title === undefined ? {} : { title: finished.header.title }) };
    if (w === undefined || repair === undefined) {
      const result = { header: finished.header, entries: finished.entries, report: report.finish('claude-code', finished.entries) };
      const repairs = await writeImportedSession(output, result, (p) => opts.ids.next(p));
      return { report: result.report, entries: finished.entries.length, repairs };
    }
    await w.commit(output, created);
    return { report: report.finishCounted('claude-code', inferred), entries: b.count, repairs: repair.repairs };
  } finally {
    await writer?.abort();
    await handle.close();
  }
}

/**
 * Imports `input` as the new session `output` (which must not exist). A Claude Code session is read line by line
 * and written as it converts, so memory does not grow with the file; with sidechains it is read once more with its
 * entries kept. Any other format, or a file that is not JSON lines, is read whole by the in-memory importer.
 * Throws ImportError (a transcript problem) or ImportRefused (nothing could be written), each one line.
 */
export async function importSessionFile(input: string, output: string, opts: TranscriptImportOptions): Promise<SessionImport> {
  if (opts.from === undefined || opts.from === 'claude-code') {
    try {
      return await streamClaudeCode(input, output, opts, false);
    } catch (err) {
      if (err instanceof SidechainWhileStreaming) return streamClaudeCode(input, output, opts, true);
      if (!(err instanceof NotLines) && !(err instanceof OtherFormat)) throw err;
    }
  }
  const handle = await openRegularFile(input, 'input file');
  let text: string;
  try {
    text = (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
  const result = importTranscript(text, opts);
  const repairs = await writeImportedSession(output, result, (p) => opts.ids.next(p));
  return { report: result.report, entries: result.entries.length, repairs };
}
