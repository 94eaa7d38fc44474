// The message list's items as data: their order, id → index (stable when older items are prepended), and their measured or estimated heights.
import type { TranscriptItem } from '../src/protocol/messages.js';
import { DEFAULT_HEIGHT, span } from './windowing.js';

export class ListItems {
  #items: TranscriptItem[] = [];
  /** Measured height per item (0 = never rendered), parallel to the items. */
  #heights: number[] = [];
  /** id → sequence number; index = seq − #firstSeq, so prepending never renumbers. */
  readonly #seq = new Map<string, number>();
  #firstSeq = 0;
  /** The average measured height, taken for the items never rendered. */
  #estimate = DEFAULT_HEIGHT;

  get all(): readonly TranscriptItem[] {
    return this.#items;
  }

  get heights(): readonly number[] {
    return this.#heights;
  }

  get estimate(): number {
    return this.#estimate;
  }

  get length(): number {
    return this.#items.length;
  }

  at(i: number): TranscriptItem | undefined {
    return this.#items[i];
  }

  /** The item at index `i` becomes `item` (same place, same height until measured again). */
  replace(i: number, item: TranscriptItem): void {
    this.#items[i] = item;
  }

  setHeight(i: number, height: number): void {
    this.#heights[i] = height;
  }

  /** Records the heights of the rendered items in [from, to) and refreshes the estimate for the ones never seen. */
  measure(from: number, to: number, nodeOf: (id: string) => HTMLElement | undefined): void {
    let sum = 0;
    let n = 0;
    for (let i = from; i < to; i++) {
      const id = this.#items[i]?.id;
      const node = id === undefined ? undefined : nodeOf(id);
      if (!node) continue;
      const h = node.offsetHeight;
      this.#heights[i] = h;
      sum += h;
      n++;
    }
    if (n > 0 && sum > 0) this.#estimate = sum / n;
  }

  /** The height of items [from, to), measured or estimated: what a spacer standing for them needs. */
  span(from: number, to: number): number {
    return span(this.#heights, from, to, this.#estimate);
  }

  clear(): void {
    this.#items = [];
    this.#heights = [];
    this.#seq.clear();
    this.#firstSeq = 0;
  }

  push(item: TranscriptItem): void {
    this.#seq.set(item.id, this.#firstSeq + this.#items.length);
    this.#items.push(item);
    this.#heights.push(0);
  }

  has(id: string): boolean {
    return this.#seq.has(id);
  }

  index(id: string): number | undefined {
    const s = this.#seq.get(id);
    return s === undefined ? undefined : s - this.#firstSeq;
  }

  get(id: string): TranscriptItem | undefined {
    const i = this.index(id);
    return i === undefined ? undefined : this.#items[i];
  }

  /** Older items go in front (those already here are skipped); returns how many went in. */
  prepend(items: readonly TranscriptItem[]): number {
    const fresh = items.filter((it) => !this.#seq.has(it.id));
    this.#firstSeq -= fresh.length;
    fresh.forEach((it, k) => this.#seq.set(it.id, this.#firstSeq + k));
    this.#items = [...fresh, ...this.#items];
    this.#heights = [...new Array<number>(fresh.length).fill(0), ...this.#heights];
    return fresh.length;
  }

  /** The item `from` is known as `to` from now on (a stream that became its entry); false when it cannot be. */
  rename(from: string, to: string): boolean {
    const seq = this.#seq.get(from);
    if (to === from || seq === undefined || this.#seq.has(to)) return false;
    this.#seq.delete(from);
    this.#seq.set(to, seq);
    return true;
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
}
