// What the chat shows of the agent's events that are not (yet) entries: the streamed answer, the barrier line, notices, failures with nothing recorded.
import { plainOutcomeLine } from './plainWords.js';
import { LIMITS } from '../../protocol/limits.js';
import type { AgentEvent } from '../../engine/agent/agentEvents.js';
import type { BarrierEvent } from '../../engine/compaction/barrierEvents.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { BarrierView, HostToWebview, TranscriptItem } from '../../protocol/messages.js';
import { ephemeralId } from '../base/itemIds.js';
import { turnEndItem } from './transcriptItems.js';

export interface BridgeHost {
  post(message: HostToWebview): void;
  /** The open chat's current leaf entry. */
  leaf(): Entry | undefined;
  /** An item that is not an entry: kept after the current leaf (so snapshots show it too) and posted. */
  ephemeral(item: TranscriptItem): void;
  /** A compaction finished (its card learns the duration). */
  compacted(e: Extract<BarrierEvent, { type: 'compaction_end' }>): void;
}

/** The answer being streamed; it becomes an item only when its entry is appended. */
export interface LiveStream {
  readonly id: string;
  readonly model: string | undefined;
  posted: boolean;
  text: string;
}

/** An overflow throws the streamed text away; the note stays where the answer was. */
const DISCARDED = '_This answer was cut off by a context overflow; it is generated again after the context is compacted._';

export class EventBridge {
  #stream: LiveStream | undefined;
  #model: string | undefined;
  readonly #triggers = new Map<string, BarrierView['trigger']>();
  #barrier: BarrierView | null = null;

  constructor(private readonly host: BridgeHost) {}

  /** The running barrier, or the last one's result line (for snapshots). */
  get barrier(): BarrierView | null {
    return this.#barrier;
  }

  /** The chat moved to another branch: the last result line speaks of a compaction on the branch it left. */
  forgetResultLine(): void {
    if (this.#barrier?.phase === 'end') this.#barrier = null;
  }

  /** The answer being streamed, for a snapshot taken mid-turn (it is not an entry until it ends). */
  liveItems(): TranscriptItem[] {
    const s = this.#stream;
    return s?.posted ? [{ id: s.id, kind: 'assistant', markdown: s.text, streaming: true, ...(s.model === undefined ? {} : { model: s.model }) }] : [];
  }

  /** The assistant entry of the streamed answer was appended: the stream ends here, replaced by the entry's item. */
  takeStream(): LiveStream | undefined {
    const s = this.#stream;
    this.#stream = undefined;
    return s?.posted ? s : undefined;
  }

  setModel(model: string): void {
    this.#model = model;
  }

  handle(e: AgentEvent): void {
    switch (e.type) {
      case 'assistant_start':
        this.#stream = { id: `live_${e.turnId}_${e.request}`, model: this.#model, posted: false, text: '' };
        break;
      case 'text_delta':
        this.#delta(e.delta);
        break;
      case 'assistant_end':
        // With an entry the stream already ended when it was appended; without one the streamed text was thrown away.
        if (e.discarded === true) this.#discarded();
        break;
      case 'barrier':
        this.#onBarrier(e.event, e.turnId !== undefined);
        break;
      case 'notice':
        this.host.post({
          type: 'notice',
          level: e.level === 'warn' ? 'warning' : e.level,
          text: e.message.slice(0, LIMITS.notice),
          ...(e.transient === true ? { transient: true } : {}),
        });
        break;
      case 'model_changed':
        this.setModel(e.model);
        break;
      case 'loop_detected':
        this.host.ephemeral({
          id: ephemeralId(),
          kind: 'loop',
          toolName: e.name.slice(0, 200),
          text: `The agent called ${e.name.slice(0, 200)} ${e.repeats} times in a row with the same arguments, so the turn was stopped. Continue, or Stop and tell it what to do differently.`,
        });
        break;
      case 'turn_end': {
        this.#endStream();
        // A turn that could not record its end (a read-only chat) still says how it ended.
        const leaf = this.host.leaf();
        if (leaf?.type === 'turn_end' && leaf.turnId === e.turnId) break;
        const item = turnEndItem(
          ephemeralId(),
          e.status,
          e.error,
          undefined,
          e.fault === undefined ? undefined : { fault: e.fault, turnId: e.turnId, retry: false },
        );
        if (item) this.host.ephemeral(item);
        break;
      }
      case 'turn_start':
      case 'tool_start':
      case 'tool_end':
      case 'cache_metrics':
        break; // shown from the entries they appended (the engine logs the cache line itself)
    }
  }

  #delta(text: string): void {
    const s = this.#stream;
    if (!s || text === '') return;
    if (!s.posted) {
      s.posted = true;
      this.host.post({
        type: 'itemsAppended',
        items: [{ id: s.id, kind: 'assistant', markdown: '', streaming: true, ...(s.model === undefined ? {} : { model: s.model }) }],
      });
    }
    s.text += text;
    this.host.post({ type: 'streamDelta', itemId: s.id, text: text.slice(0, LIMITS.delta) });
  }

  #discarded(): void {
    const s = this.#stream;
    this.#stream = undefined;
    if (!s?.posted) return;
    this.host.post({ type: 'streamEnd', itemId: s.id, markdown: DISCARDED });
    this.host.ephemeral({ id: s.id, kind: 'assistant', markdown: DISCARDED, ...(s.model === undefined ? {} : { model: s.model }) });
  }

  /** A stream cut off without an entry (the turn ended mid-answer) ends with whatever arrived. */
  #endStream(): void {
    const s = this.#stream;
    this.#stream = undefined;
    if (s?.posted) this.host.post({ type: 'streamEnd', itemId: s.id, markdown: s.text });
  }

  #setBarrier(b: BarrierView): void {
    this.#barrier = b;
    this.host.post({ type: 'barrier', ...b });
  }

  #onBarrier(b: BarrierEvent, inTurn: boolean): void {
    switch (b.type) {
      case 'compaction_start':
        this.#triggers.set(b.plan.operationId, b.plan.trigger);
        this.#setBarrier({ phase: 'start', operationId: b.plan.operationId, trigger: b.plan.trigger, percent: 0 });
        break;
      case 'compaction_progress': {
        const trigger = this.#triggers.get(b.operationId) ?? 'auto_threshold';
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
    this.#triggers.delete(b.operationId);
    const ck = b.checkpointId !== undefined && /^ck_[A-Za-z0-9_-]+$/.test(b.checkpointId) ? b.checkpointId : undefined;
    this.#setBarrier({
      phase: 'end',
      operationId: b.operationId,
      trigger: b.trigger,
      percent: 100,
      // Completed lines are composed by the webview in words; other outcomes carry the engine's reason.
      ...(b.outcome === 'completed' ? {} : { line: plainOutcomeLine(b.outcome, b.line).slice(0, LIMITS.line) }),
      result: {
        outcome: b.outcome,
        tokensBefore: b.tokensBefore,
        ...(b.tokensAfter === undefined ? {} : { tokensAfter: b.tokensAfter }),
        ...(ck === undefined ? {} : { checkpointId: ck }),
        durationMs: Math.max(0, b.durationMs),
        ...(b.quality === undefined ? {} : { quality: b.quality }),
      },
    });
    // The checkpoint and the card were shown when their entries were appended.
    this.host.compacted(b);
  }
}
