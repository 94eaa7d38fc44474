// Renders the ledger as the markdown block appended to every capsule; long lists are bounded with a count.
import type { Ledger, LedgerCommand } from './ledger.js';
import { renderMcpLedger } from './mcpLedger.js';
import { renderPlanLines } from './taskPlan.js';

export const LEDGER_HEADING = '## Ledger';
/** Opens the plan block inside the ledger; the agent reads it after a compaction to know where it is. */
const PLAN_HEADING = '**Current plan';
/**
 * Bounds on the rendered ledger (the stored ledger keeps everything): typically ~2k tokens, at worst
 * ~6k, leaving room for the model's sections within CAPSULE_MAX_TOKENS. Every list shows the most recent
 * items first and says how many older ones it left out: the latest work is what the next step needs.
 */
export const MAX_RENDERED_FILES = 60;
const MAX_RENDERED_PATH_CHARS = 160;
const MAX_RENDERED_COMMANDS = 40;
const MAX_RENDERED_COMMAND_CHARS = 160;
const MAX_RENDERED_REQUEST_CHARS = 3000;

/** Cuts `text` to `max` characters, saying how many were left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}[... ${text.length - max} chars omitted ...]`;
}

/** Inline code that survives backticks inside the text and stays on one line. */
export function code(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ⏎ ');
  const fence = flat.includes('`') ? '``' : '`';
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A blockquote: user text can never be mistaken for a heading of the capsule. */
function quote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

/** The newest `max` items first (items are stored oldest first), then how many older ones were cut. */
function newestFirst<T>(items: readonly T[], max: number, show: (t: T) => string, hiddenBefore = 0): string[] {
  if (items.length === 0 && hiddenBefore === 0) return ['- none'];
  const shown = items.slice(Math.max(0, items.length - max)).reverse();
  const lines = shown.map((t) => `- ${show(t)}`);
  const rest = items.length - shown.length + hiddenBefore;
  return rest === 0 ? lines : [...lines, `- ... and ${rest} older not shown`];
}

const showPath = (p: string): string => code(clip(p, MAX_RENDERED_PATH_CHARS));

function commandLine(c: LedgerCommand): string {
  const notes = [c.inferred === true ? 'status inferred' : '', c.effectsUnknown !== undefined ? `effects unknown: ${c.effectsUnknown}` : ''].filter(
    (n) => n !== '',
  );
  return `${code(clip(c.command, MAX_RENDERED_COMMAND_CHARS))} → ${commandStatus(c)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

export function commandStatus(c: Pick<LedgerCommand, 'exitCode' | 'ok'> & Partial<Pick<LedgerCommand, 'timedOut' | 'denied'>>): string {
  if (c.denied === true) return 'denied';
  if (c.timedOut === true) return 'timed out';
  if (c.ok === null) return 'no result';
  if (c.exitCode === 0 && c.ok === false) return 'exit 0, but the runner reported failures';
  if (c.exitCode !== null) return `exit ${c.exitCode}`;
  return c.ok ? 'ok' : 'error';
}

function verificationLine(v: Ledger['lastVerification']): string {
  if (v === null) return 'none recorded';
  const exit = v.exitCode === null ? '' : ` (exit ${v.exitCode})`;
  const summary = v.summary === undefined ? '' : ` — ${code(clip(v.summary, MAX_RENDERED_COMMAND_CHARS))}`;
  return `${code(clip(v.command, MAX_RENDERED_COMMAND_CHARS))} → ${v.passed ? 'passed' : 'failed'}${exit}${summary}${v.inferred === true ? ' (inferred from the output)' : ''}`;
}

/** The `## Ledger` block. `flaggedPaths` are paths the model's text named that the transcript never did. */
export function renderLedger(ledger: Ledger, flaggedPaths: readonly string[] = []): string {
  const commandCount = ledger.commands.length + ledger.commandsOmitted;
  const inferred = new Set(ledger.inferredFiles);
  const created = new Set(ledger.filesCreated);
  const mark = (p: string): string => `${showPath(p)}${created.has(p) ? ' (new)' : ''}${inferred.has(p) ? ' (inferred)' : ''}`;
  const out = [
    LEDGER_HEADING,
    '_Exact record built by Capsule from the transcript, not written by the model._',
    ...(inferred.size > 0 || ledger.commands.some((c) => c.inferred === true)
      ? ['_Entries marked (inferred) were read from command text and results of an imported session, not measured on disk._']
      : []),
    '',
    '**Original task (verbatim):**',
    ledger.originalTask === null ? '> (none)' : quote(clip(ledger.originalTask, MAX_RENDERED_REQUEST_CHARS)),
    '',
    '**Latest user request (verbatim):**',
    ledger.latestRequest === null ? '> (none)' : quote(clip(ledger.latestRequest, MAX_RENDERED_REQUEST_CHARS)),
    '',
    `**Files modified (${ledger.filesModified.length}, newest first):**`,
    ...newestFirst(ledger.filesModified, MAX_RENDERED_FILES, mark),
  ];
  if (ledger.renamed.length > 0) {
    out.push(
      '',
      `**Files renamed (${ledger.renamed.length}, newest first):**`,
      ...newestFirst(ledger.renamed, MAX_RENDERED_FILES, (r) => `${showPath(r.from)} → ${showPath(r.to)}`),
    );
  }
  if (ledger.filesDeleted.length > 0) {
    out.push('', `**Files deleted (${ledger.filesDeleted.length}, newest first):**`, ...newestFirst(ledger.filesDeleted, MAX_RENDERED_FILES, mark));
  }
  out.push(
    '',
    `**Files read (${ledger.filesRead.length}, newest first):**`,
    ...newestFirst(ledger.filesRead, MAX_RENDERED_FILES, mark),
    '',
    `**Commands run (${commandCount}, newest first):**`,
    ...newestFirst(ledger.commands, MAX_RENDERED_COMMANDS, commandLine, ledger.commandsOmitted),
    '',
    `**Last verification:** ${verificationLine(ledger.lastVerification)}`,
    '',
    `**Active skills:** ${ledger.activeSkills.length === 0 ? 'none' : ledger.activeSkills.map(code).join(', ')}`,
  );
  if (ledger.mode !== undefined) out.push('', `**Mode:** ${ledger.mode === 'ask' ? 'Ask (read-only: no file changes, no commands)' : 'Agent'}`);
  // Only when the agent kept a plan, so capsules of plan-less sessions stay as they were.
  if (ledger.plan !== null && ledger.plan.length > 0) {
    out.push(
      '',
      `${PLAN_HEADING} (${ledger.plan.filter((i) => i.status === 'done').length} of ${ledger.plan.length} done; update it with update_plan):**`,
      ...renderPlanLines(ledger.plan),
    );
  }
  out.push(...renderMcpLedger(ledger.mcpCalls ?? [], ledger.mcpToolsLoaded ?? []));
  if (flaggedPaths.length > 0) {
    out.push('', `**Unverified paths** (named in the summary but never seen in the transcript; do not trust them): ${flaggedPaths.map(code).join(', ')}`);
  }
  return out.join('\n');
}
