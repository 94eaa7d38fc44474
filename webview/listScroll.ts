// The message list's scroll position: following the newest message, the user's scrolling told from this code's, and items kept still on screen.
import { type Anchor, anchorDrift } from './listGeometry.js';
import type { ScrollAnchor } from './vscodeApi.js';

export class ListScroll {
  /** Following the newest message: late layout changes (fonts, expanded tool output) keep the view at the bottom. */
  stick = true;
  /** The scrollTop this code last set; a scroll event elsewhere was the user's. */
  #expectTop = 0;

  constructor(private readonly scroller: HTMLElement) {}

  /** A scroll event: only the user's own scrolling decides whether to follow the newest; layout growth alone must not unstick the view. */
  scrolled(): void {
    const s = this.scroller;
    if (Math.abs(s.scrollTop - this.#expectTop) > 1) this.stick = this.#atBottom();
    this.#expectTop = s.scrollTop;
  }

  /** Back to the bottom, when following the newest. */
  follow(): void {
    if (this.stick) this.toBottom();
  }

  toBottom(): void {
    this.#setTop(this.scroller.scrollHeight);
  }

  /** Scrolls so that `node`, the saved anchor's item, stands where it stood (a reload, a branch switch). */
  toAnchor(anchor: ScrollAnchor, node: HTMLElement | undefined): void {
    if (!node) return;
    const delta = node.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top;
    this.#setTop(this.scroller.scrollTop + delta - anchor.offset);
  }

  /** Keeps `node`, the item of an anchor captured before the list changed, still on screen. */
  restore(anchor: Anchor | null, node: HTMLElement | undefined): void {
    if (!anchor || !node) return;
    const delta = anchorDrift(this.scroller, node, anchor);
    if (Math.abs(delta) >= 1) this.#setTop(this.scroller.scrollTop + delta);
  }

  #atBottom(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 24;
  }

  #setTop(value: number): void {
    this.scroller.scrollTop = value;
    this.#expectTop = this.scroller.scrollTop; // read back: the browser clamps
  }
}
