// Turns the agent's events into chat messages: user echo, streamed answers, tool items, the barrier line, cards, errors.
import { LIMITS } from '../../protocol/limits.js';
import type { AgentEvent } from '../../engine/agent/agentEvents.js';
import type { BarrierEvent } from '../../engine/compaction/barrierEvents.js';
import type { TokenCategories } from '../../engine/tokens/estimate.js';
import type { CheckpointEntry, Entry } from '../../engine/transcript/schema.js';
import type { BarrierView, HostToWebview, TranscriptItem } from '../../protocol/messages.js';
import { ephemeralId } from '../base/ids.js';
import { capsuleAt, liveCard } from './compactionViews.js';
import { argsSummary, modelChangeText, resultPreview, toolItemId, toolStatusOf, turnEndItem, userItem } from './transcriptItems.js';

export interface BridgeHost {
  post(message: HostToWebview): void;
  /** Entries of the open chat, by id, and the current leaf. */
  entry(id: string): Entry | undefined;
  leaf(): Entry | undefined;
  entries(): readonly Entry[];
  /** The meter's categories of the current branch. */
  categories(): TokenCategories;
  /** Something was measured or appended: recompute the budget and post it. */
  measured(): void;
  /** An item that is not an entry (kept in memory after the current leaf). */
  ephemeral(item: TranscriptItem): void;
  /** A compaction finished (durations for later cards, Project Memory for /compact). */
  compacted(e: Extract<BarrierEvent, { type: 'compaction_end' }>): void;
  log(level: 'info' | 'warn', text: string): void;
}

interface Stream {
  readonly id: string;
  readonly model: string | undefined;
  posted: boolean;
  text: string;
}

export class EventBridge {
  #clientId: string | undefined;
  #stream: Stream | undefined;
  #lastAssistant = '';
  #model: string | undefined;
  #provider: string | undefined;
  readonly #barriers = new Map<string, { readonly trigger: BarrierView['trigger']; readonly before: TokenCategories }>();
  #barrier: BarrierView | null = null;
  /** Live answer ids → the assistant entries they became (the webview may still page from one). */
  readonly #aliases = new Map<string, string>();

  constructor(private readonly host: BridgeHost) {}

  /** The running barrier, or the last one's result line (for snapshots). */
  get barrier(): BarrierView | null {
    return this.#barrier;
  }

  /** After a rewind the last result line speaks of a compaction on the branch the chat left: drop it. */
  forgetResultLine(): void {
    if (this.#barrier?.phase === 'end') this.#barrier = null;
  }

  /** The answer being streamed, for a snapshot taken mid-turn (it is not an entry until it ends). */
  liveItems(): TranscriptItem[] {
    const s = this.#stream;
    return s?.posted ? [{ id: s.id, kind: 'assistant', markdown: s.text, streaming: true, ...(s.model === undefined ? {} : { model: s.model }) }] : [];
  }

  entryIdOf(itemId: string): string | undefined {
    return this.#aliases.get(itemId);
  }

  /** The next turn_start belongs to the `send` with this clientId. */
  expectTurn(clientId: string | undefined): void {
    this.#clientId = clientId;
  }

  setModel(model: string, provider: string): void {
    this.#model = model;
    this.#provider = provider;
  }

  handle(e: AgentEvent): void {
    const h = this.host;
    switch (e.type) {
      case 'turn_start': {
        const user = h.entry(e.userEntryId);
        if (user?.type === 'user') h.post({ type: 'itemsAppended', items: [userItem(user, this.#clientId)] });
        this.#clientId = undefined;
        h.measured();
        break;
      }
      case 'assistant_start':
        this.#stream = { id: `live_${e.turnId}_${e.request}`, model: this.#model, posted: false, text: '' };
        break;
      case 'text_delta':
        this.#delta(e.delta);
        break;
      case 'assistant_end':
        this.#assistantEnd(e);
        h.measured();
        break;
      case 'tool_start':
        h.post({ type: 'itemsAppended', items: [{ id: toolItemId(this.#lastAssistant, e.callId), kind: 'tool', name: e.name.slice(0, LIMITS.id), argsSummary: argsSummary(e.arguments), status: 'running' }] });
        break;
      case 'tool_end':
        h.post({
          type: 'itemUpdated',
          item: {
            id: toolItemId(this.#lastAssistant, e.callId),
            kind: 'tool',
            name: e.name.slice(0, LIMITS.id),
            argsSummary: argsSummary(this.#argumentsOf(e.callId)),
            status: toolStatusOf({ isError: e.isError, content: e.content }, e.cancelled),
            durationMs: Math.max(0, e.durationMs),
            resultPreview: resultPreview(e.content),
          },
        });
        h.measured();
        break;
      case 'barrier':
        this.#onBarrier(e.event, e.turnId !== undefined);
        break;
      case 'cache_metrics':
        break; // the engine already logs the cache line (turnRequest), once per response
      case 'notice':
        h.post({ type: 'notice', level: e.level === 'warn' ? 'warning' : e.level, text: e.message.slice(0, LIMITS.notice) });
        break;
      case 'model_changed': {
        // A new key or limits for the same model is no news in the chat; another model is.
        const changed = e.model !== this.#model || e.provider !== this.#provider;
        this.setModel(e.model, e.provider);
        const leaf = h.leaf();
        if (changed) h.post({ type: 'itemsAppended', items: [{ id: leaf?.type === 'model_change' ? leaf.id : ephemeralId(), kind: 'info', text: modelChangeText(e, e.handoff) }] });
        h.measured();
        break;
      }
      case 'loop_detected':
        h.ephemeral({ id: ephemeralId(), kind: 'loop', toolName: e.name.slice(0, 200), text: `The agent called ${e.name.slice(0, 200)} ${e.repeats} times in a row with the same arguments, so the turn was stopped. Continue, or Stop and tell it what to do differently.` });
        break;
      case 'turn_end': {
        this.#endStream();
        const leaf = h.leaf();
        const entry = leaf?.type === 'turn_end' && leaf.turnId === e.turnId ? leaf : undefined;
        const item = turnEndItem(entry?.id ?? ephemeralId(), e.status, e.error, entry?.timestamp);
        if (item) h.post({ type: 'itemsAppended', items: [item] });
        h.measured();
        break;
      }
    }
  }

  #delta(text: string): void {
    const s = this.#stream;
    if (!s || text === '') return;
    if (!s.posted) {
      s.posted = true;
      this.host.post({ type: 'itemsAppended', items: [{ id: s.id, kind: 'assistant', markdown: '', streaming: true, ...(s.model === undefined ? {} : { model: s.model }) }] });
    }
    s.text += text;
    this.host.post({ type: 'streamDelta', itemId: s.id, text: text.slice(0, LIMITS.delta) });
  }

  #assistantEnd(e: Extract<AgentEvent, { type: 'assistant_end' }>): void {
    const s = this.#stream;
    this.#stream = undefined;
    if (e.entryId !== undefined) this.#lastAssistant = e.entryId;
    if (e.discarded === true) {
      if (s?.posted) this.host.post({ type: 'streamEnd', itemId: s.id, markdown: '_This answer was cut off by a context overflow; it is generated again after the context is compacted._' });
      return;
    }
    if (s?.posted) {
      this.host.post({ type: 'streamEnd', itemId: s.id, markdown: e.content.slice(0, LIMITS.document) });
      if (e.entryId !== undefined) this.#aliases.set(s.id, e.entryId);
    } else if (e.content.trim() !== '' && e.entryId !== undefined) {
      // A reply that arrived without deltas (non-streaming providers) still shows up.
      this.host.post({ type: 'itemsAppended', items: [{ id: e.entryId, kind: 'assistant', markdown: e.content, ...(this.#model === undefined ? {} : { model: this.#model }) }] });
    }
  }

  /** A stream cut off by a cancel or failure ends with whatever arrived. */
  #endStream(): void {
    const s = this.#stream;
    this.#stream = undefined;
    if (s?.posted) this.host.post({ type: 'streamEnd', itemId: s.id, markdown: s.text });
  }

  #argumentsOf(callId: string): string {
    const a = this.host.entry(this.#lastAssistant);
    return a?.type === 'assistant' ? (a.toolCalls.find((c) => c.id === callId)?.arguments ?? '') : '';
  }

  #setBarrier(b: BarrierView): void {
    this.#barrier = b;
    this.host.post({ type: 'barrier', ...b });
  }

  #onBarrier(b: BarrierEvent, inTurn: boolean): void {
    switch (b.type) {
      case 'compaction_start':
        this.#barriers.set(b.plan.operationId, { trigger: b.plan.trigger, before: this.host.categories() });
        this.#setBarrier({ phase: 'start', operationId: b.plan.operationId, trigger: b.plan.trigger, percent: 0 });
        break;
      case 'compaction_progress': {
        const trigger = this.#barriers.get(b.operationId)?.trigger ?? 'auto_threshold';
        this.#setBarrier({ phase: 'progress', operationId: b.operationId, trigger, percent: Math.min(100, Math.max(0, b.percent)) });
        break;
      }
      case 'compaction_end':
        this.#onEnd(b);
        break;
      case 'calibration_fallback':
        this.host.post({ type: 'notice', level: 'warning', text: b.message.slice(0, 4000) });
        break;
      case 'preflight_blocked':
        // Inside a turn the turn's own end reports it (once); a /compact or idle compaction has no turn to do that.
        if (!inTurn) this.host.ephemeral({ id: ephemeralId(), kind: 'error', text: b.message.slice(0, LIMITS.answer) });
        break;
    }
  }

  #onEnd(b: Extract<BarrierEvent, { type: 'compaction_end' }>): void {
    const h = this.host;
    const started = this.#barriers.get(b.operationId);
    this.#barriers.delete(b.operationId);
    const ck = b.checkpointId !== undefined && /^ck_[A-Za-z0-9_-]+$/.test(b.checkpointId) ? b.checkpointId : undefined;
    this.#setBarrier({
      phase: 'end',
      operationId: b.operationId,
      trigger: b.trigger,
      percent: 100,
      // Completed lines are composed by the webview in words; other outcomes carry the engine's reason.
      ...(b.outcome === 'completed' ? {} : { line: b.line.slice(0, LIMITS.line) }),
      result: {
        outcome: b.outcome,
        tokensBefore: b.tokensBefore,
        ...(b.tokensAfter === undefined ? {} : { tokensAfter: b.tokensAfter }),
        ...(ck === undefined ? {} : { checkpointId: ck }),
        durationMs: Math.max(0, b.durationMs),
        ...(b.quality === undefined ? {} : { quality: b.quality }),
      },
    });
    h.compacted(b);
    if (b.outcome === 'completed' && ck !== undefined) {
      const checkpoint = h.entries().find((x): x is CheckpointEntry => x.type === 'checkpoint' && x.checkpointId === ck);
      const capsule = capsuleAt(h.entries(), ck);
      if (checkpoint) {
        const note = checkpoint.note === undefined ? {} : { note: checkpoint.note };
        h.post({ type: 'itemsAppended', items: [{ id: checkpoint.id, kind: 'checkpoint', checkpointId: ck, checkpointKind: checkpoint.kind, timestamp: checkpoint.timestamp, ...note }] });
      }
      const card = liveCard({ ...b, checkpointId: ck }, started?.before ?? h.categories(), h.categories(), capsule);
      h.post({ type: 'compactionCard', id: capsule?.id ?? ephemeralId(), ...(capsule ? { timestamp: capsule.timestamp } : {}), card });
    }
    h.measured();
  }
}
