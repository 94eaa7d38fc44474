// Chat items that are not transcript entries (command echoes and answers), kept in memory after the entry they followed.
import type { TranscriptItem } from '../../protocol/messages.js';

/** Command output is only a convenience; a long session must not grow it without bound. */
const MAX_ITEMS = 200;

export class EphemeralItems {
  #sessionId: string | undefined;
  #byAnchor = new Map<string | null, TranscriptItem[]>();
  #count = 0;

  /** Items of this chat by the entry they follow (null: before the first); another chat's items are dropped. */
  of(sessionId: string | undefined): ReadonlyMap<string | null, readonly TranscriptItem[]> {
    this.#switch(sessionId);
    return this.#byAnchor;
  }

  add(sessionId: string | undefined, anchor: string | null, item: TranscriptItem): void {
    this.#switch(sessionId);
    if (this.#count >= MAX_ITEMS) {
      const first = this.#byAnchor.keys().next();
      if (!first.done) {
        this.#count -= this.#byAnchor.get(first.value)?.length ?? 0;
        this.#byAnchor.delete(first.value);
      }
    }
    this.#byAnchor.set(anchor, [...(this.#byAnchor.get(anchor) ?? []), item]);
    this.#count += 1;
  }

  /** The entry an item follows (null: before the first); undefined when this chat has no such item. */
  anchorOf(sessionId: string | undefined, itemId: string): string | null | undefined {
    this.#switch(sessionId);
    for (const [anchor, items] of this.#byAnchor) if (items.some((i) => i.id === itemId)) return anchor;
    return undefined;
  }

  #switch(sessionId: string | undefined): void {
    if (sessionId === this.#sessionId) return;
    this.#sessionId = sessionId;
    this.#byAnchor = new Map();
    this.#count = 0;
  }
}
