// The retention report of a compaction: which file paths, commands, error lines and named identifiers of the summarized span survive in capsule, ledger and retained tail.
import * as z from '../zod.js';
import { personText } from '../effects/personText.js';
import type { Entry } from '../transcript/schema.js';
import { pathsMentioned, SECTION_NAMES } from './capsuleFormat.js';
import { pathsRelativeTo } from './ledger.js';
import { code } from './ledgerFormat.js';
import { actionFiles, commandSucceeded, toolActionsOf } from './toolActions.js';

/** Where the report lives inside `CapsuleEntry.details`. */
export const RETENTION_DETAILS_KEY = 'retention';
/** Dropped items kept per category (the counts stay exact). */
const MAX_DROPPED_LISTED = 50;
/** Facts appended to a capsule whose summary and shown ledger lost them, per kind. */
const MAX_APPENDED = 40;
const MATCH_CHARS = 120;
const SECTION_COUNT = SECTION_NAMES.length;

export const RETENTION_CATEGORIES = ['files', 'commands', 'errors', 'identifiers'] as const;
export type RetentionCategory = (typeof RETENTION_CATEGORIES)[number];

const CategorySchema = z.object({
  total: z.number().check(z.int(), z.nonnegative()),
  kept: z.number().check(z.int(), z.nonnegative()),
  dropped: z._default(z.array(z.string()), []),
});
type CategoryRetention = z.infer<typeof CategorySchema>;

const RetentionSchema = z.object({
  files: CategorySchema,
  commands: CategorySchema,
  errors: CategorySchema,
  identifiers: CategorySchema,
  /** Files and commands the summary lost that were appended to the capsule from the transcript. */
  appended: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /** The capsule sections the model wrote; the others were filled from the ledger. Absent on capsules made before this was recorded. */
  sectionsFromModel: z.optional(z.array(z.string())),
});
export type Retention = z.infer<typeof RetentionSchema>;

export function retentionFromDetails(details: Readonly<Record<string, unknown>> | undefined): Retention | undefined {
  const r = RetentionSchema.safeParse(details?.[RETENTION_DETAILS_KEY]);
  return r.success ? r.data : undefined;
}

/**
 * What mattered in a span, mechanically:
 * - files: every path a tool call read, changed, created, deleted or renamed, and every file path the person named;
 * - commands: every command run;
 * - errors: for every failed call, its first line that reads as an error (else its first line);
 * - identifiers: code-like names and numbers the person wrote (`backticked`, camelCase, snake_case, #123, 2.1.0, 3+ digits).
 */
export interface SpanFacts {
  readonly files: readonly string[];
  readonly commands: readonly string[];
  readonly errors: readonly string[];
  readonly identifiers: readonly string[];
}

const ERROR_LINE = /error|exception|traceback|failed|failure|fatal|denied|not found|no such file|cannot|could not|panic|assert/i;

function errorLine(content: string): string | undefined {
  const lines = content
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^<\/?(?:returncode|output|tool_use_error)>$/.test(l));
  const line = lines.find((l) => ERROR_LINE.test(l)) ?? lines[0];
  return line === undefined ? undefined : line.replace(/^<tool_use_error>|<\/tool_use_error>$/g, '').slice(0, MATCH_CHARS);
}

function identifiersIn(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\n]{2,80})`/g)) if (m[1] !== undefined) out.add(m[1].trim());
  for (const m of text.matchAll(/(?<![\w./-])(?:[a-z]+[A-Z]\w*|[A-Za-z]+_[A-Za-z0-9_]+|[A-Z][a-z]+[A-Z]\w*)(?![\w/])/g)) out.add(m[0]);
  for (const m of text.matchAll(/(?<![\w.])(?:#\d+|v?\d+\.\d+\.\d+|\d{3,})(?![\w.])/g)) out.add(m[0]);
  return [...out].filter((s) => s.length >= 2);
}

export function spanFacts(span: readonly Entry[], root?: string): SpanFacts {
  const files = new Set<string>();
  const commands = new Set<string>();
  const errors = new Set<string>();
  const identifiers = new Set<string>();
  const rel = pathsRelativeTo(root);
  for (const a of toolActionsOf(span)) {
    const f = actionFiles(a);
    for (const p of [...f.created, ...f.modified, ...f.deleted, ...f.read, ...f.renamed.map((r) => r.to)]) files.add(rel(p));
    if (a.command !== undefined) commands.add(a.command);
    if (a.result && commandSucceeded(a) === false) {
      const line = errorLine(a.result.content);
      if (line !== undefined) errors.add(line);
    }
  }
  for (const e of span) {
    if (e.type !== 'user') continue;
    const t = personText(e);
    if (t === null) continue;
    for (const p of pathsMentioned(t)) files.add(rel(p));
    for (const id of identifiersIn(t)) if (!files.has(id)) identifiers.add(id);
  }
  return { files: [...files], commands: [...commands], errors: [...errors], identifiers: [...identifiers] };
}

/** The text a reader would search for: commands and errors by their first line, as the ledger shows them. */
function needle(item: string, kind: RetentionCategory): string {
  if (kind !== 'commands') return item;
  return item.replace(/\r?\n/g, ' ⏎ ').slice(0, MATCH_CHARS);
}

function measure(items: readonly string[], kind: RetentionCategory, haystack: string): CategoryRetention {
  const dropped = items.filter((i) => !haystack.includes(needle(i, kind)));
  return { total: items.length, kept: items.length - dropped.length, dropped: dropped.slice(0, MAX_DROPPED_LISTED) };
}

/** Measures `facts` against the capsule text and the retained tail's text. */
export function measureRetention(facts: SpanFacts, capsuleText: string, tailText: string, appended = 0): Retention {
  const haystack = `${capsuleText}\n${tailText}`;
  return {
    files: measure(facts.files, 'files', haystack),
    commands: measure(facts.commands, 'commands', haystack),
    errors: measure(facts.errors, 'errors', haystack),
    identifiers: measure(facts.identifiers, 'identifiers', haystack),
    appended,
  };
}

/**
 * The capsule text with the ledger facts (files, commands) that neither the summary nor the shown ledger nor the
 * tail kept appended at the end, so no fact of the transcript is lost to the model; `appended` counts them.
 */
export function withLostFacts(capsuleText: string, facts: SpanFacts, tailText: string): { text: string; appended: number } {
  const r = measureRetention(facts, capsuleText, tailText);
  const lostFiles = facts.files.filter((f) => r.files.dropped.includes(f)).slice(0, MAX_APPENDED);
  const lostCommands = facts.commands.filter((c) => r.commands.dropped.includes(c)).slice(0, MAX_APPENDED);
  if (lostFiles.length + lostCommands.length === 0) return { text: capsuleText, appended: 0 };
  const lines = ['', '**Also in the summarized span** (the summary and the lists above left these out):'];
  for (const f of lostFiles) lines.push(`- file ${code(f)}`);
  for (const c of lostCommands) lines.push(`- command ${code(needle(c, 'commands'))}`);
  return { text: `${capsuleText.trimEnd()}\n${lines.join('\n')}\n`, appended: lostFiles.length + lostCommands.length };
}

/** "files 100% · commands 100% · errors 6/7 · identifiers 3/4": percentages when all survive, fractions otherwise. */
export function retentionLine(r: Retention): string {
  const part = (name: string, c: CategoryRetention): string | undefined =>
    c.total === 0 ? undefined : c.kept === c.total ? `${name} 100%` : `${name} ${c.kept}/${c.total}`;
  const parts = [part('files', r.files), part('commands', r.commands), part('errors', r.errors), part('identifiers', r.identifiers)].filter(
    (p): p is string => p !== undefined,
  );
  const facts = parts.length === 0 ? 'nothing to retain' : parts.join(' · ');
  const own = r.sectionsFromModel;
  // Which sections the model wrote, so a partial capsule says what came from the ledger instead.
  if (own === undefined || own.length === SECTION_COUNT) return facts;
  return `${facts} · summary sections from the model: ${own.length === 0 ? 'none' : own.join(', ')} (${own.length}/${SECTION_COUNT}; the rest from the ledger)`;
}

/** Only the counts: flight records never carry content. */
export function retentionCounts(r: Retention): Record<RetentionCategory, { total: number; kept: number }> & { appended: number } {
  return {
    files: { total: r.files.total, kept: r.files.kept },
    commands: { total: r.commands.total, kept: r.commands.kept },
    errors: { total: r.errors.total, kept: r.errors.kept },
    identifiers: { total: r.identifiers.total, kept: r.identifiers.kept },
    appended: r.appended,
  };
}
