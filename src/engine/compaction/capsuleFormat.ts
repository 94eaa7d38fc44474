// The capsule's seven sections (docs/behaviour.md#capsule): rendering to markdown and tolerant parsing of what a model writes.
import type { Ledger } from './ledger.js';
import { code, renderLedger } from './ledgerFormat.js';

export const SECTION_NAMES = ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context', 'Relevant Files'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];
export type Sections = Readonly<Record<SectionName, string>>;

export interface CapsuleContent {
  readonly sections: Sections;
  readonly ledger: Ledger;
  readonly quality: 'full' | 'partial' | 'degraded';
  /** Why the deterministic fallback was used (degraded capsules). */
  readonly degradedReason?: string;
  /** Paths the model's text named that neither the ledger nor the transcript contains. */
  readonly flaggedPaths?: readonly string[];
}

export interface ParsedSections {
  readonly sections: Partial<Record<SectionName, string>>;
  /** Sections absent or empty, in canonical order. */
  readonly missing: SectionName[];
  /** Text before the first recognized heading (a title, or prose from a model that ignored the format). */
  readonly preamble: string;
}

/** Heading texts a model plausibly writes, lower-cased, '&' spelled 'and', numbering and "(...)" removed. */
const ALIASES: Readonly<Record<string, SectionName | 'Ledger'>> = {
  goal: 'Goal',
  goals: 'Goal',
  objective: 'Goal',
  objectives: 'Goal',
  task: 'Goal',
  'the task': 'Goal',
  'task description': 'Goal',
  'primary request': 'Goal',
  'primary request and intent': 'Goal',
  'user request': 'Goal',
  'user goal': 'Goal',
  'overall goal': 'Goal',
  'constraints and preferences': 'Constraints & Preferences',
  constraints: 'Constraints & Preferences',
  preferences: 'Constraints & Preferences',
  'preferences and constraints': 'Constraints & Preferences',
  'user preferences': 'Constraints & Preferences',
  requirements: 'Constraints & Preferences',
  progress: 'Progress',
  'progress so far': 'Progress',
  'current progress': 'Progress',
  'current state': 'Progress',
  'current status': 'Progress',
  status: 'Progress',
  'work done': 'Progress',
  'work completed': 'Progress',
  'what was done': 'Progress',
  'completed work': 'Progress',
  accomplished: 'Progress',
  'key decisions': 'Key Decisions',
  decisions: 'Key Decisions',
  'decisions made': 'Key Decisions',
  'important decisions': 'Key Decisions',
  'technical decisions': 'Key Decisions',
  'next steps': 'Next Steps',
  'next step': 'Next Steps',
  'next actions': 'Next Steps',
  'remaining work': 'Next Steps',
  'remaining tasks': 'Next Steps',
  'pending tasks': 'Next Steps',
  todo: 'Next Steps',
  'to do': 'Next Steps',
  'critical context': 'Critical Context',
  'important context': 'Critical Context',
  'key context': 'Critical Context',
  context: 'Critical Context',
  notes: 'Critical Context',
  'important notes': 'Critical Context',
  'errors and fixes': 'Critical Context',
  'open questions': 'Critical Context',
  'relevant files': 'Relevant Files',
  files: 'Relevant Files',
  'key files': 'Relevant Files',
  'files and code sections': 'Relevant Files',
  'files touched': 'Relevant Files',
  'files modified': 'Relevant Files',
  'modified files': 'Relevant Files',
  'relevant files and code': 'Relevant Files',
  ledger: 'Ledger',
};

function canonicalHeading(text: string): SectionName | 'Ledger' | undefined {
  const key = text
    .replace(/^(?:\d{1,2}|[ivx]{1,4})[.):]\s+/i, '')
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/\s*:\s*$/, '')
    .replace(/&/g, ' and ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return ALIASES[key];
}

interface Heading {
  readonly name: SectionName | 'Ledger';
  /** Text after an inline label such as `**Goal:** ship it`; it starts the section's body. */
  readonly rest: string;
}

function headingParts(line: string): Heading | undefined {
  const t = line.trim();
  const found = (label: string, rest = ''): Heading | undefined => {
    const name = canonicalHeading(label);
    return name === undefined ? undefined : { name, rest };
  };
  const hashes = /^#{1,6}\s+(.*?)(?:\s+#+)?$/.exec(t);
  if (hashes?.[1] !== undefined) return found(hashes[1].replace(/^(\*\*|__)(.*)\1:?$/, '$2'));
  const bold = /^(\*\*|__)(.+?)\1:?$/.exec(t);
  if (bold?.[2] !== undefined) return found(bold[2]);
  // `**Goal:** text` or `**Goal**: text`: the colon keeps ordinary bold phrases in prose from matching.
  const label = /^(\*\*|__)([^*_]+?)(?::\1|\1:)\s+(\S.*)$/.exec(t);
  if (label?.[2] !== undefined && label[3] !== undefined) return found(label[2], label[3]);
  const bare = /^(.+):$/.exec(t);
  if (bare?.[1] !== undefined) {
    const name = bare[1].replace(/^(?:\d{1,2}|[ivx]{1,4})[.)]\s+/i, '');
    if ((SECTION_NAMES as readonly string[]).includes(name) || name === 'Ledger') return found(name);
  }
  return undefined;
}

/**
 * The section a line opens, if it is a heading: `#`..`######` headings, a whole-line bold
 * `**Goal**` / `__Goal:__`, an inline bold label `**Goal:** text`, or a bare `Goal:` line spelled
 * exactly as the canonical name.
 */
export function headingOf(line: string): SectionName | 'Ledger' | undefined {
  return headingParts(line)?.name;
}

// A body line that would read as a heading gets one more leading backslash when rendered, and loses
// one when parsed, so any body survives render → parse unchanged.
const unescaped = (line: string): string => line.replace(/^\\+/, '');
const needsEscape = (line: string): boolean => headingOf(unescaped(line)) !== undefined;

/** The canonical form of a section body: LF line ends, no surrounding whitespace. */
export function normalizeBody(body: string): string {
  return body.replace(/\r\n?/g, '\n').trim();
}

function escapeBody(body: string): string {
  return normalizeBody(body)
    .split('\n')
    .map((l) => (needsEscape(l) ? `\\${l}` : l))
    .join('\n');
}

/** Markdown: an optional degraded note, the seven `##` sections in order, then the exact ledger. */
export function renderCapsule(c: CapsuleContent): string {
  const parts: string[] = [];
  if (c.quality === 'degraded') {
    const why = c.degradedReason ? ` (${c.degradedReason.replace(/\s+/g, ' ').trim()})` : '';
    parts.push(`> Degraded capsule: built locally from the transcript because the model summary was unavailable${why}.`);
  }
  for (const name of SECTION_NAMES) parts.push(`## ${name}\n${escapeBody(c.sections[name])}`);
  parts.push(renderLedger(c.ledger, c.flaggedPaths ?? []));
  return `${parts.join('\n\n')}\n`;
}

/** Splits markdown into the seven sections; everything under a Ledger heading is dropped (code appends the real one). */
export function parseCapsuleSections(markdown: string): ParsedSections {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const bodies = new Map<SectionName, string[]>();
  const preamble: string[] = [];
  let target: string[] | undefined = preamble;
  for (const line of lines) {
    const h = headingParts(line);
    if (h?.name === 'Ledger') {
      target = undefined;
      continue;
    }
    if (h !== undefined) {
      const existing = bodies.get(h.name);
      target = existing ?? [];
      if (existing)
        target.push(''); // a repeated heading continues the same section
      else bodies.set(h.name, target);
      if (h.rest !== '') target.push(h.rest);
      continue;
    }
    target?.push(line.startsWith('\\') && needsEscape(line) ? line.slice(1) : line);
  }
  const sections: Partial<Record<SectionName, string>> = {};
  const missing: SectionName[] = [];
  for (const name of SECTION_NAMES) {
    const body = bodies.get(name);
    if (body !== undefined) sections[name] = normalizeBody(body.join('\n'));
    if (!sections[name]) missing.push(name);
  }
  return { sections, missing, preamble: normalizeBody(preamble.join('\n')) };
}

/** Below this a capsule is a truncated or empty answer: the headings and ledger alone take ~60 tokens. */
export const CAPSULE_MIN_TOKENS = 64;
/** Capsules are ~2–10k tokens (docs/behaviour.md#capsule); a larger one eats the room compaction was meant to free. */
export const CAPSULE_MAX_TOKENS = 10_000;
const MAX_FILLED_FILES = 50;
const MAX_FILLED_REQUEST_CHARS = 1500;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

function fileLines(paths: readonly string[], label: string): string[] {
  const shown = paths.slice(0, MAX_FILLED_FILES).map((p) => `- ${code(p)} (${label})`);
  return paths.length > MAX_FILLED_FILES ? [...shown, `- ... and ${paths.length - MAX_FILLED_FILES} more (${label})`] : shown;
}

/** Section texts derived from the ledger alone: what a missing section falls back to. */
export function sectionsFromLedger(ledger: Ledger): Sections {
  const v = ledger.lastVerification;
  const failedVerification = v !== null && !v.passed;
  const failed = ledger.commands.filter((c) => c.ok === false && c.denied !== true).slice(-10);
  const denied = ledger.commands.filter((c) => c.denied === true).slice(-10);
  const readOnly = ledger.filesRead.filter((p) => !ledger.filesModified.includes(p));
  const latest = ledger.latestRequest === null ? undefined : oneLine(ledger.latestRequest, 300);
  const goal =
    ledger.originalTask === null
      ? 'Not recorded.'
      : `The user's original request (verbatim in the ledger):\n\n${ledger.originalTask.length > MAX_FILLED_REQUEST_CHARS ? `${ledger.originalTask.slice(0, MAX_FILLED_REQUEST_CHARS)}…` : ledger.originalTask}`;
  const commandCount = ledger.commands.length + ledger.commandsOmitted;
  return {
    Goal: goal,
    'Constraints & Preferences': 'None recorded in the summary; the user requests quoted in the ledger are verbatim and take precedence.',
    Progress: [
      '### Done',
      ledger.filesModified.length > 0 ? `- Modified ${ledger.filesModified.length} file(s); see Relevant Files.` : '- No file changes recorded.',
      commandCount > 0 ? `- Ran ${commandCount} command(s); see the ledger.` : '- No commands recorded.',
      '### In progress',
      latest === undefined ? '- Nothing recorded.' : `- The latest user request: ${latest}`,
      '### Blocked',
      failedVerification ? `- The last verification failed: ${code(v.command)}` : '- Nothing recorded.',
    ].join('\n'),
    'Key Decisions': 'None recorded in the summary.',
    'Next Steps': [
      latest === undefined ? '- Ask the user what to do next.' : '- Continue with the latest user request (verbatim in the ledger).',
      ...(failedVerification ? [`- Fix the failure reported by ${code(v.command)} and run it again.`] : []),
    ].join('\n'),
    'Critical Context': [
      v === null ? '- No verification run recorded.' : `- Last verification: ${code(v.command)} ${v.passed ? 'passed' : 'failed'}.`,
      ...failed.map((c) => `- Failed: ${code(oneLine(c.command, 200))}${c.exitCode === null ? '' : ` (exit ${c.exitCode})`}`),
      ...denied.map((c) => `- Denied by the user (not run): ${code(oneLine(c.command, 200))}`),
    ].join('\n'),
    'Relevant Files':
      ledger.filesModified.length + readOnly.length === 0
        ? 'None recorded.'
        : [...fileLines(ledger.filesModified, 'modified'), ...fileLines(readOnly, 'read')].join('\n'),
  };
}

/** Every section present: the model's where it wrote one, the ledger's where it did not. */
export function completeFromLedger(sections: Partial<Record<SectionName, string>>, ledger: Ledger): { sections: Sections; filled: SectionName[] } {
  const fallback = sectionsFromLedger(ledger);
  const filled: SectionName[] = [];
  const out = {} as Record<SectionName, string>;
  for (const name of SECTION_NAMES) {
    const own = normalizeBody(sections[name] ?? '');
    if (own === '') filled.push(name);
    out[name] = own === '' ? fallback[name] : own;
  }
  return { sections: out, filled };
}

const FILE_EXTENSIONS = new Set(
  'ts tsx js jsx mjs cjs json jsonc md mdx py go rs java kt kts c h cc cpp hpp cs rb php swift scala yml yaml toml ini cfg conf txt html htm css scss less sh bash zsh ps1 sql xml lock env vue svelte proto gradle csv ipynb dart lua r pl ex exs erl hs ml tf'.split(
    ' ',
  ),
);

/** File-path-like words in free text: `a/b.ts`, `./x/y.py:42`, `README.md`. Directories and URLs are not paths here. */
export function pathsMentioned(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split(/[\s`'"()[\]{}<>,;|*]+/)) {
    if (raw.includes('://')) continue;
    const word = raw
      .replace(/(?::\d+){1,2}$/, '')
      .replace(/[.:!?]+$/, '')
      .replace(/^(\.\/)+/, '');
    const ext = /\.([A-Za-z][A-Za-z0-9]{0,7})$/.exec(word)?.[1];
    if (ext === undefined || (word.startsWith('.') && !word.includes('/'))) continue;
    if (!FILE_EXTENSIONS.has(ext.toLowerCase())) continue;
    if (!/^[\w@.\-/]+$/.test(word)) continue;
    out.add(word);
  }
  return [...out];
}

/**
 * Paths named in the model's sections that neither the ledger nor the transcript text contains:
 * the model invented them (or mangled a real one), so the capsule flags them instead of vouching for them.
 */
export function flagInventedPaths(sections: Partial<Record<SectionName, string>>, ledger: Ledger, transcriptText = ''): string[] {
  const known = [...ledger.filesRead, ...ledger.filesModified];
  const isKnown = (p: string): boolean => transcriptText.includes(p) || known.some((k) => k === p || k.endsWith(`/${p}`) || p.endsWith(`/${k}`));
  const text = SECTION_NAMES.map((n) => sections[n] ?? '').join('\n');
  return pathsMentioned(text)
    .filter((p) => !isKnown(p))
    .sort();
}

export interface CapsuleValidation {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

/** Checks a rendered capsule: non-empty, all sections present, within size bounds, smaller than what it replaces. */
export function validateCapsule(text: string, sizes: { readonly tokens: number; readonly beforeTokens: number }): CapsuleValidation {
  const problems: string[] = [];
  if (text.trim() === '') problems.push('the capsule is empty');
  else {
    const { missing } = parseCapsuleSections(text);
    if (missing.length > 0) problems.push(`missing sections: ${missing.join(', ')}`);
  }
  if (sizes.tokens < CAPSULE_MIN_TOKENS) problems.push(`the capsule is too small (${sizes.tokens} < ${CAPSULE_MIN_TOKENS} tokens)`);
  if (sizes.tokens > CAPSULE_MAX_TOKENS) problems.push(`the capsule is too large (${sizes.tokens} > ${CAPSULE_MAX_TOKENS} tokens)`);
  if (sizes.tokens >= sizes.beforeTokens) {
    problems.push(`the capsule (${sizes.tokens} tokens) is not smaller than the history it replaces (${sizes.beforeTokens} tokens)`);
  }
  return { ok: problems.length === 0, problems };
}
