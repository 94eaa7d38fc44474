// What the chat webview shows, projected from the chat service's events and its store: snapshots, live agent events, answers to the user.
import { LIMITS, LIST_LIMITS } from '../../protocol/limits.js';
import type { HostToWebview, PlanView, TranscriptItem } from '../../protocol/messages.js';
import { planOfBranch } from '../../engine/compaction/ledger.js';
import { UPDATE_PLAN_TOOL_NAME } from '../../engine/compaction/taskPlan.js';
import { Disposable } from '../base/disposable.js';
import { ephemeralId } from '../base/ids.js';
import type { Logger } from '../../engine/ports.js';
import type { ApprovalService } from '../services/approvals.js';
import type { ChatOutput } from '../services/chatPorts.js';
import type { ChatChange, ChatService } from '../services/chatService.js';
import type { SessionService } from '../services/sessionService.js';
import type { SettingsReader } from '../services/settings.js';
import { categoriesOf } from '../../node/sessionBudget.js';
import { capsuleView } from './compactionViews.js';
import { EventBridge, type BridgeHost } from './eventBridge.js';
import { pageOf } from './transcriptItems.js';
import { TranscriptView } from './transcriptView.js';
import { toBudgetView, toSessionView, toSettingsView } from './viewModels.js';

/** The one way out to the webview (the chat view provider implements it). */
export interface ChatTransport {
  post(message: HostToWebview): void;
}

export interface ProjectionDeps {
  readonly chat: ChatService;
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly transport: ChatTransport;
  readonly logger: Logger;
  readonly approvals: ApprovalService;
}

export class ChatProjection extends Disposable implements ChatOutput {
  readonly #transcript = new TranscriptView();
  #bridge: EventBridge;

  constructor(private readonly d: ProjectionDeps) {
    super();
    this.#bridge = new EventBridge(this.#bridgeHost());
    this._register(d.chat.onDidChange((c) => this.#onChange(c)));
    this._register(d.approvals.onDidChange(() => this.#post({ type: 'approvals', approvals: d.approvals.pending })));
  }

  #post(message: HostToWebview): void {
    this.d.transport.post(message);
  }

  #onChange(c: ChatChange): void {
    switch (c.kind) {
      case 'budget': {
        const b = this.d.chat.budget;
        if (b) this.#post({ type: 'budget', budget: toBudgetView(b) });
        return;
      }
      case 'state':
        if (c.cards) this.#transcript.reset();
        this.#post(this.snapshot());
        return;
      case 'setup':
        this.#post({ type: 'setup', setup: c.setup });
        return;
      case 'queue':
        this.#post({ type: 'queue', items: [...c.items] });
        return;
      case 'busy':
        this.#post({ type: 'busy', busy: c.busy });
        return;
      case 'agent':
        this.#bridge.handle(c.event);
        // The tool result is in the store by now, so the branch already holds the new plan.
        if (c.event.type === 'tool_end' && c.event.name === UPDATE_PLAN_TOOL_NAME && !c.event.isError) this.#post({ type: 'plan', plan: this.plan() });
        return;
      case 'opened':
        this.#transcript.reset(c.durations);
        this.#bridge.setModel(c.model, c.provider);
        return;
      case 'closed':
        // The old chat's barrier line and stream must not show in the next one.
        this.#bridge = new EventBridge(this.#bridgeHost());
        return;
      case 'turn':
        this.#bridge.expectTurn(c.clientId);
        return;
      case 'rewound':
        // The last result line speaks of a compaction on the branch the chat left.
        this.#bridge.forgetResultLine();
        return;
      case 'tree':
        return;
      default: {
        const _exhaustive: never = c;
        return _exhaustive;
      }
    }
  }

  /** Everything the webview shows; sent after every `ready` and whenever the chat changed under it. */
  snapshot(): HostToWebview {
    const chat = this.d.chat;
    const store = chat.store;
    const error = this.d.sessions.error;
    return {
      type: 'snapshot',
      session: store ? toSessionView(store) : null,
      budget: chat.budget ? toBudgetView(chat.budget) : null,
      settings: toSettingsView(this.d.settings.current),
      ...(error === undefined ? {} : { error: error.slice(0, LIMITS.notice) }),
      transcript: pageOf(store ? [...this.items(), ...this.#bridge.liveItems()] : []),
      models: [...chat.models],
      currentModelId: chat.currentModelId(),
      busy: chat.jobs.busy,
      queue: chat.jobs.inputs,
      barrier: this.#bridge.barrier,
      setup: chat.setup,
      plan: this.plan(),
      approvals: this.d.approvals.pending,
    };
  }

  /** The plan of the active branch: the latest capsule's, updated by later update_plan calls. */
  plan(): PlanView {
    const branch = this.d.chat.store?.tree.branch() ?? [];
    return (planOfBranch(branch) ?? []).slice(0, LIST_LIMITS.planSteps).map((i) => ({ step: i.step.slice(0, LIMITS.label), status: i.status }));
  }

  /** Every item of the active branch, command answers included. */
  items(): TranscriptItem[] {
    const store = this.d.chat.store;
    return store ? this.#transcript.items(store, this.d.chat.basis()) : [];
  }

  /** Answers `loadOlder`: the page before `beforeId`, which may be a live item id the webview still holds. */
  postOlder(beforeId: string): void {
    const page = pageOf(this.items(), this.#bridge.entryIdOf(beforeId) ?? beforeId);
    this.#post({ type: 'olderItems', beforeId, items: page.items, hasMore: page.hasMore });
  }

  // ---- answers to the user (ChatOutput) -------------------------------------------------------------------

  echo(text: string, clientId?: string): void {
    this.#addEphemeral({ id: ephemeralId(), kind: 'user', text: text.slice(0, LIMITS.input), ...(clientId === undefined ? {} : { clientId }) });
  }

  info(text: string): void {
    this.#addEphemeral({ id: ephemeralId(), kind: 'info', text: text.slice(0, LIMITS.answer) });
  }

  fail(text: string): void {
    this.#addEphemeral({ id: ephemeralId(), kind: 'error', text: text.slice(0, LIMITS.answer) });
  }

  notify(level: 'info' | 'warning' | 'error', text: string): void {
    this.#post({ type: 'notice', level, text: text.slice(0, LIMITS.notice) });
  }

  showCapsule(checkpointId: string): void {
    const store = this.d.chat.store;
    const view = store ? capsuleView(store.tree, checkpointId, this.d.chat.basis()) : undefined;
    if (view) this.#post({ type: 'capsule', capsule: view });
    else this.notify('error', `There is no capsule at ${checkpointId} in this chat.`);
  }

  #addEphemeral(item: TranscriptItem): void {
    this.#transcript.addEphemeral(this.d.chat.store, item);
    this.#post({ type: 'itemsAppended', items: [item] });
  }

  #bridgeHost(): BridgeHost {
    const chat = this.d.chat;
    return {
      post: (m) => this.#post(m),
      entry: (id) => chat.store?.tree.get(id),
      leaf: () => {
        const id = chat.store?.leafId();
        return id === null || id === undefined ? undefined : chat.store?.tree.get(id);
      },
      entries: () => chat.store?.entries() ?? [],
      categories: () => categoriesOf(chat.store?.tree.branch() ?? [], chat.basis()),
      measured: () => chat.remeasure(),
      ephemeral: (item) => this.#addEphemeral(item),
      compacted: (e) => {
        if (e.outcome === 'completed' && e.checkpointId !== undefined) this.#transcript.compacted(e.checkpointId, e.durationMs);
      },
      log: (level, text) => this.d.logger.log(level, text),
    };
  }
}
