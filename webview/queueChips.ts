// The composer's queued-input chips: the host's queue plus what was sent during a turn and is not listed there yet.
import type { QueuedInput } from '../src/protocol/messages.js';
import { el, icon } from './dom.js';

/** The queued-input chips above the message box. */
export class QueueChips {
  readonly element = el('div', { className: 'queue hidden', attrs: { role: 'list', 'aria-label': 'Queued messages' } });
  #hostQueue: readonly QueuedInput[] = [];
  /** Sent while busy and not yet listed by the host; shown at once so nothing typed seems lost. */
  #pending: QueuedInput[] = [];

  /** The host's queue is the truth; pending chips it now lists are handed over to it. */
  set(items: readonly QueuedInput[]): void {
    this.#hostQueue = items;
    const listed = new Set(items.map((q) => q.id));
    this.#pending = this.#pending.filter((p) => !listed.has(p.id));
    this.#render();
  }

  /** A snapshot: whatever was pending is either in its queue or already consumed. */
  reset(items: readonly QueuedInput[]): void {
    this.#pending = [];
    this.set(items);
  }

  /** The host turned a queued input into a user message. */
  consumed(clientId: string): void {
    const before = this.#pending.length;
    this.#pending = this.#pending.filter((p) => p.id !== clientId);
    if (before !== this.#pending.length) this.#render();
  }

  /** Sent while a turn or a compaction runs: a chip until the host lists it. */
  addPending(item: QueuedInput): void {
    this.#pending.push(item);
    this.#render();
  }

  #render(): void {
    const all = [...this.#hostQueue, ...this.#pending];
    this.element.classList.toggle('hidden', all.length === 0);
    this.element.replaceChildren(
      ...all.map((q) =>
        el('div', { className: 'chip queued', attrs: { role: 'listitem', title: q.text } }, [
          icon('clock'),
          el('span', { className: 'chip-label', text: 'Queued' }),
          el('span', { className: 'chip-text', text: q.text }),
        ]),
      ),
    );
  }
}
