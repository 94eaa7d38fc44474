// The open chat as webview items: the active branch, cards of its compactions (cached), and command answers kept beside it.
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { CompactionCard, TranscriptItem } from '../../protocol/messages.js';
import { historyCard } from './compactionViews.js';
import { EphemeralItems } from './ephemeralItems.js';
import type { MeterBasis } from '../services/meter.js';
import { branchItems } from './transcriptItems.js';

export class TranscriptView {
  readonly #ephemeral = new EphemeralItems();
  /** Cards of earlier compactions cost a measurement each: computed once per capsule and model. */
  readonly #cards = new Map<string, CompactionCard>();
  /** Compaction durations by checkpoint id (from the flight log, then live). */
  #durations = new Map<string, number>();

  /** A new chat or model: cards are measured again, with the durations known for that chat. */
  reset(durations?: Map<string, number>): void {
    this.#cards.clear();
    if (durations) this.#durations = durations;
  }

  compacted(checkpointId: string, durationMs: number): void {
    this.#durations.set(checkpointId, durationMs);
  }

  /** Keeps an item that is not an entry right after the current leaf of `store`. */
  addEphemeral(store: JsonlSessionStore | undefined, item: TranscriptItem): void {
    this.#ephemeral.add(store?.header.id, store?.leafId() ?? null, item);
  }

  items(store: JsonlSessionStore, basis: MeterBasis): TranscriptItem[] {
    return branchItems(store.tree.branch(), {
      ephemeral: this.#ephemeral.of(store.header.id),
      card: (capsule) => {
        const key = `${capsule.id}|${basis.model.model}`;
        const hit = this.#cards.get(key);
        if (hit) return hit;
        const card = historyCard(capsule, store.tree, basis, this.#durations.get(capsule.checkpointId));
        this.#cards.set(key, card);
        return card;
      },
    });
  }
}
