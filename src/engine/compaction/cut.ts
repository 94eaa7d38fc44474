// Cut planning and escalation (docs/behaviour.md#cut): which span becomes the capsule, which tail stays verbatim.
import { latestCapsule } from '../transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../transcript/schema.js';
import { boundToolResult, truncateToolResult } from '../transcript/truncation.js';
import { isMessageEntry, splitUnits, type Unit } from './units.js';

export type CompactionLevel = 0 | 1 | 2 | 3;

/** Share of the span's tokens each escalation level summarizes; level 0 keeps keepRecentTokens instead. */
export const LEVEL_FRACTIONS: Readonly<Record<Exclude<CompactionLevel, 0>, number>> = { 1: 0.75, 2: 0.9, 3: 0.95 };

/** A compaction that does not cut at least this share of the tokens is not effective: escalate. */
const MIN_EFFECTIVE_REDUCTION = 0.1;
export const MAX_COMPACTIONS_PER_TURN = 4;
export const COMPACTION_EXHAUSTED_MESSAGE =
  `context compaction exhausted: ${MAX_COMPACTIONS_PER_TURN} compactions in this turn did not bring the request under the ` +
  'context limit, so nothing oversized was sent. Start a new chat, rewind to a checkpoint, or switch to a model with a larger context window.';

const LEVELS: readonly CompactionLevel[] = [0, 1, 2, 3];

export function escalationLevels(): readonly CompactionLevel[] {
  return LEVELS;
}

/** The level after `level`, or undefined when already at the top. */
export function nextLevel(level: CompactionLevel): CompactionLevel | undefined {
  return LEVELS[LEVELS.indexOf(level) + 1];
}

/** True when `after` is at least 10% below `before`. */
export function isEffective(before: number, after: number): boolean {
  return before > 0 && before - after >= before * MIN_EFFECTIVE_REDUCTION;
}

export interface PlanCutArgs {
  /** The active branch, root first (SessionTree.branch()). */
  readonly branch: readonly Entry[];
  readonly tokensOf: (entry: Entry) => number;
  readonly keepRecentTokens: number;
  readonly level: CompactionLevel;
  /** Set during an autonomous turn: its user task stays verbatim. */
  readonly activeTurnId?: string;
}

export interface CutPlan {
  readonly level: CompactionLevel;
  /**
   * The span to summarize, oldest first: entries the previous capsule pinned, then everything from
   * its firstKeptEntryId up to the cut (capsule entries excluded). Pinned entries are part of it.
   */
  readonly summarize: Entry[];
  /** The latest capsule on the branch; its state must be rolled into the new capsule. */
  readonly previousCapsule?: CapsuleEntry;
  /** First entry of `kept`; null only when nothing is kept. */
  readonly firstKeptEntryId: string | null;
  /** The retained tail, verbatim (capsule entries excluded). */
  readonly kept: Entry[];
  /** Entries of `summarize` that stay verbatim in the model input (the active turn's user task). */
  readonly pinnedEntryIds: string[];
  /** Tokens of `summarize` without the pinned entries: what leaves the model input. */
  readonly summarizedTokens: number;
  /** Tokens of `kept`, untruncated. */
  readonly keptTokens: number;
  readonly pinnedTokens: number;
  /** Tokens of the whole span (summarize + kept). */
  readonly spanTokens: number;
  /** Level >= 2: tool results in the retained tail are truncated in the copy sent to the model. */
  readonly truncateResults: boolean;
  /**
   * Estimated tokens that truncation removes from the copy sent (0 below level 2): tokens that leave the
   * model input without being summarized, so the capsule's size check counts them as replaced history.
   */
  readonly truncatedTokens: number;
  /**
   * Tool results of the retained tail older than the newest keepRecentTokens: the model sees them bounded (head + tail,
   * the entry id), the exact originals go to the evidence archive. Their estimated savings are part of truncatedTokens.
   */
  readonly boundedResultIds: string[];
}

export interface NothingToCompact {
  readonly nothingToCompact: true;
  readonly reason: string;
}

export type CutResult = CutPlan | NothingToCompact;

export function isNothingToCompact(r: CutResult): r is NothingToCompact {
  return 'nothingToCompact' in r;
}

/**
 * The entries the model currently sees besides the capsule: the previous capsule's pinned entries,
 * then everything from its firstKeptEntryId on. Starting right after the capsule entry instead would
 * silently drop the retained tail the previous capsule kept; only a capsule that kept nothing starts there.
 */
export function spanSinceCapsule(branch: readonly Entry[]): { span: Entry[]; previousCapsule?: CapsuleEntry } {
  const live = (e: Entry): boolean => e.type !== 'capsule' && e.type !== 'leaf';
  const found = latestCapsule(branch);
  if (!found) return { span: branch.filter(live) };
  const { capsule, index } = found;
  const fk = capsule.firstKeptEntryId;
  let start = fk === null ? index + 1 : branch.findIndex((e) => e.id === fk);
  if (start < 0 || start > index) start = index + 1;
  const pinned = new Set(capsule.pinnedEntryIds);
  const carried = branch.slice(0, start).filter((e) => pinned.has(e.id) && live(e));
  return { span: [...carried, ...branch.slice(start).filter(live)], previousCapsule: capsule };
}

function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/** Number of leading units to summarize so that the tail holds at least `keep` tokens (and at least one unit). */
function keepRecentCut(unitTokens: readonly number[], keep: number): number {
  let i = unitTokens.length - 1;
  let kept = unitTokens[i] ?? 0;
  i--;
  while (i >= 0 && kept < keep) {
    kept += unitTokens[i] ?? 0;
    i--;
  }
  return i + 1;
}

/** The smallest number of leading units whose tokens reach `target`. */
function fractionCut(unitTokens: readonly number[], target: number): number {
  let acc = 0;
  for (let c = 0; c < unitTokens.length; c++) {
    if (acc >= target) return c;
    acc += unitTokens[c] ?? 0;
  }
  return unitTokens.length;
}

const flatten = (units: readonly Unit[]): Entry[] => units.flatMap((u) => u.entries);

export function planCut(args: PlanCutArgs): CutResult {
  const { branch, tokensOf, keepRecentTokens, level, activeTurnId } = args;
  const { span, previousCapsule } = spanSinceCapsule(branch);
  const units = splitUnits(span);
  if (units.length === 0) return { nothingToCompact: true, reason: 'no conversation since the last capsule' };
  const unitTokens = units.map((u) => sum(u.entries.map(tokensOf)));
  const ctx: CutContext = { branch, units, unitTokens, spanTokens: sum(unitTokens), tokensOf, level, activeTurnId, previousCapsule };
  const cut = summarizingCut(ctx, keepRecentTokens);
  // Level >= 2 may still shrink a tail it cannot summarize (one huge result of the active turn): truncation alone.
  if (!isNothingToCompact(cut) || level < 2) return cut;
  return truncationOnlyCut(ctx) ?? cut;
}

interface CutContext {
  readonly branch: readonly Entry[];
  readonly units: readonly Unit[];
  readonly unitTokens: readonly number[];
  readonly spanTokens: number;
  readonly tokensOf: (entry: Entry) => number;
  readonly level: CompactionLevel;
  readonly activeTurnId: string | undefined;
  readonly previousCapsule: CapsuleEntry | undefined;
}

function summarizingCut(ctx: CutContext, keepRecentTokens: number): CutResult {
  const { units, unitTokens, spanTokens, tokensOf, level, activeTurnId } = ctx;
  if (units.length === 1) {
    return { nothingToCompact: true, reason: 'only the latest exchange remains, and it is always kept verbatim' };
  }
  // The last unit is never summarized: it may be an exchange still in progress, and a tail is never empty.
  const maxCut = units.length - 1;
  let cut = keepRecentCut(unitTokens, keepRecentTokens);
  // Higher levels never summarize less than level 0 would, so escalating always cuts at least as deep.
  if (level !== 0) cut = Math.max(cut, fractionCut(unitTokens, spanTokens * LEVEL_FRACTIONS[level]));
  cut = Math.min(cut, maxCut);
  if (cut <= 0) {
    return {
      nothingToCompact: true,
      reason:
        spanTokens <= keepRecentTokens
          ? `the history since the last capsule (${spanTokens} tokens) fits within keepRecentTokens (${keepRecentTokens})`
          : `keeping the most recent ${keepRecentTokens} tokens as whole exchanges already keeps all ${spanTokens} tokens since the last capsule; nothing older is left to summarize`,
    };
  }
  const summarize = flatten(units.slice(0, cut));
  const kept = flatten(units.slice(cut));
  const pinned = activeTurnId === undefined ? [] : summarize.filter((e) => e.type === 'user' && e.turnId === activeTurnId);
  if (pinned.length === summarize.filter(isMessageEntry).length) {
    return { nothingToCompact: true, reason: "only the active turn's task precedes the retained tail, and it stays verbatim" };
  }
  const pinnedTokens = sum(pinned.map(tokensOf));
  const bounded = boundedResults(units.slice(cut), unitTokens.slice(cut), keepRecentTokens, tokensOf);
  const boundedIds = new Set(bounded.ids);
  return {
    level,
    summarize,
    ...(ctx.previousCapsule ? { previousCapsule: ctx.previousCapsule } : {}),
    firstKeptEntryId: kept[0]?.id ?? null,
    kept,
    pinnedEntryIds: pinned.map((e) => e.id),
    summarizedTokens: sum(unitTokens.slice(0, cut)) - pinnedTokens,
    keptTokens: sum(unitTokens.slice(cut)),
    pinnedTokens,
    spanTokens,
    truncateResults: level >= 2,
    truncatedTokens:
      bounded.saved +
      (level >= 2
        ? truncationSavings(
            kept.filter((e) => !boundedIds.has(e.id)),
            ctx,
          )
        : 0),
    boundedResultIds: bounded.ids,
  };
}

/**
 * The tail is measured in tokens: walking back from the newest exchange, whole units are kept while they fit in
 * keepRecentTokens (the newest always); the tool results of older retained units are shown bounded. So a tail of
 * big results costs about keepRecentTokens plus a few hundred tokens per older exchange, not whole results.
 */
function boundedResults(units: readonly Unit[], unitTokens: readonly number[], keep: number, tokensOf: (e: Entry) => number): { ids: string[]; saved: number } {
  let acc = 0;
  let firstWhole = units.length - 1;
  for (let i = units.length - 1; i >= 0; i--) {
    acc += unitTokens[i] ?? 0;
    if (i < units.length - 1 && acc > keep) break;
    firstWhole = i;
  }
  const ids: string[] = [];
  let saved = 0;
  for (const u of units.slice(0, firstWhole)) {
    for (const e of u.entries) {
      if (e.type !== 'tool_result' || e.content.length === 0) continue;
      const shorter = boundToolResult(e.content, e.id).length;
      if (shorter >= e.content.length) continue;
      ids.push(e.id);
      saved += Math.floor(tokensOf(e) * (1 - shorter / e.content.length));
    }
  }
  return { ids, saved };
}

/**
 * Tokens truncation would remove from `kept` in the copy sent, estimated by the share of characters dropped
 * (planning tokenizes nothing). Results the previous capsule already truncates are sent truncated today and
 * save nothing more; results appended after that capsule are sent whole until a new capsule covers them.
 */
function truncationSavings(kept: readonly Entry[], ctx: CutContext): number {
  const prev = ctx.previousCapsule;
  const alreadyTruncated = new Set<string>();
  if (prev?.truncateResults === true) {
    for (const e of ctx.branch) {
      if (e.id === prev.id) break;
      alreadyTruncated.add(e.id);
    }
  }
  let saved = 0;
  for (const e of kept) {
    if (e.type !== 'tool_result' || alreadyTruncated.has(e.id) || e.content.length === 0) continue;
    const shorter = truncateToolResult(e.content).length;
    if (shorter < e.content.length) saved += Math.floor(ctx.tokensOf(e) * (1 - shorter / e.content.length));
  }
  return saved;
}

/**
 * A level >= 2 plan that summarizes nothing new and only truncates the retained tail: when the whole span is
 * the active turn (its pinned task plus the exchanges after it), or one exchange, summarizing cannot help but
 * one huge tool result can still be cut to its first and last 20 lines. The entries the previous capsule
 * pinned, and the active turn's task when it opens the span, stay pinned; everything else is kept verbatim
 * (truncated in the copy sent), and the new capsule rolls the previous one in. Only when that saves >= 10%.
 */
function truncationOnlyCut(ctx: CutContext): CutPlan | undefined {
  const { units, unitTokens, spanTokens, tokensOf, level, activeTurnId, previousCapsule } = ctx;
  const carried = new Set(previousCapsule?.pinnedEntryIds ?? []);
  const pinnable = (e: Entry): boolean => carried.has(e.id) || (e.type === 'user' && activeTurnId !== undefined && e.turnId === activeTurnId);
  let lead = 0;
  while (lead < units.length && (units[lead]?.entries ?? []).filter(isMessageEntry).every(pinnable)) lead++;
  const summarize = flatten(units.slice(0, lead));
  const kept = flatten(units.slice(lead));
  // The previous capsule's pinned entries lie before its firstKeptEntryId: keeping them would resend its whole span.
  if (kept.length === 0 || kept.some((e) => carried.has(e.id))) return undefined;
  const truncatedTokens = truncationSavings(kept, ctx);
  if (truncatedTokens < spanTokens * MIN_EFFECTIVE_REDUCTION || truncatedTokens <= 0) return undefined;
  const pinned = summarize.filter((e) => isMessageEntry(e) && pinnable(e));
  const pinnedTokens = sum(pinned.map(tokensOf));
  const summarizeTokens = sum(unitTokens.slice(0, lead));
  return {
    level,
    summarize,
    ...(previousCapsule ? { previousCapsule } : {}),
    firstKeptEntryId: kept[0]?.id ?? null,
    kept,
    pinnedEntryIds: pinned.map((e) => e.id),
    // Non-message entries travelling with the pinned task count 0 tokens, so this is 0 in practice.
    summarizedTokens: summarizeTokens - pinnedTokens,
    keptTokens: spanTokens - summarizeTokens,
    pinnedTokens,
    spanTokens,
    truncateResults: true,
    truncatedTokens,
    boundedResultIds: [],
  };
}
