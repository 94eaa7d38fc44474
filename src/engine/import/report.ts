// What an import kept, inferred and dropped: counted as it converts, printed as a few plain lines, so nothing is lost silently.
import type { Entry } from '../transcript/schema.js';
import { InferredCounter } from './inferred.js';

export const IMPORT_FORMATS = ['claude-code', 'codex', 'anthropic', 'swe-agent', 'mini-swe-agent', 'openai'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export const FORMAT_NAMES: Readonly<Record<ImportFormat, string>> = {
  'claude-code': 'Claude Code session JSONL',
  codex: 'Codex CLI rollout JSONL',
  anthropic: 'Anthropic Messages JSON',
  'swe-agent': 'SWE-agent trajectory (.traj)',
  'mini-swe-agent': 'mini-swe-agent trajectory',
  openai: 'OpenAI chat messages',
};

export interface ImportCounts {
  userTurns: number;
  assistantTurns: number;
  toolCalls: number;
  toolResults: number;
  systemMessages: number;
  reasoning: number;
  sidechainEntries: number;
  compactBoundaries: number;
  injectedTurns: number;
  renamedIds: number;
}

export interface ImportReport {
  readonly format: ImportFormat;
  readonly kept: Readonly<ImportCounts>;
  readonly inferred: { readonly exitCodes: number; readonly fileEffects: number };
  /** What was left out, grouped: "3 × summary line (Claude Code's own session titles)". */
  readonly dropped: readonly { readonly what: string; readonly count: number; readonly why: string }[];
  readonly warnings: readonly string[];
}

/** Collects drops and warnings while a converter runs. */
export class ReportBuilder {
  readonly counts: ImportCounts = {
    userTurns: 0,
    assistantTurns: 0,
    toolCalls: 0,
    toolResults: 0,
    systemMessages: 0,
    reasoning: 0,
    sidechainEntries: 0,
    compactBoundaries: 0,
    injectedTurns: 0,
    renamedIds: 0,
  };
  private readonly drops = new Map<string, { what: string; count: number; why: string }>();
  /** Lines that could not be read, listed before every other drop (a streamed import finds them as it goes). */
  private readonly unreadableLines: { what: string; count: number; why: string }[] = [];
  readonly warnings: string[] = [];

  unreadable(n: number, error: string): void {
    this.unreadableLines.push({ what: `unreadable line ${n}`, count: 1, why: error });
  }

  drop(what: string, why: string, count = 1): void {
    const key = `${what}\0${why}`;
    const d = this.drops.get(key);
    if (d) d.count += count;
    else this.drops.set(key, { what, count, why });
  }

  warn(message: string): void {
    if (this.warnings.length < 200) this.warnings.push(message);
  }

  /** The final report; inferred figures are measured on the converted entries with the ledger's own readers. */
  finish(format: ImportFormat, entries: readonly Entry[]): ImportReport {
    const inferred = new InferredCounter();
    for (const e of entries) inferred.add(e);
    return this.finishCounted(format, inferred);
  }

  /** The final report, the inferred figures counted as the entries were made (a streamed import). */
  finishCounted(format: ImportFormat, inferred: Pick<InferredCounter, 'exitCodes' | 'fileEffects'>): ImportReport {
    const { exitCodes, fileEffects } = inferred;
    return {
      format,
      kept: { ...this.counts },
      inferred: { exitCodes, fileEffects },
      dropped: [...this.unreadableLines, ...this.drops.values()],
      warnings: [...this.warnings],
    };
  }
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The report as lines for a terminal or a notification. */
export function formatImportReport(r: ImportReport): string[] {
  const k = r.kept;
  const kept = [
    plural(k.userTurns, 'user turn'),
    plural(k.assistantTurns, 'assistant turn'),
    plural(k.toolCalls, 'tool call'),
    plural(k.toolResults, 'tool result'),
    ...(k.systemMessages > 0 ? [plural(k.systemMessages, 'system message')] : []),
    ...(k.reasoning > 0 ? [plural(k.reasoning, 'reasoning block')] : []),
    ...(k.sidechainEntries > 0 ? [`${plural(k.sidechainEntries, 'sidechain entry', 'sidechain entries')} (on their own branch)`] : []),
    ...(k.compactBoundaries > 0 ? [plural(k.compactBoundaries, 'compact boundary', 'compact boundaries')] : []),
  ];
  const lines = [`format: ${FORMAT_NAMES[r.format]}`, `kept: ${kept.join(', ')}`];
  const inferred = [
    ...(r.inferred.exitCodes > 0 ? [`${plural(r.inferred.exitCodes, 'exit status', 'exit statuses')} read from result text`] : []),
    ...(r.inferred.fileEffects > 0 ? [`file effects of ${plural(r.inferred.fileEffects, 'command')} read from the command text`] : []),
    ...(k.injectedTurns > 0
      ? [`${plural(k.injectedTurns, 'user turn')} marked as injected by the agent or a tool (kept, not quoted as the person's words)`]
      : []),
    ...(k.renamedIds > 0 ? [`${plural(k.renamedIds, 'reused tool-call id')} renamed to stay unique`] : []),
  ];
  lines.push(`inferred: ${inferred.length === 0 ? 'nothing' : inferred.join('; ')}`);
  lines.push(`dropped: ${r.dropped.length === 0 ? 'nothing' : r.dropped.map((d) => `${d.count} × ${d.what} (${d.why})`).join('; ')}`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines;
}
