// Windowed rendering numbers and the pure height arithmetic behind them; DOM-free so tests and the benchmark share them.

/** Most items in the DOM at once: a 5,000-message chat costs what a 200-message one does. */
export const WINDOW_MAX = 200;
/** Items rendered when the window is (re)placed. */
export const INITIAL = 100;
/** Items kept rendered beyond each edge of the viewport. */
export const OVERSCAN = 40;
/** The window moves when fewer than this many rendered items remain beyond an edge of the viewport. */
export const LOW_WATER = 15;
/** Distance in px from the top at which older items are requested from the host. */
export const EDGE = 400;
/** Height assumed for an item never rendered, until some have been measured. */
export const DEFAULT_HEIGHT = 56;

/** Height of item `i`: measured when known (non-zero), otherwise the estimate. */
export function heightOf(heights: readonly number[], i: number, estimate: number): number {
  const h = heights[i] ?? 0;
  return h > 0 ? h : estimate;
}

/** Total height of items [from, to). */
export function span(heights: readonly number[], from: number, to: number, estimate: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += heightOf(heights, i, estimate);
  return sum;
}

/** The item covering offset `y` when items [from, to) are stacked from `base`; clamped to [from, to − 1]. */
export function indexAt(heights: readonly number[], y: number, base: number, from: number, to: number, estimate: number): number {
  let acc = base;
  for (let i = from; i < to; i++) {
    acc += heightOf(heights, i, estimate);
    if (acc > y) return i;
  }
  return Math.max(from, to - 1);
}

/** The window to render so items first…last are on screen with overscan on both sides, within [0, length). */
export function windowFor(first: number, last: number, length: number): { readonly start: number; readonly end: number } {
  const start = Math.max(0, Math.min(first - OVERSCAN, length - INITIAL));
  const end = Math.min(length, Math.max(start + INITIAL, last + 1 + OVERSCAN), start + WINDOW_MAX);
  return { start, end };
}
