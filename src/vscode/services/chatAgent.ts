// The open chat's agent: opened on the chat's session file with the model the settings resolve to, switched when they change, closed when the chat changes; its events go up as ChatChange events.
import type { AgentEvent } from '../../engine/agent/agentEvents.js';
import type { Logger } from '../../engine/ports.js';
import { windowText } from '../../engine/tokens/modelLimits.js';
import type { ChatFacade } from '../../node/chatFacade.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { McpSessionConfig } from '../../node/mcp/sessionMcp.js';
import type { ProjectMemory } from '../../node/projectMemory.js';
import type { ApprovalFn } from '../../node/tools/types.js';
import { errorMessage } from '../base/log.js';
import { openAgent } from './agentOpen.js';
import type { ChatEvents } from './chatEvents.js';
import type { ChatFigures } from './chatFigures.js';
import type { ChatSetup } from './chatSetup.js';
import type { Providers, Resolution } from './providers.js';
import type { SessionService } from './sessionService.js';
import type { SettingsReader } from './settings.js';

export interface ChatAgentDeps {
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly providers: Providers;
  readonly memory: ProjectMemory;
  readonly logger: Logger;
  /** Where hosts before the facade kept pending intents; read once for a chat that has no intents file yet. */
  readonly legacyIntents: (sessionId: string) => unknown;
  /** Asks the user before a write or a command (the inline approval cards); without it a modal dialog asks. */
  readonly approve?: ApprovalFn;
  /** The extension's global storage (user-level state outside every workspace: the snapshot key). */
  readonly userStorage?: string;
  /** The window's started MCP servers (started on the first chat, shared by the others); none without it. */
  readonly mcp?: () => Promise<McpSessionConfig | undefined>;
}

type Resolved = Extract<Resolution, { ok: true }>;

export class ChatAgent {
  #facade: ChatFacade | undefined;
  /** The resolution the agent runs with (endpoint, model, window): another key means a switch. */
  #key: string | undefined;

  constructor(
    private readonly d: ChatAgentDeps,
    private readonly events: ChatEvents,
    private readonly figures: ChatFigures,
    private readonly setup: ChatSetup,
  ) {}

  /** The running agent's facade, when a model is set up for the open chat. */
  get facade(): ChatFacade | undefined {
    return this.#facade;
  }

  runsWith(r: Resolved): boolean {
    return this.#key === r.key;
  }

  async open(store: JsonlSessionStore, r: Resolved): Promise<void> {
    const id = store.header.id;
    const mcp = await this.d.mcp?.();
    const opened = await openAgent({
      store,
      archiveDir: this.d.sessions.directory.archiveDir(id),
      model: r.model,
      rawSettings: this.d.settings.current.raw,
      maxRequestsPerTurn: this.d.settings.current.maxRequestsPerTurn,
      memory: this.d.memory,
      logger: this.d.logger,
      listener: (event) => this.#onAgentEvent(event),
      subagentListener: (event) => this.events.fire({ kind: 'subagent', event }),
      legacyIntents: this.d.legacyIntents(id),
      ...(this.d.approve === undefined ? {} : { approve: this.d.approve }),
      ...(this.d.userStorage === undefined ? {} : { userStorage: this.d.userStorage }),
      ...(mcp === undefined ? {} : { mcp }),
    });
    this.#facade = opened.session;
    this.#key = r.key;
    const chat = opened.session.model;
    this.events.fire({ kind: 'opened', durations: opened.durations, model: chat.model, provider: chat.provider });
    this.d.logger.log(
      'info',
      `Chat ${id} uses ${r.info.model} (${windowText({ contextWindow: r.info.contextWindow, windowSource: r.info.source })}, max output ${r.info.maxOutputTokens})`,
    );
  }

  #onAgentEvent(event: AgentEvent): void {
    this.events.fire({ kind: 'agent', event });
    // The figures depend on the model in use and on the compaction state, which change after their entries are appended.
    const compacted = event.type === 'barrier' && event.event.type === 'compaction_end';
    if (event.type === 'model_changed' || event.type === 'turn_end' || compacted) this.figures.remeasure(this.#facade);
    if (event.type === 'model_changed' && event.learnedFrom === 'overflow_error') this.#persistLearned(event);
    // A finished compaction adds a checkpoint and a capsule: the tree shows them.
    if (compacted) this.events.fire({ kind: 'tree' });
  }

  /** The window an overflow error stated, kept per endpoint + model; the running chat's key follows so it is no switch. */
  #persistLearned(e: Extract<AgentEvent, { type: 'model_changed' }>): void {
    const s = this.d.settings.current;
    this.d.providers
      .recordLearned(s, e.model, { contextWindow: e.contextWindow, maxOutputTokens: e.maxOutputTokens })
      .then(async () => {
        const r = await this.d.providers.resolve(s);
        if (r.ok && this.#facade?.model.model === e.model) this.#key = r.key;
        this.setup.refreshModels();
        this.figures.remeasure(this.#facade);
        this.events.fire({ kind: 'state', cards: false });
        this.events.fire({ kind: 'tree' });
      })
      .catch((err: unknown) => this.d.logger.log('warn', `Could not remember the learned window: ${errorMessage(err)}`));
  }

  /** Switches the running agent's model; the engine compacts first when the new model has less room. */
  async switchTo(r: Resolved, signal: AbortSignal): Promise<boolean> {
    const a = this.#facade;
    if (!a) return false;
    const result = await a.switchModel(r.model, signal, this.d.settings.current.raw);
    if (!result.ok) return false;
    this.#key = r.key;
    this.events.fire({ kind: 'state', cards: true });
    return true;
  }

  /** Compaction settings apply at the next barrier, validated against the model actually in use. */
  applySettings(): void {
    this.#facade?.applySettings(this.d.settings.current.raw, process.env);
  }

  /** Closes the agent (waiting for its work; the facade keeps the pending intents beside the chat). */
  async detach(): Promise<void> {
    const a = this.#facade;
    this.#facade = undefined;
    this.#key = undefined;
    if (!a) return;
    this.events.fire({ kind: 'closed' });
    await a.close();
  }
}
