// What a compaction that did not complete means for the user, in plain words: no trigger ids, no entry ids (docs/user/writing-style.md).
import type { BarrierOutcome } from '../../protocol/messages.js';

/** The engine's reason ("only 812 tokens (12%) are reclaimable; auto_threshold needs at least 1950 and 25%") as what it means. */
function meaning(reason: string): string {
  if (/reclaimable/i.test(reason))
    return 'too little of the chat is old enough to summarize yet, so nothing changed. It will compact later, when it frees more.';
  if (/would not be smaller/i.test(reason)) return 'a summary would not be smaller than the messages it replaces, so nothing changed.';
  if (/already summarized|summarizes/i.test(reason)) return 'that part of the chat is already summarized.';
  if (/nothing (before|to compact|is left|safe)/i.test(reason)) return 'there is nothing old enough to summarize yet.';
  if (/not on the active branch/i.test(reason)) return 'that message is not on the branch you are on.';
  // Anything else: the engine's words without its ids and trigger names.
  return reason
    .replace(/\b(?:e|ck|cap|op|ap)_[A-Za-z0-9_-]+\b/g, 'it')
    .replace(/\b(auto_threshold|turn_complete|hard_limit|context_overflow|plan_pivot|model_switch)\b/g, 'this kind of compaction')
    .trim();
}

/** The strip's line after a compaction that did not complete; the full engine line goes to the log and the flight record. */
export function plainOutcomeLine(outcome: Exclude<BarrierOutcome, 'completed'>, engineLine: string): string {
  // The engine line reads "Context compaction skipped (auto_threshold, level 1): <reason>".
  const reason = engineLine.replace(/^Context compaction \w+ \([^)]*\):\s*/, '');
  switch (outcome) {
    case 'skipped':
      return `Not compacted: ${meaning(reason)}`;
    case 'cancelled':
      return 'Compaction stopped; the chat is as it was.';
    case 'stale':
      return 'Compaction set aside: the chat moved on while it ran. Nothing was lost.';
    case 'failed':
      return `Compaction failed: ${meaning(reason)} The chat is as it was.`;
  }
}
