// The one async apply step of a compaction (docs/behaviour.md#barrier, #cut, #capsule, #roi, #evidence, #rewind): summary, capsule, gates, evidence, then checkpoint + capsule, guarded.
import type { CompactionSettings } from '../config.js';
import type { ChatModel, Clock, EvidenceArchive, IdSource, Logger, ToolSchema, TranscriptStore } from '../ports.js';
import type { EntryTokenCache } from '../tokens/entryCache.js';
import { estimateRequest } from '../tokens/estimate.js';
import { buildModelInput, CAPSULE_QUESTION, toModelMessage, type ModelMessage } from '../transcript/modelInput.js';
import type { CapsuleEntry, CheckpointEntry, Entry } from '../transcript/schema.js';
import { BranchReader } from './branchReader.js';
import { assembleCapsule, transcriptTextOf } from './capsuleAssembly.js';
import { type CapsuleContent, parseCapsuleSections, renderCapsule, SECTION_NAMES, type SectionName, validateCapsule } from './capsuleFormat.js';
import { type CutPlan, isNothingToCompact } from './cut.js';
import { truncateToolResult } from '../transcript/truncation.js';
import { buildFallbackCapsule } from './fallback.js';
import { measureRetention, RETENTION_DETAILS_KEY, spanFacts, withLostFacts, type Retention } from './retention.js';
import type { FlightRecord } from './flightRecord.js';
import { personText } from '../effects/personText.js';
import { compileTestPatterns } from '../effects/testRunners.js';
import { buildLedger, EMPTY_LEDGER, LEDGER_DETAILS_KEY, ledgerFromDetails, type Ledger, type LedgerOptions } from './ledger.js';
import { type CompactionOutcome, flightRecordOf } from './outcome.js';
import type { CompactionPlan } from './plan.js';
import { generateSummary, SUMMARY_MAX_OUTPUT_TOKENS, type SummaryAttempt, type SummaryMemo } from './summaryRequest.js';
import { compactionInstruction } from './summaryPrompt.js';

/** The kind the original task is looked up among when no stored ledger carries it. */
const USER_MESSAGES: ReadonlySet<string> = new Set(['user']);

export interface CompactionDeps {
  readonly store: TranscriptStore;
  readonly archive: EvidenceArchive;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly cache: EntryTokenCache;
  /** The summarizer; undefined means the deterministic fallback capsule, without any model (CLI `--fallback`). */
  readonly model?: ChatModel;
  /** The tool schemas the agent sends; the summary request repeats them (with tool_choice none) for the cached prefix. */
  readonly tools: readonly ToolSchema[];
  readonly defaultSystem: string;
  readonly settings: Pick<CompactionSettings, 'timeoutMs' | 'minReclaimableTokens' | 'minSavingsRatio'>;
  readonly maxOutputTokens: number;
  /** Summary requests already sent in this turn (see generateSummary). */
  readonly summaryMemo?: SummaryMemo;
  /** Receives one record per operation, whatever its outcome (docs/behaviour.md#observability). Failures here are logged, never fatal. */
  readonly recordFlight?: (record: FlightRecord) => void | Promise<void>;
  readonly logger?: Logger;
  /** Shared with the barrier so the tree is not rebuilt per call; one is made from `store` otherwise. */
  readonly branches?: BranchReader;
  /** Project-specific test-command patterns for the ledger's last verification (`capsule.ledger.testCommands`). */
  readonly testCommands?: readonly string[];
}

export type ProgressPhase = 'planning' | 'checkpoint' | 'summarizing' | 'validating' | 'archiving' | 'appended';
export type ProgressListener = (percent: number, phase: ProgressPhase) => void;

/** Mutable facts of a running operation, read when it ends however it ends. */
interface Run {
  checkpointId?: string;
  attempts: number;
}

type WithoutDuration<T> = T extends unknown ? Omit<T, 'durationMs'> : never;
type Ended = WithoutDuration<Exclude<CompactionOutcome, { outcome: 'completed' }>>;
type Result = WithoutDuration<CompactionOutcome>;

function errText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'unknown error';
}

/**
 * Runs one planned compaction to exactly one outcome; never throws. Order: summary (or fallback), validation,
 * exact measurement and the docs/behaviour.md#roi post-gate, evidence archived (docs/behaviour.md#evidence), then the commit: the automatic checkpoint
 * (docs/behaviour.md#rewind) and the capsule, each appended only after a synchronous check that the turn was not cancelled and the
 * leaf is still the one planned against (then our checkpoint). A compaction that ends skipped, cancelled or
 * stale before the commit therefore leaves the session untouched: no capsule and no checkpoint, so a soft
 * trigger that fails its gate every turn cannot litter the checkpoint list. Only a cancel landing between the
 * two appends leaves a lone checkpoint, which is harmless: it marks the moment, and rewinding to it restores
 * exactly the input of that moment. An evidence snapshot of an operation that did not commit stays in the
 * archive unreferenced (snapshots are immutable; the archive is deleted with the chat).
 */
export async function runCompaction(
  deps: CompactionDeps,
  plan: CompactionPlan,
  signal: AbortSignal,
  onProgress?: ProgressListener,
): Promise<CompactionOutcome> {
  const startedAt = deps.clock.now();
  const run: Run = { attempts: 0 };
  let result: Result;
  try {
    result = await apply(deps, plan, signal, run, onProgress);
  } catch (err) {
    const base = baseOf(plan, run);
    result = signal.aborted ? { ...base, outcome: 'cancelled', reason: 'the turn was cancelled' } : { ...base, outcome: 'failed', reason: errText(err) };
  }
  const endedAt = deps.clock.now();
  const outcome = { ...result, durationMs: Math.max(0, endedAt - startedAt) } as CompactionOutcome;
  try {
    await deps.recordFlight?.(flightRecordOf(outcome, plan, deps.store.header.id, startedAt, endedAt));
  } catch (err) {
    deps.logger?.log('warn', `Could not record the flight record of ${plan.operationId}: ${errText(err)}`);
  }
  return outcome;
}

function baseOf(
  plan: CompactionPlan,
  run: Run,
): {
  operationId: string;
  trigger: CompactionPlan['trigger'];
  level: number;
  tokensBefore: number;
  tokensSource: CompactionPlan['tokensSource'];
  attempts: number;
  checkpointId?: string;
} {
  return {
    operationId: plan.operationId,
    trigger: plan.trigger,
    level: plan.level,
    tokensBefore: plan.tokensBefore,
    tokensSource: plan.tokensSource,
    attempts: run.attempts,
    ...(run.checkpointId === undefined ? {} : { checkpointId: run.checkpointId }),
  };
}

async function apply(deps: CompactionDeps, plan: CompactionPlan, signal: AbortSignal, run: Run, onProgress?: ProgressListener): Promise<Result> {
  const { store, clock, ids } = deps;
  const progress = (pct: number, phase: ProgressPhase): void => {
    try {
      onProgress?.(pct, phase);
    } catch {
      // a progress listener must never break the compaction
    }
  };
  // A union member per outcome; the cast only re-attaches the discriminant TypeScript cannot follow through a variable.
  const end = (outcome: Ended['outcome'], reason: string): Ended => ({ ...baseOf(plan, run), outcome, reason }) as Ended;
  progress(5, 'planning');
  const cut = plan.cut;
  if (isNothingToCompact(cut)) return end('skipped', cut.reason);
  if (store.readOnly) return end('failed', `the session is read-only${store.readOnlyReason ? ` (${store.readOnlyReason})` : ''}`);
  if (signal.aborted) return end('cancelled', 'the turn was cancelled before compaction started');
  if (store.leafId() !== plan.leafAtPlan) return end('stale', 'the session changed after the compaction was planned; nothing was appended');

  const now = (): string => new Date(clock.now()).toISOString();
  // Built now so the capsule and the evidence can name it; appended only at the commit.
  const checkpoint: CheckpointEntry = {
    type: 'checkpoint',
    id: ids.next('e_'),
    parentId: plan.leafAtPlan,
    timestamp: now(),
    checkpointId: ids.next('ck_'),
    kind: 'auto',
    note: `Automatic checkpoint before compaction ${plan.operationId} (${plan.trigger}, level ${plan.level})`,
  };
  const interrupted = (expectedLeaf: string | null): Ended | undefined => {
    if (signal.aborted) return end('cancelled', 'the turn was cancelled during compaction; no capsule was appended');
    if (store.leafId() !== expectedLeaf) return end('stale', 'the session changed during compaction (new entry or rewind); no capsule was appended');
    return undefined;
  };

  // The reachable tail holds everything the model input, the span and the previous capsule read; the whole
  // branch is walked only for the original task when no previous ledger carries it.
  const reader = deps.branches ?? new BranchReader(store);
  const tail = reader.tail();
  const input = buildModelInput(tail, deps.defaultSystem);
  const ledger = ledgerOf(cut, () => reader.ofKinds(USER_MESSAGES), {
    root: store.header.cwd,
    testPatterns: compileTestPatterns(deps.testCommands ?? []).patterns,
  });
  progress(15, 'summarizing');
  const summary = await generateSummary({
    model: deps.model,
    system: input.system,
    tools: deps.tools,
    lastSent: input.messages,
    instruction: (words) => compactionInstruction(plan.focus, words),
    cache: deps.cache,
    // Bounded by what the provider accepts, so the unchanged (cached) prefix is kept whenever the full request fits.
    hardLimit: Math.max(plan.limits.hardLimit, plan.limits.contextWindow - Math.min(deps.maxOutputTokens, SUMMARY_MAX_OUTPUT_TOKENS)),
    maxOutputTokens: deps.maxOutputTokens,
    timeoutMs: deps.settings.timeoutMs,
    clock,
    signal,
    onProgress: (f) => progress(15 + Math.round(70 * f), 'summarizing'),
    ...(deps.summaryMemo === undefined ? {} : { memo: deps.summaryMemo }),
  });
  run.attempts = summary.attempts;
  if (summary.kind === 'cancelled') return end('cancelled', 'the turn was cancelled while the summary was generated; nothing was appended');
  const stop = interrupted(plan.leafAtPlan);
  if (stop) return stop;
  progress(85, 'validating');

  // Truncated tool-result text leaves the input too: a truncation-only plan (level >= 2) summarizes nothing new.
  const replacedTokens = cut.summarizedTokens + cut.truncatedTokens + (cut.previousCapsule ? deps.cache.tokensOfCapsule(cut.previousCapsule) : 0);
  const chosen = capsuleText(deps, cut, ledger, summary, replacedTokens);
  if ('skip' in chosen) return end('skipped', chosen.skip);
  const { text, retention } = withRetention(chosen, cut, store.header.cwd);
  progress(90, 'validating');

  const candidate: CapsuleEntry = {
    type: 'capsule',
    id: ids.next('e_'),
    parentId: checkpoint.id,
    timestamp: now(),
    summary: text.text,
    firstKeptEntryId: cut.firstKeptEntryId,
    pinnedEntryIds: [...cut.pinnedEntryIds],
    tokensBefore: plan.tokensBefore,
    tokensAfter: 0,
    trigger: plan.trigger,
    level: plan.level,
    quality: text.quality,
    truncateResults: cut.truncateResults,
    ...(cut.boundedResultIds.length === 0 ? {} : { boundedResultIds: [...cut.boundedResultIds] }),
    checkpointId: checkpoint.checkpointId,
    details: {
      [LEDGER_DETAILS_KEY]: ledger,
      [RETENTION_DETAILS_KEY]: retention,
      operationId: plan.operationId,
      attempts: summary.attempts,
      flaggedPaths: text.flaggedPaths,
      tokensSource: plan.tokensSource,
      ...(text.fallbackReason === undefined ? {} : { fallbackReason: text.fallbackReason }),
      ...(summary.kind === 'text' && summary.usage ? { summaryUsage: summary.usage } : {}),
      ...(summary.bounded ? { summaryBounded: summary.bounded } : {}),
      ...(plan.focus === undefined ? {} : { focus: plan.focus }),
    },
  };
  // docs/behaviour.md#roi: the complete continuation, measured exactly as the next request will be built.
  const after = buildModelInput([...tail, checkpoint, candidate], deps.defaultSystem);
  const tokensAfter = estimateRequest(after, deps.tools, deps.cache, deps.maxOutputTokens).total;
  if (!plan.roiExempt) {
    const reclaimable = plan.tokensBefore - tokensAfter;
    const ratio = plan.tokensBefore > 0 ? reclaimable / plan.tokensBefore : 0;
    const s = deps.settings;
    if (reclaimable < s.minReclaimableTokens || ratio < s.minSavingsRatio) {
      const why = `the capsule would reclaim ${Math.max(0, reclaimable)} tokens (${Math.round(Math.max(0, ratio) * 100)}%); ${plan.trigger} needs at least ${s.minReclaimableTokens} and ${Math.round(s.minSavingsRatio * 100)}%, so the request goes out unchanged`;
      return { ...baseOf(plan, run), outcome: 'skipped', reason: why, tokensAfter };
    }
  }

  progress(95, 'archiving');
  await deps.archive.save({
    operationId: plan.operationId,
    checkpointId: checkpoint.checkpointId,
    createdAt: now(),
    excluded: excludedMessages(cut),
    summarizerInput: summary.sent,
  });
  // The commit. No await between each check and its append.
  const before = interrupted(plan.leafAtPlan);
  if (before) return before;
  await store.append(checkpoint);
  run.checkpointId = checkpoint.checkpointId;
  progress(97, 'checkpoint');
  const late = interrupted(checkpoint.id);
  if (late) return late;
  const capsule: CapsuleEntry = { ...candidate, tokensAfter };
  await store.append(capsule);
  progress(100, 'appended');
  return {
    ...baseOf(plan, run),
    outcome: 'completed',
    capsule,
    checkpointId: checkpoint.checkpointId,
    tokensAfter,
    quality: text.quality,
    ...(text.fallbackReason === undefined ? {} : { fallbackReason: text.fallbackReason }),
    ...(summary.kind === 'text' && summary.usage ? { usage: summary.usage } : {}),
  };
}

/**
 * The plan's span (summarized entries plus retained tail) rolled into the previous capsule's ledger, which carries
 * everything before the span; nothing older is read. Only without a stored ledger is the original task looked up
 * as the person's first ask on the branch; without a previous capsule the span starts at the root and holds it.
 */
function ledgerOf(cut: CutPlan, userMessages: () => Iterable<Entry>, opts: LedgerOptions): Ledger {
  const span = [...cut.summarize, ...cut.kept];
  const stored = cut.previousCapsule ? ledgerFromDetails(cut.previousCapsule.details) : undefined;
  if (stored) return buildLedger(span, stored, opts);
  const firstAsk = firstPersonText(cut.previousCapsule ? userMessages() : span);
  const previous = firstAsk === undefined ? undefined : { ...EMPTY_LEDGER, originalTask: firstAsk };
  return buildLedger(span, previous, opts);
}

/** The person's first ask among `entries`, read no further than it (a compact history reads few lines back). */
function firstPersonText(entries: Iterable<Entry>): string | undefined {
  for (const e of entries) {
    if (e.type !== 'user') continue;
    const text = personText(e);
    if (text !== null) return text;
  }
  return undefined;
}

/**
 * Measures what the chosen capsule kept of the span (before anything is added), then appends the files and
 * commands it lost, so the figures say how good the summary was and the model still gets every fact.
 */
function withRetention(chosen: ChosenText, cut: CutPlan, root: string): { text: ChosenText; retention: Retention } {
  const pinned = new Set(cut.pinnedEntryIds);
  const facts = spanFacts(
    cut.summarize.filter((e) => !pinned.has(e.id)),
    root,
  );
  const tail = transcriptTextOf([...cut.summarize.filter((e) => pinned.has(e.id)), ...cut.kept]);
  const measured = measureRetention(facts, chosen.text, tail);
  const lost = withLostFacts(chosen.text, facts, tail);
  const sections = chosen.sectionsFromModel === undefined ? {} : { sectionsFromModel: [...chosen.sectionsFromModel] };
  return { text: { ...chosen, text: lost.text }, retention: { ...measured, appended: lost.appended, ...sections } };
}

/** What leaves the model input: the previous capsule pair, then the summarized entries that are not pinned. */
function excludedMessages(cut: CutPlan): ModelMessage[] {
  const pinned = new Set(cut.pinnedEntryIds);
  const out: ModelMessage[] = cut.previousCapsule
    ? [
        { role: 'user', content: CAPSULE_QUESTION },
        { role: 'assistant', content: cut.previousCapsule.summary, entryId: cut.previousCapsule.id },
      ]
    : [];
  for (const e of cut.summarize) {
    if (pinned.has(e.id)) continue;
    const m = toModelMessage(e);
    if (m) out.push(m);
  }
  // Results the retained tail only shows truncated or bounded: their exact originals are evidence too (readable on request).
  const bounded = new Set(cut.boundedResultIds);
  for (const e of cut.kept) {
    if (e.type !== 'tool_result') continue;
    if (!bounded.has(e.id) && !(cut.truncateResults && truncateToolResult(e.content) !== e.content)) continue;
    const m = toModelMessage(e);
    if (m) out.push(m);
  }
  return out;
}

interface ChosenText {
  readonly text: string;
  readonly quality: 'full' | 'partial' | 'degraded';
  readonly fallbackReason?: string;
  readonly flaggedPaths: readonly string[];
  /** The sections the model wrote; the others came from the ledger (none for the deterministic fallback). */
  readonly sectionsFromModel?: readonly SectionName[];
}

function mergeArrived(content: CapsuleContent, answer: string): { readonly text: string } {
  const arrived = parseCapsuleSections(answer).sections;
  const sections = { ...content.sections };
  for (const name of SECTION_NAMES) {
    const body = arrived[name]?.trim();
    if (body !== undefined && body !== '') sections[name] = body;
  }
  return { text: renderCapsule({ ...content, sections }) };
}

/** The model's capsule when it validates, else the deterministic fallback; a skip when even that would not be smaller. */
function capsuleText(deps: CompactionDeps, cut: CutPlan, ledger: Ledger, summary: SummaryAttempt, replacedTokens: number): ChosenText | { skip: string } {
  const sizes = (text: string): { tokens: number; beforeTokens: number } => ({ tokens: deps.cache.capsulePair(text), beforeTokens: replacedTokens });
  let reason: string;
  if (summary.kind === 'text') {
    const assembled = assembleCapsule({ answer: summary.text, ledger, transcriptText: transcriptTextOf([...cut.summarize, ...cut.kept], cut.previousCapsule) });
    const v = validateCapsule(assembled.text, sizes(assembled.text));
    if (v.ok) return { text: assembled.text, quality: assembled.content.quality, flaggedPaths: assembled.flaggedPaths, sectionsFromModel: assembled.fromModel };
    reason = `the model's summary was rejected: ${v.problems.join('; ')}`;
  } else reason = summary.kind === 'failed' || summary.kind === 'partial' ? summary.reason : 'cancelled';
  const built = buildFallbackCapsule({
    span: cut.summarize,
    ...(cut.previousCapsule ? { previousCapsule: cut.previousCapsule } : {}),
    ledger,
    reason,
    root: deps.store.header.cwd,
  });
  // What did arrive of a cut-off or incomplete summary replaces the fallback's guesses section by section.
  const fb = summary.kind === 'partial' ? mergeArrived(built.content, summary.text) : built;
  const size = sizes(fb.text);
  if (size.tokens >= size.beforeTokens) {
    return { skip: `the capsule (${size.tokens} tokens) would not be smaller than the history it replaces (${size.beforeTokens} tokens)` };
  }
  const v = validateCapsule(fb.text, size);
  if (!v.ok) deps.logger?.log('warn', `Fallback capsule used despite: ${v.problems.join('; ')}`);
  const arrived = summary.kind === 'partial' ? SECTION_NAMES.filter((n) => (parseCapsuleSections(summary.text).sections[n] ?? '') !== '') : [];
  return { text: fb.text, quality: 'degraded', fallbackReason: reason, flaggedPaths: [], sectionsFromModel: arrived };
}
