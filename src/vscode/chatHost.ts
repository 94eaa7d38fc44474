// The host side of the chat: one agent session for the open chat, its inputs in order, and everything the webview draws.
import * as vscode from 'vscode';
import { resolveSettings } from '../engine/config.js';
import type { Logger } from '../engine/ports.js';
import type { Budget } from '../engine/tokens/budget.js';
import { resolveTarget, type AgentSession } from '../node/agentSession.js';
import type { JsonlSessionStore } from '../node/jsonlStore.js';
import type { ProjectMemory } from '../node/projectMemory.js';
import type { ChatIntent, HostToWebview, ModelOption, SetupState, TranscriptItem } from '../protocol/messages.js';
import { openAgent } from './agentOpen.js';
import { runSlash } from './chatActions.js';
import type { ChatViewProvider } from './chatViewProvider.js';
import { EventBridge, ephemeralId, type BridgeHost } from './eventBridge.js';
import { handleIntent } from './intents.js';
import { JobQueue, type InputJob } from './jobQueue.js';
import { errorMessage, loggerFor } from './log.js';
import { basisOf, Meter, type MeterBasis } from './meter.js';
import { pickerIdOf, type Providers, type Resolution } from './providers.js';
import type { ApiKeys } from './secrets.js';
import type { SessionService } from './sessionService.js';
import type { SettingsReader } from './settings.js';
import { parseSlash, runsImmediately } from './slash.js';
import { pageOf } from './transcriptItems.js';
import { TranscriptView } from './transcriptView.js';
import { toBudgetView, toSessionView, toSettingsView } from './viewModels.js';

export interface ChatHostDeps {
  readonly context: vscode.ExtensionContext;
  readonly sessions: SessionService;
  readonly settings: SettingsReader;
  readonly keys: ApiKeys;
  readonly providers: Providers;
  readonly view: ChatViewProvider;
  readonly log: vscode.LogOutputChannel;
  readonly memory: ProjectMemory;
}

/** `budget`: new figures; `session`: the chat or its checkpoints changed (the tree redraws). */
export type HostChange = 'budget' | 'session';

const RECONCILE = 'reconcile';
const triggerKey = (sessionId: string): string => `capsule.triggers:${sessionId}`;

export class ChatHost implements vscode.Disposable {
  readonly logger: Logger;
  readonly meter = new Meter();
  readonly jobs: JobQueue;
  readonly #emitter = new vscode.EventEmitter<HostChange>();
  readonly onDidChange = this.#emitter.event;
  readonly #disposables: vscode.Disposable[] = [];
  #agent: AgentSession | undefined;
  #agentKey: string | undefined;
  #bridge: EventBridge;
  #problem: string | undefined;
  #setup: SetupState | null = null;
  #models: ModelOption[] = [];
  #budget: Budget | undefined;
  readonly #transcript = new TranscriptView(this.meter);
  #disposed = false;

  constructor(readonly d: ChatHostDeps) {
    this.logger = loggerFor(d.log);
    this.#bridge = new EventBridge(this.#bridgeHost());
    this.jobs = new JobQueue({
      runInput: (job, signal) => this.#runInput(job, signal),
      queueChanged: (items) => this.post({ type: 'queue', items: [...items] }),
      busyChanged: (busy) => this.post({ type: 'busy', busy }),
      inputFailed: (_job, err) => this.fail(errorMessage(err)),
    });
    d.view.setSnapshotSource(() => this.snapshot());
    this.#disposables.push(
      d.view.onIntent((i) => void this.#intent(i)),
      d.sessions.onDidChange(() => {
        this.#emitter.fire('session');
        this.scheduleReconcile();
      }),
      d.settings.onDidChange(() => this.#settingsChanged()),
      d.keys.onDidChange(() => {
        d.providers.invalidateCatalog();
        this.scheduleReconcile();
      }),
    );
  }

  get store(): JsonlSessionStore | undefined {
    return this.d.sessions.store;
  }

  get agent(): AgentSession | undefined {
    return this.#agent;
  }

  /** The model picker's entries with their limits. */
  get models(): readonly ModelOption[] {
    return this.#models;
  }

  get budget(): Budget | undefined {
    return this.#budget;
  }

  /** Why no chat or no model is available, in words. */
  get problem(): string | undefined {
    return this.d.sessions.error ?? this.#problem;
  }

  post(message: HostToWebview): void {
    this.d.view.post(message);
  }

  notify(level: 'info' | 'warning' | 'error', text: string): void {
    this.post({ type: 'notice', level, text: text.slice(0, 4000) });
  }

  /** An answer to a command, shown after the current leaf and kept while the chat is open (it is not an entry). */
  info(text: string): void {
    this.#addEphemeral({ id: ephemeralId(), kind: 'info', text: text.slice(0, 20_000) });
  }

  fail(text: string): void {
    this.#addEphemeral({ id: ephemeralId(), kind: 'error', text: text.slice(0, 20_000) });
  }

  /** The chat, its model and its figures changed: everything the webview shows, again. */
  postSnapshot(): void {
    this.post(this.snapshot());
    this.#emitter.fire('session');
  }

  snapshot(): HostToWebview {
    const store = this.store;
    const s = this.d.settings.current;
    const items = store ? [...this.items(), ...this.#bridge.liveItems()] : [];
    const page = pageOf(items);
    const error = this.d.sessions.error;
    return {
      type: 'snapshot',
      session: store ? toSessionView(store) : null,
      budget: this.#budget ? toBudgetView(this.#budget) : null,
      settings: toSettingsView(s),
      ...(error === undefined ? {} : { error: error.slice(0, 4000) }),
      transcript: page,
      models: this.#models,
      currentModelId: this.currentModelId(),
      busy: this.jobs.busy,
      queue: this.jobs.inputs,
      barrier: this.#bridge.barrier,
      setup: this.#setup,
    };
  }

  /** Every item of the active branch, command answers included. */
  items(): TranscriptItem[] {
    const store = this.store;
    return store ? this.#transcript.items(store, this.basis()) : [];
  }

  /** A picker id: VS Code language models carry a prefix. */
  currentModelId(): string | null {
    return pickerIdOf(this.#agent, this.d.settings.current);
  }

  /** What the meter measures against: the running agent's model, tools and settings, else the settings' model. */
  basis(): MeterBasis {
    return basisOf(this.#agent, this.d.settings.current);
  }

  /** Recomputes the figures; `post` sends them to the meter (a snapshot carries them otherwise). */
  remeasure(post: boolean): void {
    const store = this.store;
    try {
      this.#budget = store ? this.meter.budget(store.tree.branch(), this.basis()) : undefined;
    } catch (err) {
      this.#budget = undefined;
      this.logger.log('error', 'Could not compute the context budget', { error: errorMessage(err) });
    }
    if (post && this.#budget) this.post({ type: 'budget', budget: toBudgetView(this.#budget) });
    this.#emitter.fire('budget');
  }

  // ---- input ----------------------------------------------------------------------------------------------

  /** What the user typed: quick commands answer at once, everything else runs in order (queued while busy). */
  send(text: string, clientId?: string): void {
    const command = parseSlash(text);
    const job: InputJob = { kind: 'input', id: clientId ?? ephemeralId(), text, ...(clientId === undefined ? {} : { clientId }), ...(command === undefined ? {} : { command }) };
    if (command !== undefined && runsImmediately(command)) {
      void this.#runInput(job, new AbortController().signal).catch((err: unknown) => this.fail(errorMessage(err)));
      return;
    }
    this.jobs.addInput(job);
  }

  async #runInput(job: InputJob, signal: AbortSignal): Promise<void> {
    if (job.command !== undefined) {
      this.#addEphemeral({ id: ephemeralId(), kind: 'user', text: job.text.slice(0, 1_000_000), ...(job.clientId === undefined ? {} : { clientId: job.clientId }) });
      await runSlash(this, job.command, signal);
      return;
    }
    const agent = this.#agent;
    if (!agent) {
      this.#addEphemeral({ id: ephemeralId(), kind: 'user', text: job.text.slice(0, 1_000_000), ...(job.clientId === undefined ? {} : { clientId: job.clientId }) });
      this.fail(`Not sent: ${this.problem ?? 'no model is set up yet'}`);
      return;
    }
    this.#bridge.expectTurn(job.clientId);
    await agent.agent.runTurn({ userText: job.text, signal });
    this.#saveTriggers(agent);
    this.#emitter.fire('session');
  }

  // ---- the agent for the open chat ------------------------------------------------------------------------

  /** Brings the agent in line with the open chat, the settings, the key and the models VS Code offers. */
  scheduleReconcile(): Promise<void> {
    if (this.#disposed || this.jobs.hasTask(RECONCILE)) return Promise.resolve();
    return this.jobs.addTask(RECONCILE, (signal) => this.#reconcile(signal)).catch((err: unknown) => {
      this.logger.log('error', `Could not set up the chat: ${errorMessage(err)}`);
      this.notify('error', `Could not set up the chat: ${errorMessage(err)}`);
    });
  }

  async #reconcile(signal: AbortSignal): Promise<void> {
    const store = this.store;
    const p = this.d.providers;
    if (this.#agent && this.#agent.store !== store) await this.detach();
    const s = this.d.settings.current;
    await p.refreshLm();
    if (s.providerKind === 'openai') await p.refreshCatalog(s);
    const r = store ? await p.resolve(s) : undefined;
    this.#problem = r && !r.ok ? r.message : undefined;
    if (store && r?.ok) {
      try {
        if (!this.#agent) await this.#open(store, r);
        else if (this.#agentKey !== r.key) await this.switchTo(r, signal);
      } catch (err) {
        // The setup panel opens with the reason; nothing is sent until it is fixed.
        this.#problem = `Could not start the chat with ${r.info.model}: ${errorMessage(err)}`;
        this.logger.log('error', this.#problem);
      }
    } else if (this.#agent) await this.detach();
    this.#models = p.modelOptions(s);
    this.#setup = await p.setupState(s, this.#problem);
    this.remeasure(false);
    this.post({ type: 'setup', setup: this.#setup });
    this.postSnapshot();
  }

  async #open(store: JsonlSessionStore, r: Extract<Resolution, { ok: true }>): Promise<void> {
    const id = store.header.id;
    const bridge = new EventBridge(this.#bridgeHost());
    this.#bridge = bridge;
    const opened = await openAgent({
      store,
      archiveDir: this.d.sessions.directory.archiveDir(id),
      model: r.model,
      rawSettings: this.d.settings.current.raw,
      maxRequestsPerTurn: this.d.settings.current.maxRequestsPerTurn,
      memory: this.d.memory,
      logger: this.logger,
      listener: (e) => bridge.handle(e),
      triggerState: this.d.context.workspaceState.get<unknown>(triggerKey(id)),
    });
    this.#agent = opened.session;
    this.#transcript.reset(opened.durations);
    this.#agentKey = r.key;
    const chat = opened.session.agent.currentModel.chat;
    bridge.setModel(chat.model, chat.provider);
    this.logger.log('info', `Chat ${id} uses ${r.info.model} (window ${r.info.contextWindow}, max output ${r.info.maxOutputTokens})`);
  }

  /** Switches the running agent's model; the engine compacts first when the new model has less room (S5). */
  async switchTo(r: Extract<Resolution, { ok: true }>, signal: AbortSignal): Promise<boolean> {
    const a = this.#agent;
    if (!a) return false;
    const result = await a.agent.switchModel(resolveTarget(r.model, this.d.settings.current.raw, process.env), signal);
    if (!result.ok) return false;
    this.#agentKey = r.key;
    this.#transcript.reset();
    return true;
  }

  /** Drops the last compaction result line (it belongs to the branch a rewind left). */
  forgetBarrierResult(): void {
    this.#bridge.forgetResultLine();
  }

  /** Closes the agent (waiting for its work), keeping the pending compaction intents for next time. */
  async detach(): Promise<void> {
    const a = this.#agent;
    this.#agent = undefined;
    this.#agentKey = undefined;
    if (!a) return;
    // The old chat's barrier line and stream must not show in the next one.
    this.#bridge = new EventBridge(this.#bridgeHost());
    this.#saveTriggers(a);
    await a.close();
  }

  #saveTriggers(a: AgentSession): void {
    void this.d.context.workspaceState.update(triggerKey(a.store.header.id), a.agent.triggers.toJSON());
  }

  #settingsChanged(): void {
    const a = this.#agent;
    const s = this.d.settings.current;
    // Compaction settings apply at the next barrier, validated against the model actually in use.
    if (a) a.agent.updateSettings(resolveSettings({ raw: s.raw, env: process.env, model: { contextWindow: a.agent.currentModel.contextWindow, maxOutputTokens: a.agent.currentModel.maxOutputTokens } }));
    this.#transcript.reset();
    this.#models = this.d.providers.modelOptions(s);
    this.remeasure(false);
    this.postSnapshot();
    void this.scheduleReconcile();
  }

  #addEphemeral(item: TranscriptItem): void {
    this.#transcript.addEphemeral(this.store, item);
    this.post({ type: 'itemsAppended', items: [item] });
  }

  #bridgeHost(): BridgeHost {
    return {
      post: (m) => this.post(m),
      entry: (id) => this.store?.tree.get(id),
      leaf: () => {
        const id = this.store?.leafId();
        return id === null || id === undefined ? undefined : this.store?.tree.get(id);
      },
      entries: () => this.store?.entries() ?? [],
      categories: () => this.meter.categories(this.store?.tree.branch() ?? [], this.basis()),
      measured: () => this.remeasure(true),
      ephemeral: (item) => this.#addEphemeral(item),
      compacted: (e) => {
        if (e.outcome === 'completed' && e.checkpointId !== undefined) this.#transcript.compacted(e.checkpointId, e.durationMs);
        this.#emitter.fire('session');
      },
      log: (level, text) => this.logger.log(level, text),
    };
  }

  /** Maps a live item id the webview may still hold to the entry it became. */
  resolveItemId(id: string): string {
    return this.#bridge.entryIdOf(id) ?? id;
  }

  #intent(i: ChatIntent): Promise<void> {
    return handleIntent(this, i).catch((err: unknown) => this.notify('error', errorMessage(err)));
  }

  /** The idle trigger (S5, off by default): only looked at while nothing runs or waits. */
  checkIdle(): void {
    const a = this.#agent;
    if (!a || this.jobs.occupied || !a.agent.settings.settings.compactOnIdle) return;
    void this.jobs
      .addTask('idle', async (signal) => {
        await a.agent.noteIdle(undefined, signal);
      })
      .catch((err: unknown) => this.logger.log('warn', `Idle compaction: ${errorMessage(err)}`));
  }

  /** Deactivation: stop what runs, close the agent (keeping its intents), release the chat's writer lock. */
  async close(): Promise<void> {
    this.jobs.preempt();
    await this.jobs.addTask('close', () => this.detach()).catch(() => undefined);
    await this.d.sessions.close();
  }

  dispose(): void {
    this.#disposed = true;
    this.jobs.dispose();
    for (const x of this.#disposables.splice(0)) x.dispose();
    this.#emitter.dispose();
  }
}
