// The open chat's agent: one engine facade per chat, kept in line with the settings, the key and the models; its work in one queue; what changed, as events.
import * as vscode from 'vscode';
import type { AgentEvent } from '../../engine/agent/agentEvents.js';
import type { Attachment } from '../../engine/agent/attachments.js';
import type { ImagePart } from '../../engine/transcript/schema.js';
import type { Logger } from '../../engine/ports.js';
import type { Budget } from '../../engine/tokens/budget.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { UndoAction } from '../../engine/compaction/undo.js';
import { budgetOfLeaf } from '../../node/sessionBudget.js';
import { windowText } from '../../engine/tokens/modelLimits.js';
import type { RewindOptions } from '../../node/agentSession.js';
import type { ChatFacade } from '../../node/chatFacade.js';
import type { RewindDone, RewindFailure, RewindPreview, SwitchDone } from '../../node/sessionRewind.js';
import { previewRewindOf, rewindOf, switchBranchOf, undoCompactionOf, type LeafMoveHost } from './leafMoves.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import type { ProjectMemory } from '../../node/projectMemory.js';
import type { ModelOption, SetupState } from '../../protocol/messages.js';
import { Disposable } from '../base/disposable.js';
import { errorMessage } from '../base/log.js';
import { openAgent } from './agentOpen.js';
import type { McpSessionConfig } from '../../node/mcp/sessionMcp.js';
import type { ChatChange, JobRun, OpenChat } from './chatPorts.js';
import { JobQueue, type InputJob } from './jobQueue.js';
import { inputJob, retryJob, runInput, type TurnInputHost } from './turnInput.js';
import { Meter, type MeterBasis } from './meterBasis.js';
import { pickerIdOf, type Providers, type Resolution } from './providers.js';
import type { ApiKeys } from './secrets.js';
import type { SessionService } from './sessionService.js';
import type { ApprovalFn } from '../../node/tools/types.js';
import type { HostSettings, SettingsReader } from './settings.js';

export interface ChatServiceDeps {
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly keys: ApiKeys;
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

export type { ChatChange } from './chatPorts.js';

const RECONCILE = 'reconcile';

/** Entries the checkpoints tree shows or that change what it shows. */
const TREE_ENTRY_TYPES: ReadonlySet<Entry['type']> = new Set(['user', 'checkpoint', 'capsule', 'leaf', 'compaction_undo']);

export class ChatService extends Disposable implements OpenChat {
  readonly jobs: JobQueue;
  readonly #meter = new Meter();
  readonly #emitter = this._register(new vscode.EventEmitter<ChatChange>());
  readonly onDidChange = this.#emitter.event;
  #agent: ChatFacade | undefined;
  #agentKey: string | undefined;
  #problem: string | undefined;
  #setup: SetupState | null = null;
  #models: ModelOption[] = [];
  #budget: Budget | undefined;
  /** When `#budget` was measured: a capsule's age moves with the clock between measurements. */
  #measuredAt = 0;
  /** The store whose appends are being announced, and how to stop. */
  #watched: { readonly store: JsonlSessionStore; readonly stop: () => void } | undefined;

  constructor(private readonly d: ChatServiceDeps) {
    super();
    this.jobs = new JobQueue({
      runInput: (job, signal) => this.#runInput(job, signal),
      queueChanged: (items) => this.#emitter.fire({ kind: 'queue', items }),
      busyChanged: (busy) => this.#emitter.fire({ kind: 'busy', busy }),
      inputFailed: (_job, err) => this.#fail(errorMessage(err)),
    });
    this._register({ dispose: () => this.jobs.dispose() });
    this.#watch();
    this._register({ dispose: () => this.#watched?.stop() });
    this._register(
      d.sessions.onDidChange(() => {
        this.#watch();
        this.#emitter.fire({ kind: 'tree' });
        void this.scheduleReconcile();
      }),
    );
    this._register(d.settings.onDidChange(() => this.#settingsChanged()));
    this._register(
      d.keys.onDidChange(() => {
        d.providers.invalidateCatalog();
        void this.scheduleReconcile();
      }),
    );
  }

  /** Said to the user by the projection, which listens (it sits above this layer). */
  readonly #fail = (text: string): void => this.#emitter.fire({ kind: 'fail', text });
  readonly #notify = (level: 'info' | 'warning' | 'error', text: string): void => this.#emitter.fire({ kind: 'notice', level, text });

  get store(): JsonlSessionStore | undefined {
    return this.d.sessions.store;
  }

  /** The open chat's facade when a model is set up: methods only, never the engine's parts. */
  get agent(): ChatFacade | undefined {
    return this.#agent;
  }

  get models(): readonly ModelOption[] {
    return this.#models;
  }

  /** The figures as of the last change; only the last capsule's age is brought up to now. */
  get budget(): Budget | undefined {
    const b = this.#budget;
    if (!b?.lastCapsule) return b;
    return { ...b, lastCapsule: { ...b.lastCapsule, ageMs: b.lastCapsule.ageMs + Math.max(0, Date.now() - this.#measuredAt) } };
  }

  get setup(): SetupState | null {
    return this.#setup;
  }

  get problem(): string | undefined {
    return this.d.sessions.error ?? this.#problem;
  }

  /** A picker id: VS Code language models carry a prefix. */
  currentModelId(): string | null {
    return pickerIdOf(this.#agent, this.d.settings.current);
  }

  basis(): MeterBasis {
    return this.#meter.basisOf(this.#agent, this.d.settings.current);
  }

  /** Announces each entry appended to the open chat's store (the projection shows it, the figures follow it). */
  #watch(): void {
    const store = this.store;
    if (this.#watched?.store === store) return;
    this.#watched?.stop();
    this.#watched = store ? { store, stop: store.onAppended((entry) => this.#appended(entry)) } : undefined;
    // A chat opened tail-first shows its tail at once; once the whole file is indexed, everything is shown again.
    if (store && !store.indexed) {
      this.#changed();
      void store.whenIndexed().then(() => {
        if (this.store === store && !this.isDisposed) this.#changed(true);
      });
    }
  }

  #appended(entry: Entry): void {
    // A subagent's entries are its own branch: not in the chat, the tree or the meter (docs/subagents.md).
    if (entry.subagent !== undefined) return;
    this.#emitter.fire({ kind: 'appended', entry });
    this.#remeasure();
    // The tree lists messages, checkpoints and compactions (undone or not); a leaf move changes which are on the branch.
    if (TREE_ENTRY_TYPES.has(entry.type)) this.#emitter.fire({ kind: 'tree' });
  }

  /** Recomputes the figures (the agent's own budget when one runs) and announces them. */
  #remeasure(): void {
    const store = this.store;
    try {
      this.#measuredAt = Date.now();
      this.#budget = this.#agent ? this.#agent.budget() : store ? budgetOfLeaf(store, this.basis(), this.#measuredAt) : undefined;
    } catch (err) {
      this.#budget = undefined;
      this.d.logger.log('error', 'Could not compute the context budget', { error: errorMessage(err) });
    }
    this.#emitter.fire({ kind: 'budget' });
  }

  /** The chat changed under the webview (another chat, model or settings): figures and snapshot again. */
  #changed(cards = false): void {
    this.#remeasure();
    this.#emitter.fire({ kind: 'state', cards });
    this.#emitter.fire({ kind: 'tree' });
  }

  // ---- input ----------------------------------------------------------------------------------------------

  /** A message for the agent, in order (queued while busy); slash commands are the router's (actions/chatActions.ts `sendText`). */
  send(text: string, clientId?: string, attachments: readonly Attachment[] = [], images: readonly ImagePart[] = []): void {
    this.jobs.addInput(inputJob(text, undefined, clientId, false, attachments, images));
  }

  /**
   * A command's work as an input job: it waits its turn, shows as queued, and Stop aborts its signal — or, `immediate`
   * (a quick command that only answers), runs at once. Typed, `text` is echoed as the user's message; from the palette
   * or the toolbar (`untyped`) it is only listed as `text` while queued.
   */
  enqueue(text: string, run: JobRun, opts: { readonly clientId?: string; readonly untyped?: boolean; readonly immediate?: boolean } = {}): void {
    const job = inputJob(text, run, opts.clientId, opts.untyped === true);
    if (opts.immediate === true) {
      void this.#runInput(job, new AbortController().signal).catch((err: unknown) => this.#fail(errorMessage(err)));
      return;
    }
    this.jobs.addInput(job);
  }

  /** An error card's Retry: the failed turn is sent again, in its turn (docs/behaviour.md#errors). */
  retry(turnId: string): void {
    this.jobs.addInput(retryJob(turnId));
  }

  #runInput(job: InputJob, signal: AbortSignal): Promise<void> {
    const host: TurnInputHost = {
      agent: this.#agent,
      problem: this.problem,
      echo: (text, clientId) => this.#emitter.fire({ kind: 'echo', text, clientId }),
      fail: (text) => this.#fail(text),
      turnStarts: (clientId) => this.#emitter.fire({ kind: 'turn', clientId }),
      turnEnded: () => this.#emitter.fire({ kind: 'tree' }),
    };
    return runInput(host, job, signal);
  }

  /** The setup panel's state again, without reconnecting (a provider check's progress). */
  async showSetup(): Promise<void> {
    const setup = await this.d.providers.setupState(this.d.settings.current, this.#problem);
    this.#setup = setup;
    this.#emitter.fire({ kind: 'setup', setup });
  }

  // ---- the agent for the open chat ------------------------------------------------------------------------

  /** Brings the agent in line with the open chat, the settings, the key and the models VS Code offers. */
  scheduleReconcile(): Promise<void> {
    if (this.isDisposed || this.jobs.hasTask(RECONCILE)) return Promise.resolve();
    return this.jobs
      .addTask(RECONCILE, (signal) => this.#reconcile(signal))
      .catch((err: unknown) => {
        this.d.logger.log('error', `Could not set up the chat: ${errorMessage(err)}`);
        this.#notify('error', `Could not set up the chat: ${errorMessage(err)}`);
      });
  }

  async #reconcile(signal: AbortSignal): Promise<void> {
    const store = this.store;
    const p = this.d.providers;
    if (this.#agent && !this.#agent.runsOn(store)) await this.detach();
    const s = this.d.settings.current;
    await p.refreshLm();
    if (s.providerKind === 'openai') await p.refreshCatalog(s);
    const r = store ? await p.resolve(s) : undefined;
    // Restricted Mode: no agent (it reads, writes and runs in the workspace); trust brings it up (extension.ts reconciles then).
    const trusted = vscode.workspace.isTrusted;
    this.#problem = !trusted ? 'This workspace is not trusted (Restricted Mode); the chat starts once you trust it.' : r && !r.ok ? r.message : undefined;
    if (store && r?.ok && trusted) {
      try {
        if (!this.#agent) await this.#open(store, r);
        else if (this.#agentKey !== r.key) await this.switchTo(r, signal);
      } catch (err) {
        // The setup panel opens with the reason; nothing is sent until it is fixed.
        this.#problem = `Could not start the chat with ${r.info.model}: ${errorMessage(err)}`;
        this.d.logger.log('error', this.#problem);
      }
    } else if (this.#agent) await this.detach();
    this.#models = p.modelOptions(s);
    const setup = await p.setupState(s, this.#problem);
    this.#setup = setup;
    this.#emitter.fire({ kind: 'setup', setup });
    this.#changed();
  }

  async #open(store: JsonlSessionStore, r: Extract<Resolution, { ok: true }>): Promise<void> {
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
      subagentListener: (event) => this.#emitter.fire({ kind: 'subagent', event }),
      legacyIntents: this.d.legacyIntents(id),
      ...(this.d.approve === undefined ? {} : { approve: this.d.approve }),
      ...(this.d.userStorage === undefined ? {} : { userStorage: this.d.userStorage }),
      ...(mcp === undefined ? {} : { mcp }),
    });
    this.#agent = opened.session;
    this.#agentKey = r.key;
    const chat = opened.session.model;
    this.#emitter.fire({ kind: 'opened', durations: opened.durations, model: chat.model, provider: chat.provider });
    this.d.logger.log(
      'info',
      `Chat ${id} uses ${r.info.model} (${windowText({ contextWindow: r.info.contextWindow, windowSource: r.info.source })}, max output ${r.info.maxOutputTokens})`,
    );
  }

  #onAgentEvent(event: AgentEvent): void {
    this.#emitter.fire({ kind: 'agent', event });
    // The figures depend on the model in use and on the compaction state, which change after their entries are appended.
    if (event.type === 'model_changed' || event.type === 'turn_end' || (event.type === 'barrier' && event.event.type === 'compaction_end')) this.#remeasure();
    if (event.type === 'model_changed' && event.learnedFrom === 'overflow_error') this.#persistLearned(event);
    // A finished compaction adds a checkpoint and a capsule: the tree shows them.
    if (event.type === 'barrier' && event.event.type === 'compaction_end') this.#emitter.fire({ kind: 'tree' });
  }

  /** The window an overflow error stated, kept per endpoint + model; the running chat's key follows so it is no switch. */
  #persistLearned(e: Extract<AgentEvent, { type: 'model_changed' }>): void {
    const s = this.d.settings.current;
    this.d.providers
      .recordLearned(s, e.model, { contextWindow: e.contextWindow, maxOutputTokens: e.maxOutputTokens })
      .then(async () => {
        const r = await this.d.providers.resolve(s);
        if (r.ok && this.#agent?.model.model === e.model) this.#agentKey = r.key;
        this.#models = this.d.providers.modelOptions(s);
        this.#changed();
      })
      .catch((err: unknown) => this.d.logger.log('warn', `Could not remember the learned window: ${errorMessage(err)}`));
  }

  /** Switches the running agent's model; the engine compacts first when the new model has less room. */
  async switchTo(r: Extract<Resolution, { ok: true }>, signal: AbortSignal): Promise<boolean> {
    const a = this.#agent;
    if (!a) return false;
    const result = await a.switchModel(r.model, signal, this.d.settings.current.raw);
    if (!result.ok) return false;
    this.#agentKey = r.key;
    this.#emitter.fire({ kind: 'state', cards: true });
    return true;
  }

  /**
   * The picker's choice: the running agent switches first (with the protective handoff); true when the settings
   * should follow. A refused or unknown model leaves everything as it was, and the picker shows the model in use again.
   */
  async chooseModel(target: HostSettings, signal: AbortSignal): Promise<boolean> {
    const r = await this.d.providers.resolve(target);
    if (!r.ok) this.#notify('error', r.message);
    // A refused switch (the handoff could not make room) leaves the model as it was; the agent said why.
    const ok = r.ok && (!this.#agent || (await this.switchTo(r, signal)));
    if (!ok) this.#changed();
    return ok;
  }

  /** What a rewind to `ref` would do (files that differ, the message that comes back). */
  previewRewind(store: JsonlSessionStore, ref: string): Promise<RewindPreview | RewindFailure> {
    return previewRewindOf(this.#leafHost(), store, ref);
  }

  /** Rewind after the user confirmed; undefined (and a notice) when it could not be done. */
  rewind(store: JsonlSessionStore, ref: string, opts: RewindOptions = {}): Promise<RewindDone | undefined> {
    return rewindOf(this.#leafHost(), store, ref, opts);
  }

  /** The ‹ › switcher (docs/rewind.md#branches); undefined (and a notice) when refused. */
  switchBranch(store: JsonlSessionStore, entryId: string): Promise<SwitchDone | undefined> {
    return switchBranchOf(this.#leafHost(), store, entryId);
  }

  /** Undo or redo one compaction; false (and a notice saying why) when refused. */
  undoCompaction(ref: string, action: UndoAction): Promise<boolean> {
    return undoCompactionOf(this.#leafHost(), ref, action);
  }

  #leafHost(): LeafMoveHost {
    return { agent: this.#agent, store: this.store, notify: (text) => this.#notify('error', text), remeasure: () => this.#remeasure() };
  }

  /** Closes the agent (waiting for its work; the facade keeps the pending intents beside the chat). */
  async detach(): Promise<void> {
    const a = this.#agent;
    this.#agent = undefined;
    this.#agentKey = undefined;
    if (!a) return;
    this.#emitter.fire({ kind: 'closed' });
    await a.close();
  }

  #settingsChanged(): void {
    const a = this.#agent;
    const s = this.d.settings.current;
    // Compaction settings apply at the next barrier, validated against the model actually in use.
    a?.applySettings(s.raw, process.env);
    this.#models = this.d.providers.modelOptions(s);
    this.#changed(true);
    void this.scheduleReconcile();
  }

  /** The idle trigger (off by default): only looked at while nothing runs or waits. */
  checkIdle(): void {
    const a = this.#agent;
    if (!a || this.jobs.occupied || !a.compactsOnIdle) return;
    void this.jobs.addTask('idle', (signal) => a.noteIdle(signal)).catch((err: unknown) => this.d.logger.log('warn', `Idle compaction: ${errorMessage(err)}`));
  }

  /** Deactivation: stop what runs, close the agent (keeping its intents), release the chat's writer lock. */
  async close(): Promise<void> {
    this.jobs.preempt();
    await this.jobs.addTask('close', () => this.detach()).catch(() => undefined);
    await this.d.sessions.close();
  }
}
