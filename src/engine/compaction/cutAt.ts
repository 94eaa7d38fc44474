// "Compact up to here": a cut the user chose, summarizing everything before one message and keeping it and all after it verbatim.
import type { Entry } from '../transcript/schema.js';
import { type CutResult, spanSinceCapsule } from './cut.js';
import { isMessageEntry, splitUnits } from './units.js';

function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * Units of the span since the capsule in force, cut right before the unit that holds `entryId` (a user message is
 * a unit of its own, so the message is the first kept entry). The message must be on the branch and after the
 * capsule's retained start; otherwise, or when nothing precedes it, there is nothing to compact.
 */
export function planCutAt(branch: readonly Entry[], tokensOf: (e: Entry) => number, entryId: string): CutResult {
  const target = branch.find((e) => e.id === entryId);
  if (target === undefined) return { nothingToCompact: true, reason: `entry ${entryId} is not on the active branch` };
  if (target.type !== 'user') return { nothingToCompact: true, reason: `entry ${entryId} is not a user message; "compact up to here" cuts before a message` };
  const { span, previousCapsule } = spanSinceCapsule(branch);
  const units = splitUnits(span);
  const at = units.findIndex((u) => u.entries.some((e) => e.id === entryId));
  if (at < 0) return { nothingToCompact: true, reason: 'that message is already summarized by the capsule in force' };
  const summarize = units.slice(0, at).flatMap((u) => u.entries);
  if (!summarize.some(isMessageEntry)) return { nothingToCompact: true, reason: 'nothing before that message is left to summarize' };
  const kept = units.slice(at).flatMap((u) => u.entries);
  const unitTokens = units.map((u) => sum(u.entries.map(tokensOf)));
  const summarizedTokens = sum(unitTokens.slice(0, at));
  const keptTokens = sum(unitTokens.slice(at));
  return {
    level: 0,
    summarize,
    ...(previousCapsule ? { previousCapsule } : {}),
    firstKeptEntryId: kept[0]?.id ?? null,
    kept,
    pinnedEntryIds: [],
    summarizedTokens,
    keptTokens,
    pinnedTokens: 0,
    spanTokens: summarizedTokens + keptTokens,
    truncateResults: false,
    truncatedTokens: 0,
    boundedResultIds: [],
  };
}
