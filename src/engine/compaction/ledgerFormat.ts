// Renders the ledger as the markdown block appended to every capsule; long lists are bounded with a count.
import type { Ledger, LedgerCommand } from './ledger.js';
import { renderPlanLines } from './taskPlan.js';

export const LEDGER_HEADING = '## Ledger';
/** Opens the plan block inside the ledger; the agent reads it after a compaction to know where it is. */
export const PLAN_HEADING = '**Current plan';
/**
 * Bounds on the rendered ledger (the stored ledger keeps everything): typically ~2k tokens, at worst
 * ~6k, leaving room for the model's sections within CAPSULE_MAX_TOKENS. Lists keep the first files
 * (the earliest touched) and the latest commands, and say how many they left out.
 */
export const MAX_RENDERED_FILES = 60;
export const MAX_RENDERED_PATH_CHARS = 160;
export const MAX_RENDERED_COMMANDS = 40;
export const MAX_RENDERED_COMMAND_CHARS = 160;
export const MAX_RENDERED_REQUEST_CHARS = 3000;

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
export function quote(text: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

export function commandStatus(c: Pick<LedgerCommand, 'exitCode' | 'ok'>): string {
  if (c.ok === null) return 'no result';
  if (c.exitCode !== null) return `exit ${c.exitCode}`;
  return c.ok ? 'ok' : 'error';
}

/** A bounded list: the first `max` items, or with `fromEnd` the last `max`, plus how many were not shown. */
function list<T>(items: readonly T[], max: number, show: (t: T) => string, fromEnd = false, hiddenBefore = 0): string[] {
  if (items.length === 0 && hiddenBefore === 0) return ['- none'];
  const shown = fromEnd ? items.slice(Math.max(0, items.length - max)) : items.slice(0, max);
  const lines = shown.map((t) => `- ${show(t)}`);
  const rest = items.length - shown.length + hiddenBefore;
  if (rest === 0) return lines;
  return fromEnd ? [`- ... ${rest} earlier not shown`, ...lines] : [...lines, `- ... and ${rest} more`];
}

const showPath = (p: string): string => code(clip(p, MAX_RENDERED_PATH_CHARS));
const showCommand = (c: LedgerCommand): string => `${code(clip(c.command, MAX_RENDERED_COMMAND_CHARS))} → ${commandStatus(c)}`;

/** The `## Ledger` block. `flaggedPaths` are paths the model's text named that the transcript never did. */
export function renderLedger(ledger: Ledger, flaggedPaths: readonly string[] = []): string {
  const commandCount = ledger.commands.length + ledger.commandsOmitted;
  const v = ledger.lastVerification;
  const out = [
    LEDGER_HEADING,
    '_Exact record built by Capsule from the transcript, not written by the model._',
    '',
    '**Original task (verbatim):**',
    ledger.originalTask === null ? '> (none)' : quote(clip(ledger.originalTask, MAX_RENDERED_REQUEST_CHARS)),
    '',
    '**Latest user request (verbatim):**',
    ledger.latestRequest === null ? '> (none)' : quote(clip(ledger.latestRequest, MAX_RENDERED_REQUEST_CHARS)),
    '',
    `**Files modified (${ledger.filesModified.length}):**`,
    ...list(ledger.filesModified, MAX_RENDERED_FILES, showPath),
    '',
    `**Files read (${ledger.filesRead.length}):**`,
    ...list(ledger.filesRead, MAX_RENDERED_FILES, showPath),
    '',
    `**Commands run (${commandCount}, oldest first):**`,
    ...list(ledger.commands, MAX_RENDERED_COMMANDS, showCommand, true, ledger.commandsOmitted),
    '',
    `**Last verification:** ${v === null ? 'none recorded' : `${code(clip(v.command, MAX_RENDERED_COMMAND_CHARS))} → ${v.passed ? 'passed' : 'failed'}${v.exitCode === null ? '' : ` (exit ${v.exitCode})`}`}`,
    '',
    `**Active skills:** ${ledger.activeSkills.length === 0 ? 'none' : ledger.activeSkills.map(code).join(', ')}`,
  ];
  // Only when the agent kept a plan, so capsules of plan-less sessions stay as they were.
  if (ledger.plan !== null && ledger.plan.length > 0) {
    out.push('', `${PLAN_HEADING} (${ledger.plan.filter((i) => i.status === 'done').length} of ${ledger.plan.length} done; update it with update_plan):**`, ...renderPlanLines(ledger.plan));
  }
  if (flaggedPaths.length > 0) {
    out.push('', `**Unverified paths** (named in the summary but never seen in the transcript; do not trust them): ${flaggedPaths.map(code).join(', ')}`);
  }
  return out.join('\n');
}
