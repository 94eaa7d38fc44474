// `capsule import`'s engine: detects the format (or takes --from), converts, and reports what was kept, inferred and dropped.
import type { IdSource } from '../ports.js';
import { importOpenAIMessages, parseOpenAIMessages } from '../transcript/importOpenAI.js';
import type { Entry, SessionHeader } from '../transcript/schema.js';
import { convertAnthropic } from './anthropic.js';
import { ImportBuilder } from './builder.js';
import { convertClaudeCode } from './claudeCode.js';
import { convertCodex } from './codex.js';
import { detectFormat } from './detect.js';
import { ImportError, parseInput, type Parsed } from './input.js';
import { FORMAT_NAMES, IMPORT_FORMATS, ReportBuilder, type ImportFormat, type ImportReport } from './report.js';
import { personTextOf } from '../effects/personText.js';
import { convertMiniSweAgent, convertSweAgent } from './sweAgent.js';

export { ImportError } from './input.js';

export interface TranscriptImportOptions {
  readonly sessionId: string;
  /** Used when the transcript names no working directory. */
  readonly cwd: string;
  readonly now: string;
  readonly ids: IdSource;
  readonly model?: string;
  /** Skips detection (`--from`). */
  readonly from?: ImportFormat;
}

export interface TranscriptImport {
  readonly header: SessionHeader;
  readonly entries: readonly Entry[];
  readonly report: ImportReport;
}

export function isImportFormat(s: string): s is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(s);
}

function firstBadLine(p: Parsed): string {
  if (p.kind === 'text') return `line ${p.line}: ${p.error}`;
  if (p.kind === 'jsonl' && p.bad[0] !== undefined) return `line ${p.bad[0].n}: ${p.bad[0].error}`;
  return '';
}

/** JSON lines formats; the rest are one JSON document. */
const LINE_FORMATS: ReadonlySet<ImportFormat> = new Set(['claude-code', 'codex']);

function linesOf(p: Parsed, format: ImportFormat): readonly { readonly n: number; readonly value: unknown }[] {
  if (p.kind === 'jsonl') return p.lines;
  if (p.kind === 'json' && format === 'codex' && Array.isArray(p.value)) return p.value.map((value, i) => ({ n: i + 1, value }));
  throw new ImportError(
    `expected ${FORMAT_NAMES[format]} (one JSON object per line), but the file is ${p.kind === 'json' ? 'a single JSON document' : 'not JSON'}${p.kind === 'text' ? ` (${firstBadLine(p)})` : ''}`,
  );
}

function docOf(p: Parsed, format: ImportFormat): unknown {
  if (p.kind === 'json') return p.value;
  if (p.kind === 'jsonl' && (format === 'anthropic' || format === 'openai')) return p.lines.map((l) => l.value);
  throw new ImportError(
    `expected ${FORMAT_NAMES[format]} (one JSON document), but ${p.kind === 'jsonl' ? 'the file has one JSON value per line' : firstBadLine(p)}`,
  );
}

function importOpenAI(text: string, opts: TranscriptImportOptions, report: ReportBuilder): { header: SessionHeader; entries: Entry[] } {
  const parsed = parseOpenAIMessages(text);
  if (!parsed.ok) throw new ImportError(`${FORMAT_NAMES.openai}: ${parsed.error}`);
  const r = importOpenAIMessages(parsed.messages, {
    sessionId: opts.sessionId,
    cwd: opts.cwd,
    now: opts.now,
    ids: opts.ids,
    ...(opts.model === undefined ? {} : { model: opts.model }),
  });
  const c = report.counts;
  // A call id used again in a later turn would pair the later result with the earlier call: rename the repeat.
  const used = new Set<string>();
  const current = new Map<string, string>();
  const unique = r.entries.map((e): Entry => {
    if (e.type === 'assistant' && e.toolCalls.length > 0) {
      const toolCalls = e.toolCalls.map((call) => {
        let id = call.id;
        for (let n = 2; used.has(id); n++) id = `${call.id}_${n}`;
        if (id !== call.id) c.renamedIds++;
        used.add(id);
        current.set(call.id, id);
        return id === call.id ? call : { ...call, id };
      });
      return { ...e, toolCalls };
    }
    if (e.type === 'tool_result') {
      const id = current.get(e.toolCallId);
      return id === undefined || id === e.toolCallId ? e : { ...e, toolCallId: id };
    }
    return e;
  });
  const entries = unique.map((e): Entry => {
    if (e.type === 'user') {
      c.userTurns++;
      if (personTextOf(e.content) === null) {
        c.injectedTurns++;
        return { ...e, injected: true };
      }
    } else if (e.type === 'assistant') {
      c.assistantTurns++;
      c.toolCalls += e.toolCalls.length;
      if (e.reasoningContent !== undefined) c.reasoning++;
    } else if (e.type === 'tool_result') c.toolResults++;
    else if (e.type === 'system_update') c.systemMessages++;
    return e;
  });
  for (const w of r.warnings) report.warn(w);
  return { header: r.header, entries };
}

/**
 * Converts `text` into a session. Throws ImportError with one clear line for an unknown or broken format (naming
 * the format it looked like and the first line it could not read); lines it skips are listed in the report.
 */
export function importTranscript(text: string, opts: TranscriptImportOptions): TranscriptImport {
  const parsed = parseInput(text);
  let format: ImportFormat;
  if (opts.from !== undefined) format = opts.from;
  else {
    const d = detectFormat(parsed);
    if (!d.ok) {
      const bad = firstBadLine(parsed);
      throw new ImportError(
        `not a transcript format Capsule knows (${IMPORT_FORMATS.join(', ')}): it looked like ${d.lookedLike}${bad === '' ? '' : `; first unreadable ${bad}`}`,
      );
    }
    format = d.format;
  }
  const report = new ReportBuilder();
  if (parsed.kind === 'jsonl') for (const bad of parsed.bad) report.unreadable(bad.n, bad.error);
  if (parsed.kind === 'jsonl' && parsed.bad.length > 0 && parsed.bad.length === parsed.total)
    throw new ImportError(`no line could be read (${firstBadLine(parsed)})`);
  if (format === 'openai') {
    const r = importOpenAI(text, opts, report);
    return { ...r, report: report.finish(format, r.entries) };
  }
  const b = new ImportBuilder(
    { sessionId: opts.sessionId, cwd: opts.cwd, now: opts.now, ids: opts.ids, ...(opts.model === undefined ? {} : { model: opts.model }) },
    report,
  );
  try {
    if (format === 'claude-code') convertClaudeCode(linesOf(parsed, format), b);
    else if (format === 'codex') convertCodex(linesOf(parsed, format), b);
    else if (format === 'anthropic') convertAnthropic(docOf(parsed, format), b);
    else if (format === 'swe-agent') convertSweAgent(docOf(parsed, format), b);
    else convertMiniSweAgent(docOf(parsed, format), b);
  } catch (err) {
    if (err instanceof ImportError) throw new ImportError(`${FORMAT_NAMES[format]}: ${err.message}`);
    throw err;
  }
  const { header, entries } = b.finish('end of file');
  if (entries.length === 0) {
    const first = report.finish(format, entries).dropped[0];
    const why = first === undefined ? '' : `; every record was skipped, e.g. ${first.what} (${first.why})`;
    throw new ImportError(
      `${FORMAT_NAMES[format]}: no conversation found${LINE_FORMATS.has(format) && parsed.kind === 'jsonl' ? ` in ${parsed.total} lines` : ''}${why}`,
    );
  }
  return { header, entries, report: report.finish(format, entries) };
}
