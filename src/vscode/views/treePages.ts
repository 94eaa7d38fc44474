// How the Checkpoints tree cuts a long chat into pages, and what it reads for one (no `vscode` here: tests and the benchmark run the same code).
import type { MomentIndex } from '../../engine/transcript/momentIndex.js';
import type { Moment } from '../../engine/transcript/moments.js';

/** Messages per page of the tree: the newest show at once, older ones a page at a time under "Older messages". */
export const TREE_PAGE = 50;

/**
 * Where the newest page starts. Pages are cut at multiples of TREE_PAGE counted from the first message, so an
 * "Older messages" row keeps its id (and whether it is open) while new messages arrive; the newest page therefore
 * holds between TREE_PAGE and 2 × TREE_PAGE - 1 moments.
 */
export function newestPageStart(count: number): number {
  return count < 2 * TREE_PAGE ? 0 : Math.floor((count - TREE_PAGE) / TREE_PAGE) * TREE_PAGE;
}

/** The moments [start, end) of one list of a chat, and which of the active ones the capsule in force summarizes. */
export function momentPage(
  index: MomentIndex,
  list: 'active' | 'other',
  start: number,
  end: number,
): { readonly moments: readonly Moment[]; readonly summarized: (messageId: string) => boolean } {
  if (list === 'other') return { moments: index.other(start, end), summarized: () => false };
  return { moments: index.active(start, end), summarized: index.summarizedTest() };
}

/** What a refresh of a chat's row reads: its newest page of moments and how many messages other branches hold. */
export function newestPage(index: MomentIndex): {
  readonly start: number;
  readonly moments: readonly Moment[];
  readonly summarized: (messageId: string) => boolean;
  readonly others: number;
} {
  const count = index.count;
  const start = newestPageStart(count);
  return { start, ...momentPage(index, 'active', start, count), others: index.otherCount };
}
