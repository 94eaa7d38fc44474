// The open chat as webview items: the active branch folded into items (whole for a snapshot, then entry by entry as they are appended), cards cached, command answers kept beside it.
import { LIMITS } from '../../protocol/limits.js';
import { TASK_TOOL_NAME } from '../../engine/agent/subagentTask.js';
import { lineOf, type BranchLine } from '../../engine/transcript/branchLine.js';
import { BranchIndex } from '../../engine/transcript/branches.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { ChatReads } from '../../node/chatReads.js';
import type { CompactionCard, TranscriptItem } from '../../protocol/messages.js';
import { historyCard } from './compactionViews.js';
import { EphemeralItems } from './ephemeralItems.js';
import type { MeterBasis } from '../services/meterBasis.js';
import { subagentLines, subagentPage, subagentView, rowOfItem, SubagentIndex } from './subagentViews.js';
import { capsuleItem, ItemFold, PAGE_SIZE, pageOf, type ItemChanges, type ItemContext } from './transcriptItems.js';

/** A page of items for the webview; `hasMore`: older items exist (the webview asks with `loadOlder`). */
export interface ItemPage {
  readonly items: TranscriptItem[];
  readonly hasMore: boolean;
}

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
  #subagents: { readonly chat: ChatReads; readonly index: SubagentIndex } | undefined;
  readonly #compacting = new Set<string>();

  /** `links` finds the existing workspace files a text names (answers and tool rows link them). */
  constructor(private readonly links?: ItemContext['links']) {}

  /** A new chat or model: cards are measured again, with the durations known for that chat. */
  reset(durations?: Map<string, number>): void {
    this.#cards.clear();
    if (durations) this.#durations = durations;
  }

  /** A compaction's duration is known only after its capsule was appended: the card is built again, once. */
  compacted(store: ChatReads, checkpointId: string, durationMs: number): TranscriptItem | undefined {
    this.#durations.set(checkpointId, durationMs);
    const live = this.#live;
    if (live?.sessionId !== store.header.id) return undefined;
    const capsule = lineOf(store.tree).findCapsule((c) => c.checkpointId === checkpointId);
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
  addEphemeral(store: ChatReads | undefined, item: TranscriptItem): void {
    this.#ephemeral.add(store?.header.id, store?.leafId() ?? null, item);
    if (store && this.#live?.sessionId === store.header.id && this.#live.fold.tip === store.leafId()) this.#live.fold.addExtra(item);
  }

  /** Every item of the active branch, folded from the root (a walk of the whole branch: tests and tools, not the chat). */
  items(store: ChatReads, basis: MeterBasis): TranscriptItem[] {
    const fold = new ItemFold(this.#context(store, basis));
    for (const e of store.tree.branch()) fold.add(e);
    return [...fold.items];
  }

  /**
   * The newest page of the active branch's items, `extra` (what is streaming) after them; the live fold starts over
   * from here. Only the last messages are folded, from a message far enough back to fill the page, so a snapshot
   * costs the same in a chat of a thousand entries as in one of a million.
   */
  page(store: ChatReads, basis: MeterBasis, extra: readonly TranscriptItem[] = []): ItemPage {
    const line = lineOf(store.tree);
    const end = line.length;
    for (let span = PAGE_SIZE; ; span *= 2) {
      const start = end - span <= 0 ? 0 : line.messageAtOrBefore(end - span);
      const { fold, ctx } = this.#fold(store, basis, line, start, end);
      const items = [...fold.items, ...extra];
      if (items.length <= PAGE_SIZE && start > 0) continue;
      this.#live = { sessionId: store.header.id, fold, ctx };
      const page = pageOf(items);
      return { items: page.items, hasMore: page.hasMore || start > 0 };
    }
  }

  /** The page of items just before `beforeId` (an item the webview shows), folded from the messages around it. */
  older(store: ChatReads, basis: MeterBasis, beforeId: string): ItemPage {
    const line = lineOf(store.tree);
    const at = this.#positionOfItem(store, line, beforeId);
    if (at === null) return { items: [], hasMore: false };
    if (at === undefined) return pageOf(this.items(store, basis), beforeId);
    // Through the next message: what it changes in earlier items (a failed turn's Retry ends, a fork settles) shows.
    const end = Math.min(line.length, (line.messageAfter(at) ?? line.length) + 1);
    for (let span = PAGE_SIZE; ; span *= 2) {
      const start = at - span <= 0 ? 0 : line.messageAtOrBefore(at - span);
      const page = pageOf(this.#fold(store, basis, line, start, end).fold.items, beforeId);
      if (page.items.length < PAGE_SIZE && start > 0) continue;
      return { items: page.items, hasMore: page.hasMore || start > 0 };
    }
  }

  /** The items of the branch line's entries [start, end); a fold from a message starts with the model in force there. */
  #fold(store: ChatReads, basis: MeterBasis, line: BranchLine, start: number, end: number): { readonly fold: ItemFold; readonly ctx: ItemContext } {
    const ctx = this.#context(store, basis);
    const lastModel = start === 0 ? undefined : line.modelBefore(start);
    const fold = new ItemFold(ctx, start === 0 ? undefined : lastModel === undefined ? {} : { lastModel });
    for (let p = start; p < end; p++) {
      const e = line.at(p);
      if (e !== undefined) fold.add(e);
    }
    return { fold, ctx };
  }

  /** Where the entry that shows `itemId` sits on the branch; null: before the first entry; undefined: not found. */
  #positionOfItem(store: ChatReads, line: BranchLine, itemId: string): number | null | undefined {
    const direct = line.positionOf(itemId);
    if (direct !== undefined) return direct;
    // A tool row is keyed by the assistant entry that asked (toolItemId).
    const slash = itemId.indexOf('/');
    const asked = slash > 0 ? line.positionOf(itemId.slice(0, slash)) : undefined;
    if (asked !== undefined) return asked;
    const anchor = this.#ephemeral.anchorOf(store.header.id, itemId);
    return anchor === null ? null : anchor === undefined ? undefined : line.positionOf(anchor);
  }

  /** What an appended entry adds to the items last sent; undefined when it does not extend them (another chat or branch). */
  appended(store: ChatReads, entry: Entry): ItemChanges | undefined {
    const live = this.#live;
    // A leaf move changes the branch itself: only a new snapshot can show it.
    if (live?.sessionId !== store.header.id || entry.type === 'leaf' || entry.parentId !== live.fold.tip) return undefined;
    return live.fold.add(entry);
  }

  #index(store: ChatReads): SubagentIndex {
    if (this.#subagents?.chat !== store) this.#subagents = { chat: store, index: new SubagentIndex(() => store.entries()) };
    return this.#subagents.index;
  }

  /**
   * A running subagent did something (a request, a tool call, a compaction): its card again, replaced in the live
   * fold; undefined when its row is not shown or already has its result (the result entry's card is final).
   */
  subagentChanged(
    store: ChatReads,
    callId: string,
    compacting: boolean,
    started: { readonly id: string; readonly description: string },
  ): TranscriptItem | undefined {
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
  subagentTranscript(store: ChatReads, itemId: string, page: number): ReturnType<typeof subagentPage> | undefined {
    const r = rowOfItem(itemId);
    const entries = r === undefined ? [] : this.#index(store).of(r.assistantId, r.callId);
    return entries.length === 0 ? undefined : subagentPage(subagentLines(entries), page);
  }

  #context(store: ChatReads, basis: MeterBasis): ItemContext {
    if (this.#branches?.tree !== store.tree) this.#branches = new BranchIndex(store.tree);
    const branches = this.#branches;
    return {
      ephemeral: this.#ephemeral.of(store.header.id),
      clientIdOf: (id) => this.#clientIds.get(id),
      ...(this.links === undefined ? {} : { links: this.links }),
      forkOf: (id) => branches.forkOf(id),
      subagent: (assistantId, callId, result) =>
        subagentView(this.#index(store).of(assistantId, callId), result, result === undefined && this.#compacting.has(callId)),
      card: (capsule) => {
        // A page may end before the capsule's undo: the card shows the state the branch has now, as the whole fold would.
        const undone = lineOf(store.tree).undone(capsule.id);
        const key = `${capsule.id}|${basis.model.model}`;
        const hit = this.#cards.get(key);
        if (hit) return undone ? { ...hit, undone } : hit;
        const card = historyCard(capsule, store.tree, basis, this.#durations.get(capsule.checkpointId));
        this.#cards.set(key, card);
        return undone ? { ...card, undone } : card;
      },
    };
  }
}
