// The open chat as webview items: the active branch folded into items (whole for a snapshot, then entry by entry as they are appended), cards cached, command answers kept beside it.
import { LIMITS } from '../../protocol/limits.js';
import { TASK_TOOL_NAME } from '../../engine/agent/subagentTask.js';
import { BranchIndex } from '../../engine/transcript/branches.js';
import type { CapsuleEntry, Entry } from '../../engine/transcript/schema.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { CompactionCard, TranscriptItem } from '../../protocol/messages.js';
import { historyCard } from './compactionViews.js';
import { EphemeralItems } from './ephemeralItems.js';
import type { MeterBasis } from '../services/meterBasis.js';
import { subagentLines, subagentPage, subagentView, rowOfItem, SubagentIndex } from './subagentViews.js';
import { capsuleItem, ItemFold, type ItemChanges, type ItemContext } from './transcriptItems.js';

/** Client ids are only needed while the composer still shows the pending bubble; a few recent ones suffice. */
const MAX_CLIENT_IDS = 50;

export class TranscriptView {
  readonly #ephemeral = new EphemeralItems();
  /** Cards of earlier compactions cost a measurement each: computed once per capsule and model. */
  readonly #cards = new Map<string, CompactionCard>();
  /** Compaction durations by checkpoint id (from the flight log, then live). */
  #durations = new Map<string, number>();
  readonly #clientIds = new Map<string, string>();
  /** The forks of the open chat's tree, read incrementally as it grows (a reopened chat has a new tree). */
  #branches: BranchIndex | undefined;
  /** The fold of the items last sent in full; appended entries continue it. */
  #live: { readonly sessionId: string; readonly fold: ItemFold; readonly ctx: ItemContext } | undefined;

  /** The subagents of the open chat by task row; the call ids of those compacting right now. */
  #subagents: { readonly store: JsonlSessionStore; readonly index: SubagentIndex } | undefined;
  readonly #compacting = new Set<string>();

  /** `links` finds the existing workspace files a text names (answers and tool rows link them). */
  constructor(private readonly links?: ItemContext['links']) {}

  /** A new chat or model: cards are measured again, with the durations known for that chat. */
  reset(durations?: Map<string, number>): void {
    this.#cards.clear();
    if (durations) this.#durations = durations;
  }

  /** A compaction's duration is known only after its capsule was appended: the card is built again, once. */
  compacted(store: JsonlSessionStore, checkpointId: string, durationMs: number): TranscriptItem | undefined {
    this.#durations.set(checkpointId, durationMs);
    const live = this.#live;
    if (live?.sessionId !== store.header.id) return undefined;
    const capsule = [...store.tree.branch()].reverse().find((e): e is CapsuleEntry => e.type === 'capsule' && e.checkpointId === checkpointId);
    if (!capsule) return undefined;
    for (const key of [...this.#cards.keys()]) if (key.startsWith(`${capsule.id}|`)) this.#cards.delete(key);
    const item = capsuleItem(capsule, live.ctx);
    return live.fold.replace(item) ? item : undefined;
  }

  /** The next user entry came from the `send` with this client id. */
  sentAs(userEntryId: string, clientId: string): void {
    this.#clientIds.set(userEntryId, clientId);
    const oldest = this.#clientIds.keys().next();
    if (this.#clientIds.size > MAX_CLIENT_IDS && !oldest.done) this.#clientIds.delete(oldest.value);
  }

  /** Keeps an item that is not an entry right after the current leaf of `store`. */
  addEphemeral(store: JsonlSessionStore | undefined, item: TranscriptItem): void {
    this.#ephemeral.add(store?.header.id, store?.leafId() ?? null, item);
    if (store && this.#live?.sessionId === store.header.id && this.#live.fold.tip === store.leafId()) this.#live.fold.addExtra(item);
  }

  /** Every item of the active branch; the live fold starts over from here. */
  items(store: JsonlSessionStore, basis: MeterBasis): TranscriptItem[] {
    const ctx = this.#context(store, basis);
    const fold = new ItemFold(ctx);
    for (const e of store.tree.branch()) fold.add(e);
    this.#live = { sessionId: store.header.id, fold, ctx };
    return [...fold.items];
  }

  /** What an appended entry adds to the items last sent; undefined when it does not extend them (another chat or branch). */
  appended(store: JsonlSessionStore, entry: Entry): ItemChanges | undefined {
    const live = this.#live;
    // A leaf move changes the branch itself: only a new snapshot can show it.
    if (live?.sessionId !== store.header.id || entry.type === 'leaf' || entry.parentId !== live.fold.tip) return undefined;
    return live.fold.add(entry);
  }

  #index(store: JsonlSessionStore): SubagentIndex {
    if (this.#subagents?.store !== store) this.#subagents = { store, index: new SubagentIndex(() => store.entries()) };
    return this.#subagents.index;
  }

  /**
   * A running subagent did something (a request, a tool call, a compaction): its card again, replaced in the live
   * fold; undefined when its row is not shown or already has its result (the result entry's card is final).
   */
  subagentChanged(store: JsonlSessionStore, callId: string, compacting: boolean, started: { readonly id: string; readonly description: string }): TranscriptItem | undefined {
    if (compacting) this.#compacting.add(callId);
    else this.#compacting.delete(callId);
    const live = this.#live;
    if (live?.sessionId !== store.header.id) return undefined;
    const row = [...live.fold.items].reverse().find((i) => i.kind === 'tool' && i.name === TASK_TOOL_NAME && rowOfItem(i.id)?.callId === callId);
    if (row?.kind !== 'tool' || row.status !== 'running') return undefined;
    const r = rowOfItem(row.id);
    // Before its first entry a subagent is its description and nothing more.
    const view = (r === undefined ? undefined : subagentView(this.#index(store).of(r.assistantId, r.callId), undefined, compacting)) ?? {
      id: started.id.slice(0, LIMITS.id),
      description: started.description.slice(0, LIMITS.label),
      status: 'running',
      contextTokens: 0,
      contextWindow: 0,
      requests: 0,
      tokens: 0,
      compactions: 0,
    };
    const item: TranscriptItem = { ...row, subagent: view };
    return live.fold.replace(item) ? item : undefined;
  }

  /** One page of the transcript of the subagent on the task row `itemId`; undefined when the row runs none. */
  subagentTranscript(store: JsonlSessionStore, itemId: string, page: number): ReturnType<typeof subagentPage> | undefined {
    const r = rowOfItem(itemId);
    const entries = r === undefined ? [] : this.#index(store).of(r.assistantId, r.callId);
    return entries.length === 0 ? undefined : subagentPage(subagentLines(entries), page);
  }

  #context(store: JsonlSessionStore, basis: MeterBasis): ItemContext {
    if (this.#branches?.tree !== store.tree) this.#branches = new BranchIndex(store.tree);
    const branches = this.#branches;
    return {
      ephemeral: this.#ephemeral.of(store.header.id),
      clientIdOf: (id) => this.#clientIds.get(id),
      ...(this.links === undefined ? {} : { links: this.links }),
      forkOf: (id) => branches.forkOf(id),
      subagent: (assistantId, callId, result) => subagentView(this.#index(store).of(assistantId, callId), result, result === undefined && this.#compacting.has(callId)),
      card: (capsule) => {
        const key = `${capsule.id}|${basis.model.model}`;
        const hit = this.#cards.get(key);
        if (hit) return hit;
        const card = historyCard(capsule, store.tree, basis, this.#durations.get(capsule.checkpointId));
        this.#cards.set(key, card);
        return card;
      },
    };
  }
}
