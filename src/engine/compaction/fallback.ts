// The deterministic fallback capsule (docs/behaviour.md#capsule): built locally from the transcript when the model cannot summarize.
import type { CapsuleEntry, Entry } from '../transcript/schema.js';
import {
  type CapsuleContent,
  type SectionName,
  type Sections,
  SECTION_NAMES,
  completeFromLedger,
  parseCapsuleSections,
  renderCapsule,
  sectionsFromLedger,
} from './capsuleFormat.js';
import { personText } from '../effects/personText.js';
import { pathsRelativeTo, type Ledger } from './ledger.js';
import { clip, code, commandStatus } from './ledgerFormat.js';
import { actionFiles, commandSucceeded, toolActionsOf, type ToolAction } from './toolActions.js';

/** Above this the fallback shrinks its lists and excerpts (~4 chars a token keeps it near 7.5k tokens). */
const MAX_FALLBACK_CHARS = 30_000;

export interface FallbackInput {
  /** The summarized span, oldest first (CutPlan.summarize). */
  readonly span: readonly Entry[];
  readonly previousCapsule?: CapsuleEntry;
  /** The ledger of the new capsule (buildLedger over the span, merged with the previous one). */
  readonly ledger: Ledger;
  /** Why the model summary was not used: timeout, provider error, empty answer... */
  readonly reason: string;
  /** The workspace root, so paths are shown relative to it. */
  readonly root?: string;
}

export interface FallbackCapsule {
  readonly content: CapsuleContent;
  /** renderCapsule(content). */
  readonly text: string;
}

interface Limits {
  readonly files: number;
  readonly commands: number;
  readonly actions: number;
  readonly asks: number;
  readonly errors: number;
  readonly notes: number;
  readonly excerpt: number;
  readonly previousSection: number;
}

const FULL: Limits = { files: 200, commands: 150, actions: 60, asks: 20, errors: 10, notes: 5, excerpt: 400, previousSection: 2500 };

function scaled(l: Limits, f: number): Limits {
  const s = (n: number): number => Math.max(1, Math.floor(n * f));
  return {
    files: s(l.files),
    commands: s(l.commands),
    actions: s(l.actions),
    asks: s(l.asks),
    errors: s(l.errors),
    notes: s(l.notes),
    excerpt: Math.max(80, s(l.excerpt)),
    previousSection: s(l.previousSection),
  };
}

const flat = (text: string, max: number): string => clip(text.replace(/\s+/g, ' ').trim(), max);

/**
 * The last `max` items as bullet lines, with a count of the earlier ones left out. Only the shown items are
 * formatted: a span of a million tokens has thousands of entries and only a few dozen reach the capsule.
 */
function lastOf<T>(items: readonly T[], max: number, what: string, fmt: (item: T) => string): string[] {
  const shown = items.slice(Math.max(0, items.length - max)).map((s) => `- ${fmt(s)}`);
  const rest = items.length - shown.length;
  return rest > 0 ? [`- ... ${rest} earlier ${what} not shown`, ...shown] : shown;
}

/** The parts of the span the sections list, found once however often the size bound makes us render again. */
interface SpanFacts {
  readonly actions: readonly ToolAction[];
  readonly modified: readonly string[];
  readonly commands: readonly ToolAction[];
  readonly failedCommands: readonly ToolAction[];
  readonly asks: readonly string[];
  readonly errors: readonly { readonly toolName: string; readonly content: string }[];
  readonly notes: readonly string[];
}

function spanFacts(span: readonly Entry[], root?: string): SpanFacts {
  const actions = toolActionsOf(span);
  const rel = pathsRelativeTo(root);
  const commands = actions.filter((a) => a.kind === 'command');
  return {
    actions,
    modified: [
      ...new Set(
        actions.flatMap((a) => {
          const f = actionFiles(a);
          return [...f.created, ...f.modified, ...f.renamed.map((r) => r.to)].map(rel);
        }),
      ),
    ],
    commands,
    failedCommands: commands.filter((a) => commandSucceeded(a) === false && !a.result?.isError),
    asks: span.flatMap((e) => {
      const t = e.type === 'user' ? personText(e) : null;
      return t === null ? [] : [t];
    }),
    // A call the user declined is not an error of the tool: it shows as "denied" among the actions.
    errors: span.flatMap((e) => (e.type === 'tool_result' && e.isError && e.effects?.denied !== true ? [e] : [])),
    // /\S/ stops at the first visible character; trim() would copy every answer.
    notes: span.flatMap((e) => (e.type === 'assistant' && /\S/.test(e.content) ? [e.content] : [])),
  };
}

function actionLine(a: ToolAction, excerpt: number): string {
  const target = a.command ?? a.query ?? a.skill ?? a.paths.join(', ');
  const denied = a.result?.effects?.denied === true;
  const status =
    a.kind === 'command'
      ? commandStatus({ exitCode: a.exitCode, ok: commandSucceeded(a), denied })
      : !a.result
        ? 'no result'
        : denied
          ? 'denied'
          : a.result.isError
            ? 'error'
            : 'ok';
  return `${code(a.name)}${target ? ` ${code(flat(target, excerpt))}` : ''} → ${status}`;
}

/** A previous capsule's section, its headings pushed one level down so they nest under ours. */
function rolledIn(body: string | undefined, max: number): string | undefined {
  if (body === undefined || body === '') return undefined;
  return clip(body.replace(/^(#{1,5}) /gm, '#$1 '), max);
}

/** Labels this builder writes; a rolled-in copy drops them so repeated compaction never stacks the same heading. */
const OWN_LABELS = [/^#{1,6} /, /^User requests in the summarized span/, /^Earlier (?:plan|progress|user requests)/];

/**
 * A previous fallback's Progress as one flat list: what it had done (including what it had rolled in itself),
 * without its stale In progress / Blocked parts and without headings, so nesting never deepens.
 */
function earlierProgress(body: string | undefined, max: number): string | undefined {
  if (body === undefined || body === '') return undefined;
  const out: string[] = [];
  let keep = true;
  for (const line of body.split('\n')) {
    const h = /^#{1,6}\s+(.*)$/.exec(line.trim());
    if (h?.[1] !== undefined) {
      keep = !/^(?:In progress|Blocked)\b/i.test(h[1]);
      continue;
    }
    // The list labels are ours; the tool-action list repeats the commands, so only files and commands roll in.
    const label = /^- (Files modified|Commands run|Tool actions)\b/.exec(line);
    if (label) {
      keep = keep !== false && label[1] !== 'Tool actions';
      continue;
    }
    if (keep && line.trim() !== '') out.push(line.replace(/^ {2}- /, '- '));
  }
  return out.length === 0 ? undefined : clip(out.join('\n'), max);
}

/** A rolled-in section without the labels this builder adds itself. */
function withoutOwnLabels(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  const kept = body.split('\n').filter((l) => !OWN_LABELS.some((re) => re.test(l.trim())));
  const text = kept.join('\n').trim();
  return text === '' ? undefined : text;
}

/** The previous capsule's plan, minus the lines this capsule's plan already has; undefined when nothing is left. */
function earlierPlan(body: string | undefined, current: string): string | undefined {
  const have = new Set(current.split('\n').map((l) => l.trim()));
  const rest = withoutOwnLabels(body)
    ?.split('\n')
    .filter((l) => !have.has(l.trim()))
    .join('\n')
    .trim();
  return rest === undefined || rest === '' ? undefined : `Earlier plan (previous capsules):\n${rest}`;
}

/** Drops repeated non-blank lines (boilerplate carried in by every earlier capsule), keeping the first. */
function dedupeLines(body: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of body.split('\n')) {
    const key = line.trim();
    // Only unindented lines: nested lists legitimately repeat an item (a command is also a tool action).
    if (key !== '' && !/^\s/.test(line) && !/^#{1,6} /.test(key) && seen.has(key)) continue;
    if (key !== '') seen.add(key);
    if (key === '' && (out.length === 0 || out[out.length - 1]?.trim() === '')) continue;
    out.push(line);
  }
  return out.join('\n').trim();
}

function buildSections(input: FallbackInput, facts: SpanFacts, l: Limits): Sections {
  const { previousCapsule, ledger, reason } = input;
  const base = sectionsFromLedger(ledger);
  const prevParsed = previousCapsule ? parseCapsuleSections(previousCapsule.summary) : undefined;
  const prev = (name: SectionName): string | undefined => rolledIn(prevParsed?.sections[name], l.previousSection);
  const { actions, modified, commands, failedCommands, asks, errors, notes } = facts;
  const excerpt = (text: string): string => flat(text, l.excerpt);
  const errorLine = (e: SpanFacts['errors'][number]): string => `${code(e.toolName)}: ${flat(e.content, l.excerpt)}`;
  const action = (a: ToolAction): string => actionLine(a, l.excerpt);

  const join = (...parts: (string | undefined | false)[]): string => parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n\n');
  const prevProgress = earlierProgress(prevParsed?.sections.Progress, l.previousSection);
  return {
    Goal: prev('Goal') ?? base.Goal,
    'Constraints & Preferences': join(
      withoutOwnLabels(prev('Constraints & Preferences')) ?? base['Constraints & Preferences'],
      asks.length > 0 && ['User requests in the summarized span (excerpts, oldest first):', ...lastOf(asks, l.asks, 'requests', excerpt)].join('\n'),
    ),
    Progress: join(
      [
        '### Done',
        `- Files modified in the summarized span (${modified.length}):${modified.length === 0 ? ' none' : ''}`,
        ...modified.slice(0, l.files).map((p) => `  - ${code(p)}`),
        ...(modified.length > l.files ? [`  - ... and ${modified.length - l.files} more`] : []),
        `- Commands run in the summarized span (${commands.length}):${commands.length === 0 ? ' none' : ''}`,
        ...lastOf(commands, l.commands, 'commands', action).map((s) => `  ${s}`),
        `- Tool actions (${actions.length}, oldest first):${actions.length === 0 ? ' none' : ''}`,
        ...lastOf(actions, l.actions, 'actions', action).map((s) => `  ${s}`),
      ].join('\n'),
      [
        '### In progress',
        ledger.latestRequest === null ? '- Nothing recorded.' : `- The latest user request: ${flat(ledger.latestRequest, l.excerpt)}`,
        '### Blocked',
        ...(ledger.lastVerification?.passed === false ? [`- The last verification failed: ${code(ledger.lastVerification.command)}`] : []),
        errors.length + failedCommands.length > 0
          ? `- ${errors.length} tool error(s) and ${failedCommands.length} failed command(s) in the summarized span; see Critical Context.`
          : '- No errors recorded in the summarized span.',
      ].join('\n'),
      prevProgress && `### Earlier progress (previous capsules)\n${prevProgress}`,
    ),
    'Key Decisions': join(prev('Key Decisions'), 'None recorded for the summarized span: this capsule was built without the model.'),
    'Next Steps': join(base['Next Steps'], earlierPlan(prev('Next Steps'), base['Next Steps'])),
    'Critical Context': join(
      `- This capsule is degraded: ${flat(reason, 300)}. Details of the summarized span can be paged with read_compaction_evidence.`,
      base['Critical Context'],
      errors.length > 0 && ['Tool errors (latest last):', ...lastOf(errors, l.errors, 'errors', errorLine)].join('\n'),
      failedCommands.length > 0 && ['Failed commands (latest last):', ...lastOf(failedCommands, l.errors, 'failures', action)].join('\n'),
      notes.length > 0 && ['Latest assistant notes (excerpts):', ...lastOf(notes, l.notes, 'notes', excerpt)].join('\n'),
      prev('Critical Context'),
      prevParsed &&
        prevParsed.missing.length === SECTION_NAMES.length &&
        `Previous capsule (unstructured):\n${clip(previousCapsule?.summary ?? '', l.previousSection)}`,
    ),
    'Relevant Files': base['Relevant Files'],
  };
}

/**
 * Deterministic: the same input always gives byte-identical output (no clock, no randomness,
 * stable order). Names every file modified and every command run in the span unless the span is
 * so large that the size bound forces the lists to be shortened (then with a count of what is missing).
 */
export function buildFallbackCapsule(input: FallbackInput): FallbackCapsule {
  const facts = spanFacts(input.span, input.root);
  const build = (f: number): FallbackCapsule => {
    const built = buildSections(input, facts, scaled(FULL, f));
    const deduped = Object.fromEntries(SECTION_NAMES.map((n) => [n, dedupeLines(built[n])])) as Record<SectionName, string>;
    const { sections } = completeFromLedger(deduped, input.ledger);
    const content: CapsuleContent = { sections, ledger: input.ledger, quality: 'degraded', degradedReason: flat(input.reason, 300) };
    return { content, text: renderCapsule(content) };
  };
  let capsule = build(1);
  for (const f of [0.5, 0.25, 0.1]) {
    if (capsule.text.length <= MAX_FALLBACK_CHARS) break;
    capsule = build(f);
  }
  return capsule;
}
