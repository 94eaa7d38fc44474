// Cut planning and escalation (SPEC S7): which span becomes the capsule, which tail stays verbatim.
import { latestCapsule } from '../transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../transcript/schema.js';
import { isMessageEntry, splitUnits, type Unit } from './units.js';

export type CompactionLevel = 0 | 1 | 2 | 3;

/** Share of the span's tokens each escalation level summarizes; level 0 keeps keepRecentTokens instead. */
export const LEVEL_FRACTIONS: Readonly<Record<Exclude<CompactionLevel, 0>, number>> = { 1: 0.75, 2: 0.9, 3: 0.95 };

/** A compaction that does not cut at least this share of the tokens is not effective: escalate. */
export const MIN_EFFECTIVE_REDUCTION = 0.1;
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
  if (units.length === 1) {
    return { nothingToCompact: true, reason: 'only the latest exchange remains, and it is always kept verbatim' };
  }
  const unitTokens = units.map((u) => sum(u.entries.map(tokensOf)));
  const spanTokens = sum(unitTokens);
  // The last unit is never summarized: it may be an exchange still in progress, and a tail is never empty.
  const maxCut = units.length - 1;
  let cut = keepRecentCut(unitTokens, keepRecentTokens);
  // Higher levels never summarize less than level 0 would, so escalating always cuts at least as deep.
  if (level !== 0) cut = Math.max(cut, fractionCut(unitTokens, spanTokens * LEVEL_FRACTIONS[level]));
  cut = Math.min(cut, maxCut);
  if (cut <= 0) {
    return {
      nothingToCompact: true,
      reason: `the history since the last capsule (${spanTokens} tokens) fits within keepRecentTokens (${keepRecentTokens})`,
    };
  }
  const summarize = flatten(units.slice(0, cut));
  const kept = flatten(units.slice(cut));
  const pinned =
    activeTurnId === undefined ? [] : summarize.filter((e) => e.type === 'user' && e.turnId === activeTurnId);
  if (pinned.length === summarize.filter(isMessageEntry).length) {
    return { nothingToCompact: true, reason: "only the active turn's task precedes the retained tail, and it stays verbatim" };
  }
  const pinnedTokens = sum(pinned.map(tokensOf));
  return {
    level,
    summarize,
    ...(previousCapsule ? { previousCapsule } : {}),
    firstKeptEntryId: kept[0]?.id ?? null,
    kept,
    pinnedEntryIds: pinned.map((e) => e.id),
    summarizedTokens: sum(unitTokens.slice(0, cut)) - pinnedTokens,
    keptTokens: sum(unitTokens.slice(cut)),
    pinnedTokens,
    spanTokens,
    truncateResults: level >= 2,
  };
}
