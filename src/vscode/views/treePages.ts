// How the Checkpoints tree cuts a long chat into pages (no `vscode` here, so tests read the same numbers).

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
