// Pages a compaction's archived evidence for the model: the read_compaction_evidence tool, its arguments and page text (docs/behaviour.md#evidence).
import * as z from '../zod.js';
import type { EvidenceArchive, EvidenceSnapshot, ToolResult, ToolSchema } from '../ports.js';
import type { ModelMessage } from '../transcript/modelInput.js';

export const EVIDENCE_TOOL_NAME = 'read_compaction_evidence';
/** About 3k tokens of items per page: enough context per call without crowding the model's window. */
export const DEFAULT_EVIDENCE_PAGE_CHARS = 12_000;
/** Below this a page could not hold an item label plus a useful slice of text. */
const MIN_EVIDENCE_PAGE_CHARS = 1_000;
export const NO_EVIDENCE_MESSAGE = 'No compaction evidence: this session has no capsule yet.';
export const PROJECTION_LABEL = '(projection: truncated before archiving)';

const EVIDENCE_SECTIONS = ['excluded', 'summarizer_input'] as const;
type EvidenceSection = (typeof EVIDENCE_SECTIONS)[number];

/** A snapshot as the archive returns it; the extra field lives in the archive's own file format, not the port. */
export interface ArchivedEvidence extends EvidenceSnapshot {
  /** 0-based indexes over `excluded` then `summarizerInput` of items that were already truncated projections. */
  readonly truncatedItems?: readonly number[];
}

interface EvidenceArgs {
  readonly page?: number;
  /** An archived tool result (the id its capped result names) instead of the capsule's evidence. */
  readonly result?: string;
  readonly query?: string;
  readonly section?: EvidenceSection;
}

export interface EvidencePageOptions {
  /** Upper bound on the item text of one page (the header adds two or three short lines). */
  readonly pageChars: number;
}

export const READ_COMPACTION_EVIDENCE_TOOL: ToolSchema = {
  name: EVIDENCE_TOOL_NAME,
  description:
    'Read-only. Pages through the evidence archived for the capsule in force: the exact messages that compaction ' +
    'removed from your input ("excluded") and the input the summarizer read ("summarizer_input"). Use it when the ' +
    'capsule lacks a detail you need (an exact error, a value, a file excerpt). Items are numbered [#i role]; long ' +
    'items continue on the next page.',
  parameters: {
    type: 'object',
    properties: {
      page: { type: 'integer', minimum: 1, description: 'Page number, starting at 1 (default 1).' },
      query: { type: 'string', description: 'Only items containing this text (case-insensitive).' },
      section: { type: 'string', enum: [...EVIDENCE_SECTIONS], description: 'Only this part of the archive (default: both).' },
      result: {
        type: 'string',
        description: 'The id of an archived tool result that was shortened when it was made (its note names it); pages through that exact original instead.',
      },
    },
    additionalProperties: false,
  },
};

/** A bad argument or page number; its message is written for the model. */
class EvidenceArgsError extends Error {
  override readonly name = 'EvidenceArgsError';
}

/** Ids of tool results archived whole when they were made (`res_` + letters, digits, `_`). */
const ARCHIVED_RESULT_ID = /^res_[A-Za-z0-9_]{1,80}$/;

// Lenient at the edge: small models often send "2" for 2 or null for an omitted argument.
const nullToUndefined = (v: unknown): unknown => (v === null ? undefined : v);
const ArgsSchema = z.strictObject({
  page: z.pipe(
    z.transform((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : nullToUndefined(v))),
    z.optional(z.number().check(z.int(), z.gte(1))),
  ),
  query: z.pipe(z.transform(nullToUndefined), z.optional(z.string().check(z.maxLength(1_000)))),
  section: z.pipe(z.transform(nullToUndefined), z.optional(z.enum(EVIDENCE_SECTIONS))),
  result: z.pipe(z.transform(nullToUndefined), z.optional(z.string().check(z.regex(ARCHIVED_RESULT_ID)))),
});

/** Parses the tool's JSON arguments; throws EvidenceArgsError with a message for the model. */
function parseEvidenceArgs(argsJson: string): EvidenceArgs {
  let raw: unknown = {};
  if (argsJson.trim() !== '') {
    try {
      raw = JSON.parse(argsJson);
    } catch {
      throw new EvidenceArgsError(`Invalid arguments for ${EVIDENCE_TOOL_NAME}: not valid JSON. Example: {"page": 2, "query": "TypeError"}`);
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new EvidenceArgsError(`Invalid arguments for ${EVIDENCE_TOOL_NAME}: expected a JSON object with optional page, query, section.`);
  }
  const parsed = ArgsSchema.safeParse(raw);
  if (!parsed.success) {
    const what = parsed.error.issues.slice(0, 3).map((i) => {
      if (i.code === 'unrecognized_keys') return `unknown argument ${i.keys.map((k) => `"${k}"`).join(', ')} (allowed: page, query, section, result)`;
      const key = i.path.map(String).join('.');
      if (key === 'page') return 'page must be an integer of at least 1';
      if (key === 'section') return `section must be one of ${EVIDENCE_SECTIONS.map((s) => `"${s}"`).join(', ')}`;
      if (key === 'query') return 'query must be a string of at most 1000 characters';
      if (key === 'result') return 'result must be an id like "res_…" named by a shortened tool result';
      return `${key}: ${i.message}`;
    });
    throw new EvidenceArgsError(`Invalid arguments for ${EVIDENCE_TOOL_NAME}: ${what.join('; ')}.`);
  }
  const { page, query, section, result } = parsed.data;
  const q = query?.trim();
  return {
    ...(page === undefined ? {} : { page }),
    ...(result === undefined ? {} : { result }),
    ...(q === undefined || q === '' ? {} : { query: q }),
    ...(section === undefined ? {} : { section }),
  };
}

// Matches the markers truncateToolResult inserts (`[... N lines truncated ...]`, `[... N characters truncated ...]`).
const TRUNCATION_MARKER = /^\[\.\.\. \d+ (?:lines|characters) truncated \.\.\.\]$/m;

/** Indexes (over excluded then summarizerInput) of tool results that carry the truncation marker. */
export function detectTruncatedItems(snapshot: EvidenceSnapshot): number[] {
  const out: number[] = [];
  [...snapshot.excluded, ...snapshot.summarizerInput].forEach((m, i) => {
    // The literal part first: the line-anchored pattern is costly over megabytes of results that have no marker.
    if (m.role === 'tool' && m.content.includes(' truncated ...]') && TRUNCATION_MARKER.test(m.content)) out.push(i);
  });
  return out;
}

interface Chunk {
  readonly section: EvidenceSection;
  readonly text: string;
}

/** The text of a message as the model reads it in a page; images are noted, never inlined. */
export function evidenceMessageText(m: ModelMessage): string {
  switch (m.role) {
    case 'user': {
      const n = m.images?.length ?? 0;
      return n === 0 ? m.content : `${m.content}\n[${n} image${n === 1 ? '' : 's'} not shown]`;
    }
    case 'assistant':
      return [m.content, ...(m.toolCalls ?? []).map((c) => `→ ${c.name}(${c.arguments}) [call ${c.id}]`)].filter((s) => s !== '').join('\n');
    case 'tool':
      return m.content;
  }
}

function shortId(id: string): string {
  return id.length > 64 ? `${id.slice(0, 63)}…` : id;
}

/** Labels stay under this, so a piece of `pageChars - LABEL_RESERVE` always fits a page with its label. */
const LABEL_RESERVE = 200;

/** Splits text into pieces of at most `size` code units, preferring line breaks and never halving a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  let rest = text;
  while (rest.length > size) {
    let cut = size;
    const nl = rest.lastIndexOf('\n', size - 1);
    if (nl >= size / 2) cut = nl + 1;
    else if (/[\uDC00-\uDFFF]/.test(rest.charAt(cut))) cut -= 1;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

function itemChunks(args: EvidenceArgs, snapshot: ArchivedEvidence, pageChars: number): { chunks: Chunk[]; matched: number } {
  const truncated = new Set(snapshot.truncatedItems ?? []);
  const query = args.query?.toLowerCase();
  const all = [
    ...snapshot.excluded.map((m) => ({ m, section: 'excluded' as const })),
    ...snapshot.summarizerInput.map((m) => ({ m, section: 'summarizer_input' as const })),
  ];
  const chunks: Chunk[] = [];
  let matched = 0;
  all.forEach(({ m, section }, i) => {
    if (args.section !== undefined && args.section !== section) return;
    const text = evidenceMessageText(m);
    if (query !== undefined && !text.toLowerCase().includes(query)) return;
    matched++;
    const who = m.role === 'tool' ? `tool ${shortId(m.toolCallId)}` : m.role;
    const note = truncated.has(i) ? ` ${PROJECTION_LABEL}` : '';
    const pieces = splitText(text, pageChars - LABEL_RESERVE);
    pieces.forEach((piece, k) => {
      const part = pieces.length > 1 ? `, part ${k + 1} of ${pieces.length}` : '';
      chunks.push({ section, text: `[#${i + 1} ${who}${part}]${note} ${piece}` });
    });
  });
  return { chunks, matched };
}

function packPages(chunks: readonly Chunk[], pageChars: number): Chunk[][] {
  const pages: Chunk[][] = [];
  let page: Chunk[] = [];
  let used = 0;
  for (const c of chunks) {
    // Items on a page are separated by a blank line (2 characters).
    if (page.length > 0 && used + 2 + c.text.length > pageChars) {
      pages.push(page);
      page = [];
      used = 0;
    }
    used += (page.length > 0 ? 2 : 0) + c.text.length;
    page.push(c);
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

function range(from: number, count: number): string {
  if (count === 0) return '(none)';
  return count === 1 ? `#${from}` : `#${from}–#${from + count - 1}`;
}

const SECTION_TITLES: Readonly<Record<EvidenceSection, string>> = {
  excluded: '== excluded: messages removed from the model input ==',
  summarizer_input: '== summarizer_input: what the summarizer read ==',
};

/**
 * One page of evidence as text for the model. Every matching item appears exactly once across the
 * pages (long items as consecutive parts). Throws EvidenceArgsError for a page out of range.
 */
function pageEvidence(snapshot: ArchivedEvidence, args: EvidenceArgs, opts: EvidencePageOptions): string {
  const pageChars = Math.max(MIN_EVIDENCE_PAGE_CHARS, Math.floor(opts.pageChars));
  const { chunks, matched } = itemChunks(args, snapshot, pageChars);
  const pages = packPages(chunks, pageChars);
  const total = Math.max(1, pages.length);
  const n = args.page ?? 1;
  if (n > total) {
    throw new EvidenceArgsError(`Page ${n} is out of range: this evidence has ${total} page${total === 1 ? '' : 's'} with these filters (page 1 to ${total}).`);
  }
  const e = snapshot.excluded.length;
  const s = snapshot.summarizerInput.length;
  const lines = [
    `Evidence for checkpoint ${snapshot.checkpointId} (compaction ${snapshot.operationId}), page ${n} of ${total}`,
    `Archived ${snapshot.createdAt}. Items: excluded ${range(1, e)}, summarizer_input ${range(e + 1, s)}.`,
  ];
  const filters = [
    ...(args.section === undefined ? [] : [`section ${args.section}`]),
    ...(args.query === undefined ? [] : [`query ${JSON.stringify(args.query)}`]),
  ];
  if (filters.length > 0) lines.push(`Filter: ${filters.join(', ')}: ${matched} of ${e + s} items match.`);
  const page = pages[n - 1];
  if (page === undefined) {
    lines.push('', filters.length > 0 ? 'No items match these filters.' : 'This archive holds no items.');
    return lines.join('\n');
  }
  let section: EvidenceSection | undefined;
  for (const c of page) {
    if (c.section !== section) {
      lines.push('', SECTION_TITLES[c.section]);
      section = c.section;
    }
    lines.push('', c.text);
  }
  if (n < total) lines.push('', `(More: call ${EVIDENCE_TOOL_NAME} with page ${n + 1}${filters.length > 0 ? ' and the same filters' : ''}.)`);
  return lines.join('\n');
}

/** The archived result a call asks for, when its arguments parse and name one. */
function archivedResultId(argsJson: string): string | undefined {
  try {
    return parseEvidenceArgs(argsJson).result;
  } catch {
    return undefined;
  }
}

/** The tool call: parses arguments and pages the installed capsule's evidence; errors become tool errors. */
export function runEvidenceTool(snapshot: ArchivedEvidence | undefined, argsJson: string, opts: EvidencePageOptions): ToolResult {
  if (snapshot === undefined) return { isError: true, content: NO_EVIDENCE_MESSAGE };
  try {
    return { isError: false, content: pageEvidence(snapshot, parseEvidenceArgs(argsJson), opts) };
  } catch (err) {
    if (err instanceof EvidenceArgsError) return { isError: true, content: err.message };
    throw err;
  }
}

/**
 * Loads the evidence of `operationId` (the capsule in force) and runs the tool. A missing or unreadable
 * snapshot is a tool error; archive messages never carry file paths, so nothing of the disk leaks.
 */
export async function runEvidenceToolFromArchive(
  archive: EvidenceArchive,
  operationId: string | undefined,
  argsJson: string,
  opts: EvidencePageOptions,
): Promise<ToolResult> {
  const archived = archivedResultId(argsJson);
  if (archived !== undefined) {
    const snap = await archive.load(archived).catch(() => undefined);
    if (snap === undefined) return { isError: true, content: `No archived tool result "${archived}" in this session.` };
    return runEvidenceTool(snap, argsJson, opts);
  }
  if (operationId === undefined) return runEvidenceTool(undefined, argsJson, opts);
  let snapshot: ArchivedEvidence | undefined;
  try {
    snapshot = await archive.load(operationId);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { isError: true, content: `The compaction evidence could not be read: ${why}` };
  }
  if (snapshot === undefined) return { isError: true, content: `No compaction evidence was archived for the capsule in force (compaction ${operationId}).` };
  return runEvidenceTool(snapshot, argsJson, opts);
}
