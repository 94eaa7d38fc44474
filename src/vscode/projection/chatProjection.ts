// What the chat webview shows, projected from the open chat's facade (snapshots, and each appended entry by the same fold) and the chat service's events: the streamed answer, the plan, answers to the user.
import { LIMITS, LIST_LIMITS, PATH_MAX } from '../../protocol/limits.js';
import type { Attachment, HostToWebview, McpServerView, PlanView, TranscriptItem } from '../../protocol/messages.js';
import type * as vscode from 'vscode';
import { planFigureOf } from '../../engine/compaction/planFigure.js';
import { UPDATE_PLAN_TOOL_NAME } from '../../engine/compaction/taskPlan.js';
import { Disposable } from '../base/disposable.js';
import { ephemeralId } from '../base/itemIds.js';
import type { Logger } from '../../engine/ports.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { SubagentEvent } from '../../node/subagents/subagentRunner.js';
import { allowRules, type ApprovalService } from '../services/approvals.js';
import type { ChatOutput } from '../services/chatPorts.js';
import type { ChatChange, ChatService } from '../services/chatService.js';
import type { SessionService } from '../services/sessionService.js';
import type { SettingsReader } from '../services/settings.js';
import type { WorkspaceFiles } from '../services/workspaceFileSearch.js';
import { capsuleView } from './compactionViews.js';
import { EventBridge, type BridgeHost } from './eventBridge.js';
import { TranscriptView } from './transcriptView.js';
import { toBudgetView, toSessionView, toSettingsView } from './viewModels.js';

/** The one way out to the webview (the chat view provider implements it). */
export interface ChatTransport {
  post(message: HostToWebview): void;
  /** The webview (re)loaded and said `ready`: it needs the whole state, before anything queued for it. */
  readonly onReady: vscode.Event<void>;
}

export interface ProjectionDeps {
  readonly chat: ChatService;
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly transport: ChatTransport;
  readonly logger: Logger;
  readonly approvals: ApprovalService;
  /** Which paths in answers, tool rows and capsules are existing workspace files (they become links). */
  readonly files?: Pick<WorkspaceFiles, 'links'>;
  /** The window's MCP servers as the setup panel lists them. */
  readonly mcp?: McpServerList;
}

interface McpServerList {
  views(): McpServerView[];
  readonly onDidChange: vscode.Event<void>;
}

export class ChatProjection extends Disposable implements ChatOutput {
  readonly #transcript: TranscriptView;
  #bridge: EventBridge;
  /** The composer's id of the `send` whose turn runs next; its user entry carries it. */
  #clientId: string | undefined;
  /** Running subagents: id → the parent's task call id (their events name only the subagent). */
  readonly #subagentCalls = new Map<string, { readonly callId: string; readonly description: string }>();

  constructor(private readonly d: ProjectionDeps) {
    super();
    const files = d.files;
    this.#transcript = new TranscriptView(files === undefined ? undefined : (texts) => files.links(texts));
    this.#bridge = new EventBridge(this.#bridgeHost());
    this._register(d.chat.onDidChange((c) => this.#onChange(c)));
    this._register(d.transport.onReady(() => this.#post(this.snapshot())));
    const mcp = d.mcp;
    if (mcp !== undefined) this._register(mcp.onDidChange(() => this.#post({ type: 'mcpServers', servers: mcp.views() })));
    this._register(
      d.approvals.onDidChange(() => {
        this.#post({ type: 'approvals', approvals: d.approvals.pending, allowRules: allowRules() });
        // An "always allow" whose rule could not be kept still ran once; the user hears why the rule was not saved.
        const refused = d.approvals.takeRefusedRule();
        if (refused !== undefined)
          this.notify(
            'warning',
            `Allowed once. The rule "${refused.slice(0, 80)}" was not saved: a rule must be the first words of the command, with no ; && | > or $.`,
          );
      }),
    );
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
      case 'appended':
        this.#appended(c.entry);
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
        if (c.event.type === 'turn_end') this.#clientId = undefined;
        // The tool result is in the store by now, so the branch already holds the new plan.
        if (c.event.type === 'tool_end' && c.event.name === UPDATE_PLAN_TOOL_NAME && !c.event.isError) this.#post({ type: 'plan', plan: this.plan() });
        return;
      case 'opened':
        this.#transcript.reset(c.durations);
        this.#bridge.setModel(c.model);
        return;
      case 'closed':
        // The old chat's barrier line and stream must not show in the next one.
        this.#bridge = new EventBridge(this.#bridgeHost());
        return;
      case 'turn':
        this.#clientId = c.clientId;
        return;
      case 'subagent':
        this.#subagent(c.event);
        return;
      case 'echo':
        this.echo(c.text, c.clientId);
        return;
      case 'fail':
        this.fail(c.text);
        return;
      case 'notice':
        this.notify(c.level, c.text);
        return;
      case 'tree':
        return;
      default: {
        const _exhaustive: never = c;
        return _exhaustive;
      }
    }
  }

  /** An entry reached the open chat: the items it adds, by the fold that built the last snapshot; another branch needs a snapshot. */
  #appended(entry: Entry): void {
    const open = this.d.chat.open;
    if (!open) return;
    if (entry.type === 'user' && this.#clientId !== undefined) {
      this.#transcript.sentAs(entry.id, this.#clientId);
      this.#clientId = undefined;
    }
    const changes = this.#transcript.appended(open, entry);
    if (!changes) {
      // The chat moved to another branch (a rewind): a result line of the old branch no longer applies.
      if (entry.type === 'leaf') this.#bridge.forgetResultLine();
      this.#post(this.snapshot());
      return;
    }
    let appended = changes.appended;
    const stream = entry.type === 'assistant' ? this.#bridge.takeStream() : undefined;
    const answer = appended[0];
    if (stream && answer?.kind === 'assistant') {
      this.#post({ type: 'streamEnd', itemId: stream.id, markdown: answer.markdown.slice(0, LIMITS.document), item: answer });
      appended = appended.slice(1);
    } else if (stream) this.#post({ type: 'streamEnd', itemId: stream.id, markdown: stream.text });
    if (appended.length > 0) this.#post({ type: 'itemsAppended', items: [...appended] });
    for (const item of changes.updated) this.#post({ type: 'itemUpdated', item });
  }

  /** A subagent's request, tool call or compaction: its card on the task row changes in place (docs/subagents.md#seeing-them). */
  #subagent(e: SubagentEvent): void {
    const open = this.d.chat.open;
    if (!open) return;
    let compacting = false;
    if (e.type === 'subagent_event') {
      const ev = e.event;
      // Streamed text and tool starts change no figure on the card; a compaction's progress is the same "compacting".
      const relevant =
        ev.type === 'assistant_end' ||
        ev.type === 'tool_end' ||
        ev.type === 'model_changed' ||
        (ev.type === 'barrier' && (ev.event.type === 'compaction_start' || ev.event.type === 'compaction_end'));
      if (!relevant) return;
      compacting = ev.type === 'barrier' && ev.event.type === 'compaction_start';
    }
    const run = e.type === 'subagent_event' ? this.#subagentCalls.get(e.id) : { callId: e.callId, description: e.description };
    if (e.type === 'subagent_start') this.#subagentCalls.set(e.id, run ?? { callId: e.callId, description: e.description });
    if (e.type === 'subagent_end') this.#subagentCalls.delete(e.id);
    if (run === undefined) return;
    const item = this.#transcript.subagentChanged(open, run.callId, compacting, { id: e.id, description: run.description });
    if (item) this.#post({ type: 'itemUpdated', item });
  }

  /** Answers `subagentTranscript`: one page of a subagent's own messages and tool calls. */
  postSubagentTranscript(itemId: string, page: number): void {
    const open = this.d.chat.open;
    const p = open ? this.#transcript.subagentTranscript(open, itemId, page) : undefined;
    if (p === undefined) {
      this.notify('info', 'That subagent wrote nothing this chat still has.');
      return;
    }
    this.#post({ type: 'subagentTranscript', itemId, page: p.page, pages: p.pages, lines: p.lines });
  }

  /** Everything the webview shows; sent after every `ready` and whenever the chat changed under it. */
  snapshot(): HostToWebview {
    const chat = this.d.chat;
    const open = chat.open;
    const error = this.d.sessions.error;
    return {
      type: 'snapshot',
      session: open ? toSessionView(open) : null,
      budget: chat.budget ? toBudgetView(chat.budget) : null,
      settings: toSettingsView(this.d.settings.current),
      ...(error === undefined ? {} : { error: error.slice(0, LIMITS.notice) }),
      transcript: open ? this.#transcript.page(open, chat.basis(), this.#bridge.liveItems()) : { items: [], hasMore: false },
      models: [...chat.models],
      currentModelId: chat.currentModelId(),
      busy: chat.busy,
      queue: chat.queued,
      barrier: this.#bridge.barrier,
      setup: chat.setup,
      plan: this.plan(),
      approvals: this.d.approvals.pending,
      allowRules: allowRules(),
      ...(this.d.mcp === undefined ? {} : { mcpServers: this.d.mcp.views() }),
    };
  }

  /** The plan of the active branch: the latest capsule's, updated by later update_plan calls (a running figure). */
  plan(): PlanView {
    const tree = this.d.chat.open?.tree;
    return ((tree === undefined ? null : planFigureOf(tree).plan()) ?? [])
      .slice(0, LIST_LIMITS.planSteps)
      .map((i) => ({ step: i.step.slice(0, LIMITS.label), status: i.status }));
  }

  /** Answers `loadOlder`: the page before `beforeId`. */
  postOlder(beforeId: string): void {
    const open = this.d.chat.open;
    const page = open ? this.#transcript.older(open, this.d.chat.basis(), beforeId) : { items: [], hasMore: false };
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
    const open = this.d.chat.open;
    const view = open ? capsuleView(open.tree, checkpointId, this.d.chat.basis()) : undefined;
    const links = view ? this.d.files?.links([view.text]) : undefined;
    if (view) this.#post({ type: 'capsule', capsule: links === undefined ? view : { ...view, links } });
    else this.notify('error', 'That capsule is not in this chat (it may belong to another chat or have been removed).');
  }

  fillComposer(text: string): void {
    this.#post({ type: 'composer', text: text.slice(0, LIMITS.input) });
  }

  /** The answer to one `findFiles`. */
  fileMatches(requestId: number, query: string, files: readonly string[]): void {
    this.#post({
      type: 'fileMatches',
      requestId,
      query: query.slice(0, PATH_MAX),
      files: files.filter((f) => f.length <= PATH_MAX).slice(0, LIST_LIMITS.fileMatches),
    });
  }

  mention(mention: string, attachment: Attachment): void {
    this.#post({ type: 'mention', mention, attachment });
  }

  #addEphemeral(item: TranscriptItem): void {
    this.#transcript.addEphemeral(this.d.chat.open, item);
    this.#post({ type: 'itemsAppended', items: [item] });
  }

  #bridgeHost(): BridgeHost {
    const chat = this.d.chat;
    return {
      post: (m) => this.#post(m),
      leaf: () => {
        const id = chat.open?.leafId();
        return id === null || id === undefined ? undefined : chat.open?.tree.get(id);
      },
      ephemeral: (item) => this.#addEphemeral(item),
      compacted: (e) => {
        const open = chat.open;
        if (e.outcome !== 'completed' || e.checkpointId === undefined || !open) return;
        const card = this.#transcript.compacted(open, e.checkpointId, e.durationMs);
        if (card) this.#post({ type: 'itemUpdated', item: card });
      },
    };
  }
}
