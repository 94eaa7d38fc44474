// The message list: every item kept as data, a window of them rendered between spacers sized by measured or estimated heights.
import type { TranscriptItem } from '../src/protocol/messages.js';
import { keepTranscript, watchTranscripts } from './subagentCard.js';
import { pendingSwitch, refocusSwitcher, type PendingSwitch } from './branchSwitcher.js';
import { delegateClicks } from './clicks.js';
import { button, el } from './dom.js';
import { assistantBody, renderItem } from './itemViews.js';
import { captureAnchor, visibleRange, type Anchor } from './listGeometry.js';
import { ListScroll } from './listScroll.js';
import { dispatchAction, type ListActions, type ListLookup } from './listActions.js';
import { ListItems } from './listItems.js';
import { topRow } from './listTop.js';
import type { ScrollAnchor } from './vscodeApi.js';
import { EDGE, INITIAL, LOW_WATER, WINDOW_MAX, windowFor } from './windowing.js';

export class TranscriptList {
  readonly element: HTMLElement;
  readonly #scroller: HTMLElement;
  readonly #top = el('div', { className: 'list-top' });
  readonly #padTop = el('div', { className: 'pad', attrs: { 'aria-hidden': 'true' } });
  readonly #body = el('div', { className: 'list-body' });
  readonly #padBottom = el('div', { className: 'pad', attrs: { 'aria-hidden': 'true' } });
  readonly #jump: HTMLButtonElement;
  readonly #items = new ListItems();
  readonly #rendered = new Map<string, HTMLElement>();
  #start = 0;
  #end = 0;
  #hasMore = false;
  #loading = false;
  readonly #dirty = new Set<string>();
  #frame = 0;
  #scrollQueued = false;
  #saveTimer = 0;
  readonly #scroll: ListScroll;
  /** A ‹ › click waiting for its snapshot: the branch's first item takes the clicked item's place, the switcher keeps focus. */
  #switch: PendingSwitch | undefined;

  constructor(private readonly actions: ListActions) {
    this.#scroller = el('div', { className: 'list', attrs: { role: 'log', 'aria-label': 'Messages', 'aria-live': 'off', tabindex: '0' } }, [
      this.#top,
      this.#padTop,
      this.#body,
      this.#padBottom,
    ]);
    this.#scroll = new ListScroll(this.#scroller);
    this.#jump = button({ icon: 'arrow-down', text: 'Jump to latest', label: 'Jump to the latest message', className: 'jump hidden' });
    this.#jump.addEventListener('click', () => this.showLatest());
    this.element = el('div', { className: 'list-wrap' }, [this.#scroller, this.#jump]);
    this.#scroller.addEventListener('scroll', () => this.#queueScroll(), { passive: true });
    const lookup: ListLookup = {
      items: () => this.#items.all,
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
      this.#scroll.follow();
    });
    follow.observe(this.#body);
    follow.observe(this.#scroller);
  }

  /** Replaces everything (a snapshot); keeps the reading position when `anchor` names a known item. */
  reset(items: readonly TranscriptItem[], hasMore: boolean, given: ScrollAnchor | null): void {
    const sw = this.#switch;
    this.#switch = undefined;
    const switched = sw !== undefined && items.some((i) => i.id === sw.target) ? sw : undefined;
    const anchor = switched ? { itemId: switched.target, offset: switched.offset } : given;
    this.#items.clear();
    this.#rendered.clear();
    this.#dirty.clear();
    for (const item of items) this.#items.push(item);
    this.#hasMore = hasMore;
    this.#loading = false;
    const at = anchor ? this.#items.index(anchor.itemId) : undefined;
    const w = at !== undefined ? windowFor(at, at, this.#items.length) : { start: Math.max(0, this.#items.length - INITIAL), end: this.#items.length };
    this.#body.replaceChildren(this.#build(w.start, w.end));
    this.#start = w.start;
    this.#end = w.end;
    this.#measure();
    this.#layoutPads();
    this.#scroll.stick = !(anchor && at !== undefined);
    if (anchor && at !== undefined) this.#scroll.toAnchor(anchor, this.#rendered.get(anchor.itemId));
    else this.#scroll.toBottom();
    this.#refreshChrome();
    if (switched) refocusSwitcher(this.#items.all, this.#items.index(switched.target), (id) => this.#rendered.get(id), switched.dir);
  }

  /** New items at the end (an id already present is updated in place). */
  append(items: readonly TranscriptItem[]): void {
    const following = this.#end === this.#items.length;
    let added = false;
    for (const item of items) {
      if (this.#items.has(item.id)) this.update(item);
      else {
        this.#items.push(item);
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
    if (following) this.#scroll.follow();
    this.#refreshChrome();
  }

  update(item: TranscriptItem): void {
    const i = this.#items.index(item.id);
    if (i === undefined) return this.append([item]);
    this.#items.replace(i, item);
    this.#dirty.delete(item.id);
    const old = this.#rendered.get(item.id);
    if (!old) return;
    const next = renderItem(item);
    // Keep a tool call the user expanded open when its status changes.
    if (old.querySelector('details.tool')?.hasAttribute('open')) next.querySelector('details.tool')?.setAttribute('open', '');
    keepTranscript(old, next);
    old.replaceWith(next);
    this.#rendered.set(item.id, next);
    this.#scroll.follow();
  }

  /** More streamed text: only this item's body is redrawn, at most once per frame. */
  streamDelta(itemId: string, text: string): void {
    if (!this.#items.has(itemId)) this.append([{ id: itemId, kind: 'assistant', markdown: '', streaming: true }]);
    const i = this.#items.index(itemId);
    const item = i === undefined ? undefined : this.#items.at(i);
    if (i === undefined || item?.kind !== 'assistant') return;
    this.#items.replace(i, { ...item, markdown: item.markdown + text, streaming: true });
    this.#dirty.add(itemId);
    if (this.#frame === 0) this.#frame = requestAnimationFrame(() => this.#flush());
  }

  /** The stream ended; `final`, when given, is the item it became and takes its place (under the entry's id). */
  streamEnd(itemId: string, markdown: string | undefined, final?: TranscriptItem): void {
    const item = this.get(itemId);
    if (item?.kind !== 'assistant') return;
    if (final === undefined) return this.update({ ...item, markdown: markdown ?? item.markdown, streaming: false });
    if (this.#items.rename(itemId, final.id)) {
      this.#dirty.delete(itemId);
      const node = this.#rendered.get(itemId);
      this.#rendered.delete(itemId);
      if (node) this.#rendered.set(final.id, node);
    }
    this.update(final);
  }

  /** The host's answer to `loadOlder`: they go above, into the top spacer, without moving what is on screen. */
  prependOlder(beforeId: string, items: readonly TranscriptItem[], hasMore: boolean): void {
    if (this.#items.at(0)?.id !== beforeId) return; // a snapshot replaced the list meanwhile
    this.#loading = false;
    this.#hasMore = hasMore;
    const anchor = this.#captureAnchor();
    const added = this.#items.prepend(items);
    this.#start += added;
    this.#end += added;
    this.#layoutPads();
    this.#restoreAnchor(anchor);
    this.#refreshChrome();
  }

  /** The rendered element of an item, while it is in the window. */
  rendered(id: string): HTMLElement | undefined {
    return this.#rendered.get(id);
  }

  get(id: string): TranscriptItem | undefined {
    return this.#items.get(id);
  }

  /** Checkpoint ids in this chat, newest first (for `/capsule export` completion). */
  checkpointIds(): string[] {
    return this.#items.checkpointIds();
  }

  /** An item near the top of the viewport, to come back to after a reload; null when following the newest. */
  anchor(): ScrollAnchor | null {
    if (this.#scroll.stick) return null;
    const a = this.#captureAnchor();
    return a ? { itemId: a.id, offset: a.offset } : null;
  }

  showLatest(): void {
    if (this.#end !== this.#items.length) this.#setWindow(Math.max(0, this.#items.length - INITIAL), this.#items.length, false);
    this.#scroll.stick = true;
    this.#scroll.toBottom();
    this.#refreshChrome();
  }

  /** Asks the host for older items (the same as scrolling to the very top). */
  showEarlier(): void {
    this.#requestOlder();
    this.#refreshChrome();
  }

  #build(from: number, to: number): DocumentFragment {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const item = this.#items.at(i);
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
      const id = this.#items.at(i)?.id;
      const node = id === undefined ? undefined : this.#rendered.get(id);
      if (!node || id === undefined) continue;
      this.#items.setHeight(i, node.offsetHeight);
      node.remove();
      this.#rendered.delete(id);
    }
  }

  #measure(): void {
    this.#items.measure(this.#start, this.#end, (id) => this.#rendered.get(id));
  }

  #layoutPads(): void {
    this.#padTop.style.height = `${this.#items.span(0, this.#start)}px`;
    this.#padBottom.style.height = `${this.#items.span(this.#end, this.#items.length)}px`;
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
    this.#scroll.restore(anchor, anchor ? this.#rendered.get(anchor.id) : undefined);
  }

  #requestOlder(): void {
    const first = this.#items.at(0);
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
    this.#scroll.follow();
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
    this.#scroll.scrolled();
    if (this.#items.length > 0) {
      const { first, last } = visibleRange(this.#scroller, this.#padTop, this.#body, {
        heights: this.#items.heights,
        estimate: this.#items.estimate,
        start: this.#start,
        end: this.#end,
        length: this.#items.length,
        indexOf: (id) => this.#items.index(id),
      });
      const thinAbove = this.#start > 0 && first - this.#start < LOW_WATER;
      const thinBelow = this.#end < this.#items.length && this.#end - 1 - last < LOW_WATER;
      if (thinAbove || thinBelow) {
        const w = windowFor(first, last, this.#items.length);
        this.#setWindow(w.start, w.end, true);
      }
    }
    if (this.#start === 0 && this.#scroller.scrollTop < EDGE) this.#requestOlder();
    this.#refreshChrome();
    window.clearTimeout(this.#saveTimer);
    this.#saveTimer = window.setTimeout(() => this.actions.scrolled(this.anchor()), 250);
  }

  /** The row above the first item and the jump button. */
  #refreshChrome(): void {
    this.#top.replaceChildren(...topRow({ loading: this.#loading, hasMore: this.#hasMore, empty: this.#items.length === 0 }, () => this.showEarlier()));
    this.#jump.classList.toggle('hidden', this.#scroll.stick);
    this.#scroller.setAttribute('aria-busy', this.#dirty.size > 0 ? 'true' : 'false');
  }
}
