// The message list: every item kept as data, a window of them rendered between spacers sized by measured or estimated heights.
import type { TranscriptItem } from '../src/protocol/messages.js';
import { keepTranscript, watchTranscripts } from './subagentCard.js';
import { pendingSwitch, refocusSwitcher, type PendingSwitch } from './branchSwitcher.js';
import { delegateClicks } from './clicks.js';
import { button, el } from './dom.js';
import { assistantBody, renderItem } from './itemViews.js';
import { anchorDrift, captureAnchor, visibleRange, type Anchor } from './listGeometry.js';
import { dispatchAction, type ListActions, type ListLookup } from './listActions.js';
import { topRow } from './listTop.js';
import type { ScrollAnchor } from './vscodeApi.js';
import { DEFAULT_HEIGHT, EDGE, INITIAL, LOW_WATER, WINDOW_MAX, span, windowFor } from './windowing.js';

export class TranscriptList {
  readonly element: HTMLElement;
  readonly #scroller: HTMLElement;
  readonly #top = el('div', { className: 'list-top' });
  readonly #padTop = el('div', { className: 'pad', attrs: { 'aria-hidden': 'true' } });
  readonly #body = el('div', { className: 'list-body' });
  readonly #padBottom = el('div', { className: 'pad', attrs: { 'aria-hidden': 'true' } });
  readonly #jump: HTMLButtonElement;
  #items: TranscriptItem[] = [];
  /** Measured height per item (0 = never rendered), parallel to #items. */
  #heights: number[] = [];
  #estimate = DEFAULT_HEIGHT;
  /** id → sequence number; index = seq − #firstSeq, so prepending never renumbers. */
  readonly #seq = new Map<string, number>();
  #firstSeq = 0;
  readonly #rendered = new Map<string, HTMLElement>();
  #start = 0;
  #end = 0;
  #hasMore = false;
  #loading = false;
  readonly #dirty = new Set<string>();
  #frame = 0;
  #scrollQueued = false;
  #saveTimer = 0;
  /** Following the newest message: late layout changes (fonts, expanded tool output) keep the view at the bottom. */
  #stick = true;
  /** The scrollTop this code last set; a scroll event elsewhere was the user's. */
  #expectTop = 0;
  /** A ‹ › click waiting for its snapshot: the branch's first item takes the clicked item's place, the switcher keeps focus. */
  #switch: PendingSwitch | undefined;

  constructor(private readonly actions: ListActions) {
    this.#scroller = el('div', { className: 'list', attrs: { role: 'log', 'aria-label': 'Messages', 'aria-live': 'off', tabindex: '0' } }, [
      this.#top,
      this.#padTop,
      this.#body,
      this.#padBottom,
    ]);
    this.#jump = button({ icon: 'arrow-down', text: 'Jump to latest', label: 'Jump to the latest message', className: 'jump hidden' });
    this.#jump.addEventListener('click', () => this.showLatest());
    this.element = el('div', { className: 'list-wrap' }, [this.#scroller, this.#jump]);
    this.#scroller.addEventListener('scroll', () => this.#queueScroll(), { passive: true });
    const lookup: ListLookup = {
      items: () => this.#items,
      get: (id) => this.get(id),
      switching: (target, btn) => (this.#switch = pendingSwitch(target, btn, this.#scroller)),
    };
    delegateClicks(this.#scroller, {
      openLink: (href) => actions.openLink(href),
      openFile: (p, line, col) => actions.openFile(p, line, col),
      copy: (text, from) => actions.copy(text, from),
      codeBlock: (a, code, lang) => actions.codeBlock(a, code, lang),
      action: (name, btn) => dispatchAction(name, btn, lookup, actions),
    });
    watchTranscripts(this.#scroller, (id, page) => actions.subagentTranscript(id, page));
    const follow = new ResizeObserver(() => {
      if (this.#stick) this.#scrollToBottom();
    });
    follow.observe(this.#body);
    follow.observe(this.#scroller);
  }

  get length(): number {
    return this.#items.length;
  }

  /** Replaces everything (a snapshot); keeps the reading position when `anchor` names a known item. */
  reset(items: readonly TranscriptItem[], hasMore: boolean, given: ScrollAnchor | null): void {
    const sw = this.#switch;
    this.#switch = undefined;
    const switched = sw !== undefined && items.some((i) => i.id === sw.target) ? sw : undefined;
    const anchor = switched ? { itemId: switched.target, offset: switched.offset } : given;
    this.#items = [];
    this.#heights = [];
    this.#seq.clear();
    this.#firstSeq = 0;
    this.#rendered.clear();
    this.#dirty.clear();
    for (const item of items) this.#put(item);
    this.#hasMore = hasMore;
    this.#loading = false;
    const at = anchor ? this.#index(anchor.itemId) : undefined;
    const w = at !== undefined ? windowFor(at, at, this.#items.length) : { start: Math.max(0, this.#items.length - INITIAL), end: this.#items.length };
    this.#body.replaceChildren(this.#build(w.start, w.end));
    this.#start = w.start;
    this.#end = w.end;
    this.#measure();
    this.#layoutPads();
    this.#stick = !(anchor && at !== undefined);
    if (anchor && at !== undefined) this.#scrollToAnchor(anchor);
    else this.#scrollToBottom();
    this.#refreshChrome();
    if (switched) refocusSwitcher(this.#items, this.#index(switched.target), (id) => this.#rendered.get(id), switched.dir);
  }

  /** New items at the end (an id already present is updated in place). */
  append(items: readonly TranscriptItem[]): void {
    const following = this.#end === this.#items.length;
    let added = false;
    for (const item of items) {
      if (this.#seq.has(item.id)) this.update(item);
      else {
        this.#put(item);
        added = true;
      }
    }
    if (!added) return;
    if (following) {
      this.#body.appendChild(this.#build(this.#end, this.#items.length));
      this.#end = this.#items.length;
      // Dropped from the top with their measured heights, so the spacer replaces them exactly and nothing moves.
      const over = this.#end - this.#start - WINDOW_MAX;
      if (over > 0) this.#unrender(this.#start, this.#start + over);
      if (over > 0) this.#start += over;
      this.#measure();
    }
    this.#layoutPads();
    if (this.#stick && following) this.#scrollToBottom();
    this.#refreshChrome();
  }

  update(item: TranscriptItem): void {
    const i = this.#index(item.id);
    if (i === undefined) return this.append([item]);
    this.#items[i] = item;
    this.#dirty.delete(item.id);
    const old = this.#rendered.get(item.id);
    if (!old) return;
    const next = renderItem(item);
    // Keep a tool call the user expanded open when its status changes.
    if (old.querySelector('details.tool')?.hasAttribute('open')) next.querySelector('details.tool')?.setAttribute('open', '');
    keepTranscript(old, next);
    old.replaceWith(next);
    this.#rendered.set(item.id, next);
    if (this.#stick) this.#scrollToBottom();
  }

  /** More streamed text: only this item's body is redrawn, at most once per frame. */
  streamDelta(itemId: string, text: string): void {
    if (!this.#seq.has(itemId)) this.append([{ id: itemId, kind: 'assistant', markdown: '', streaming: true }]);
    const i = this.#index(itemId);
    const item = i === undefined ? undefined : this.#items[i];
    if (i === undefined || item?.kind !== 'assistant') return;
    this.#items[i] = { ...item, markdown: item.markdown + text, streaming: true };
    this.#dirty.add(itemId);
    if (this.#frame === 0) this.#frame = requestAnimationFrame(() => this.#flush());
  }

  /** The stream ended; `final`, when given, is the item it became and takes its place (under the entry's id). */
  streamEnd(itemId: string, markdown: string | undefined, final?: TranscriptItem): void {
    const item = this.get(itemId);
    if (item?.kind !== 'assistant') return;
    if (final === undefined) return this.update({ ...item, markdown: markdown ?? item.markdown, streaming: false });
    const seq = this.#seq.get(itemId);
    if (final.id !== itemId && seq !== undefined && !this.#seq.has(final.id)) {
      this.#seq.delete(itemId);
      this.#seq.set(final.id, seq);
      this.#dirty.delete(itemId);
      const node = this.#rendered.get(itemId);
      this.#rendered.delete(itemId);
      if (node) this.#rendered.set(final.id, node);
    }
    this.update(final);
  }

  /** The host's answer to `loadOlder`: they go above, into the top spacer, without moving what is on screen. */
  prependOlder(beforeId: string, items: readonly TranscriptItem[], hasMore: boolean): void {
    if (this.#items[0]?.id !== beforeId) return; // a snapshot replaced the list meanwhile
    this.#loading = false;
    this.#hasMore = hasMore;
    const fresh = items.filter((it) => !this.#seq.has(it.id));
    const anchor = this.#captureAnchor();
    this.#firstSeq -= fresh.length;
    fresh.forEach((it, k) => this.#seq.set(it.id, this.#firstSeq + k));
    this.#items = [...fresh, ...this.#items];
    this.#heights = [...new Array<number>(fresh.length).fill(0), ...this.#heights];
    this.#start += fresh.length;
    this.#end += fresh.length;
    this.#layoutPads();
    this.#restoreAnchor(anchor);
    this.#refreshChrome();
  }

  /** The rendered element of an item, while it is in the window. */
  rendered(id: string): HTMLElement | undefined {
    return this.#rendered.get(id);
  }

  get(id: string): TranscriptItem | undefined {
    const i = this.#index(id);
    return i === undefined ? undefined : this.#items[i];
  }

  /** Checkpoint ids in this chat, newest first (for `/capsule export` completion). */
  checkpointIds(): string[] {
    const out: string[] = [];
    for (let i = this.#items.length - 1; i >= 0; i--) {
      const it = this.#items[i];
      if (it?.kind === 'checkpoint') out.push(it.checkpointId);
      else if (it?.kind === 'compaction') out.push(it.card.checkpointId);
    }
    return [...new Set(out)];
  }

  /** An item near the top of the viewport, to come back to after a reload; null when following the newest. */
  anchor(): ScrollAnchor | null {
    if (this.#stick) return null;
    const a = this.#captureAnchor();
    return a ? { itemId: a.id, offset: a.offset } : null;
  }

  showLatest(): void {
    if (this.#end !== this.#items.length) this.#setWindow(Math.max(0, this.#items.length - INITIAL), this.#items.length, false);
    this.#stick = true;
    this.#scrollToBottom();
    this.#refreshChrome();
  }

  /** Asks the host for older items (the same as scrolling to the very top). */
  showEarlier(): void {
    this.#requestOlder();
    this.#refreshChrome();
  }

  #put(item: TranscriptItem): void {
    this.#seq.set(item.id, this.#firstSeq + this.#items.length);
    this.#items.push(item);
    this.#heights.push(0);
  }

  #index(id: string): number | undefined {
    const s = this.#seq.get(id);
    return s === undefined ? undefined : s - this.#firstSeq;
  }

  #build(from: number, to: number): DocumentFragment {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const item = this.#items[i];
      if (!item) continue;
      const node = renderItem(item);
      this.#rendered.set(item.id, node);
      frag.appendChild(node);
    }
    return frag;
  }

  /** Removes items [from, to) from the DOM, remembering their heights for the spacers. */
  #unrender(from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const id = this.#items[i]?.id;
      const node = id === undefined ? undefined : this.#rendered.get(id);
      if (!node || id === undefined) continue;
      this.#heights[i] = node.offsetHeight;
      node.remove();
      this.#rendered.delete(id);
    }
  }

  /** Records the heights of the rendered items and refreshes the estimate for the ones never seen. */
  #measure(): void {
    let sum = 0;
    let n = 0;
    for (let i = this.#start; i < this.#end; i++) {
      const id = this.#items[i]?.id;
      const node = id === undefined ? undefined : this.#rendered.get(id);
      if (!node) continue;
      const h = node.offsetHeight;
      this.#heights[i] = h;
      sum += h;
      n++;
    }
    if (n > 0 && sum > 0) this.#estimate = sum / n;
  }

  #layoutPads(): void {
    this.#padTop.style.height = `${span(this.#heights, 0, this.#start, this.#estimate)}px`;
    this.#padBottom.style.height = `${span(this.#heights, this.#end, this.#items.length, this.#estimate)}px`;
  }

  /** Moves the rendered window to [start, end), reusing what overlaps and keeping the on-screen item still. */
  #setWindow(start: number, end: number, keepAnchor: boolean): void {
    if (start === this.#start && end === this.#end) return;
    const anchor = keepAnchor ? this.#captureAnchor() : null;
    if (end <= this.#start || start >= this.#end) {
      this.#unrender(this.#start, this.#end);
      this.#body.replaceChildren(this.#build(start, end));
    } else {
      this.#unrender(this.#start, Math.max(this.#start, start));
      this.#unrender(Math.min(this.#end, end), this.#end);
      if (start < this.#start) this.#body.prepend(this.#build(start, this.#start));
      if (end > this.#end) this.#body.appendChild(this.#build(this.#end, end));
    }
    this.#start = start;
    this.#end = end;
    this.#measure();
    this.#layoutPads();
    this.#restoreAnchor(anchor);
  }

  #captureAnchor(): Anchor | null {
    return captureAnchor(this.#scroller, this.#body);
  }

  #restoreAnchor(anchor: Anchor | null): void {
    const node = anchor ? this.#rendered.get(anchor.id) : undefined;
    if (!anchor || !node) return;
    const delta = anchorDrift(this.#scroller, node, anchor);
    if (Math.abs(delta) >= 1) this.#setTop(this.#scroller.scrollTop + delta);
  }

  #requestOlder(): void {
    const first = this.#items[0];
    if (!this.#hasMore || this.#loading || !first) return;
    this.#loading = true;
    this.actions.loadOlder(first.id);
  }

  #flush(): void {
    this.#frame = 0;
    for (const id of this.#dirty) {
      const item = this.get(id);
      const body = this.#rendered.get(id)?.querySelector('.markdown');
      if (item?.kind === 'assistant' && body) body.replaceWith(assistantBody(item));
    }
    this.#dirty.clear();
    if (this.#stick) this.#scrollToBottom();
  }

  #queueScroll(): void {
    if (this.#scrollQueued) return;
    this.#scrollQueued = true;
    requestAnimationFrame(() => {
      this.#scrollQueued = false;
      this.#onScroll();
    });
  }

  #onScroll(): void {
    const s = this.#scroller;
    // Only the user's own scrolling decides whether to follow the newest; layout growth alone must not unstick the view.
    if (Math.abs(s.scrollTop - this.#expectTop) > 1) this.#stick = this.#atBottom();
    this.#expectTop = s.scrollTop;
    if (this.#items.length > 0) {
      const { first, last } = visibleRange(this.#scroller, this.#padTop, this.#body, {
        heights: this.#heights,
        estimate: this.#estimate,
        start: this.#start,
        end: this.#end,
        length: this.#items.length,
        indexOf: (id) => this.#index(id),
      });
      const thinAbove = this.#start > 0 && first - this.#start < LOW_WATER;
      const thinBelow = this.#end < this.#items.length && this.#end - 1 - last < LOW_WATER;
      if (thinAbove || thinBelow) {
        const w = windowFor(first, last, this.#items.length);
        this.#setWindow(w.start, w.end, true);
      }
    }
    if (this.#start === 0 && s.scrollTop < EDGE) this.#requestOlder();
    this.#refreshChrome();
    window.clearTimeout(this.#saveTimer);
    this.#saveTimer = window.setTimeout(() => this.actions.scrolled(this.anchor()), 250);
  }

  #atBottom(): boolean {
    const s = this.#scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 24;
  }

  #scrollToBottom(): void {
    this.#setTop(this.#scroller.scrollHeight);
  }

  #setTop(value: number): void {
    this.#scroller.scrollTop = value;
    this.#expectTop = this.#scroller.scrollTop; // read back: the browser clamps
  }

  #scrollToAnchor(anchor: ScrollAnchor): void {
    const node = this.#rendered.get(anchor.itemId);
    if (!node) return;
    const delta = node.getBoundingClientRect().top - this.#scroller.getBoundingClientRect().top;
    this.#setTop(this.#scroller.scrollTop + delta - anchor.offset);
  }

  /** The row above the first item and the jump button. */
  #refreshChrome(): void {
    this.#top.replaceChildren(...topRow({ loading: this.#loading, hasMore: this.#hasMore, empty: this.#items.length === 0 }, () => this.showEarlier()));
    this.#jump.classList.toggle('hidden', this.#stick);
    this.#scroller.setAttribute('aria-busy', this.#dirty.size > 0 ? 'true' : 'false');
  }
}
