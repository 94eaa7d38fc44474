// Where things are in the scrolling list: the item at the top of the viewport, and which items the viewport covers.
import { indexAt } from './windowing.js';

export interface Anchor {
  readonly id: string;
  /** Its top relative to the viewport's top, in px. */
  readonly offset: number;
}

/** The first rendered item still visible at the top of the viewport. */
export function captureAnchor(scroller: HTMLElement, body: HTMLElement): Anchor | null {
  const top = scroller.getBoundingClientRect().top;
  for (const child of Array.from(body.children)) {
    const r = child.getBoundingClientRect();
    const id = child.getAttribute('data-id');
    if (r.bottom > top && id !== null) return { id, offset: r.top - top };
  }
  return null;
}

/** How far the anchor moved from where it was captured (what scrollTop must change by to keep it still). */
export function anchorDrift(scroller: HTMLElement, node: HTMLElement, anchor: Anchor): number {
  return node.getBoundingClientRect().top - scroller.getBoundingClientRect().top - anchor.offset;
}

export interface WindowShape {
  readonly heights: readonly number[];
  readonly estimate: number;
  readonly start: number;
  readonly end: number;
  readonly length: number;
  indexOf(id: string): number | undefined;
}

/** Items at the top and bottom of the viewport: exact inside the rendered window, estimated within the spacers. */
export function visibleRange(scroller: HTMLElement, padTop: HTMLElement, body: HTMLElement, w: WindowShape): { readonly first: number; readonly last: number } {
  const base = padTop.offsetTop;
  const above = padTop.offsetHeight;
  const bodyH = body.offsetHeight;
  const locate = (y: number): number => {
    if (y < base + above) return indexAt(w.heights, y, base, 0, w.start, w.estimate);
    if (y < base + above + bodyH) {
      for (const child of Array.from(body.children)) {
        if (child instanceof HTMLElement && child.offsetTop + child.offsetHeight > y) return w.indexOf(child.getAttribute('data-id') ?? '') ?? w.start;
      }
      return Math.max(w.start, w.end - 1);
    }
    return indexAt(w.heights, y, base + above + bodyH, w.end, w.length, w.estimate);
  };
  return { first: locate(scroller.scrollTop), last: locate(scroller.scrollTop + scroller.clientHeight) };
}
