// The open chat as the host's actions and views use it, as methods: its facade, figures, setup and work queue; composes the parts that keep the agent in line with the chat, the settings, the key and the models (chatAgent.ts, chatWork.ts, chatFigures.ts, chatSetup.ts).
import * as vscode from 'vscode';
import type { Attachment } from '../../engine/agent/attachments.js';
import type { UndoAction } from '../../engine/compaction/undo.js';
import type { Budget } from '../../engine/tokens/budget.js';
import type { Entry, ImagePart } from '../../engine/transcript/schema.js';
import type { RewindOptions } from '../../node/agentSession.js';
import type { ChatReads } from '../../node/chatReads.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import { OfflineChat } from '../../node/offlineChat.js';
import type { RewindDone, RewindFailure, RewindPreview, SwitchDone } from '../../node/sessionRewind.js';
import type { ModelOption, QueuedInput, SetupState } from '../../protocol/messages.js';
import { Disposable } from '../base/disposable.js';
import { errorMessage } from '../base/log.js';
import { ChatAgent, type ChatAgentDeps } from './chatAgent.js';
import { ChatEvents } from './chatEvents.js';
import { ChatFigures } from './chatFigures.js';
import type { JobRun, OpenChat, OpenChatFacade } from './chatPorts.js';
import { ChatSetup } from './chatSetup.js';
import { ChatWork, type EnqueueOptions } from './chatWork.js';
import { ChatLeafMoves } from './leafMoves.js';
import type { MeterBasis } from './meterBasis.js';
import { pickerIdOf } from './providers.js';
import type { ApiKeys } from './secrets.js';
import type { HostSettings } from './settings.js';

export interface ChatServiceDeps extends ChatAgentDeps {
  readonly keys: ApiKeys;
}

export type { ChatChange } from './chatPorts.js';

const RECONCILE = 'reconcile';

/** Entries the checkpoints tree shows or that change what it shows. */
const TREE_ENTRY_TYPES: ReadonlySet<Entry['type']> = new Set(['user', 'checkpoint', 'capsule', 'leaf', 'compaction_undo']);

export class ChatService extends Disposable implements OpenChat {
  readonly #events = this._register(new ChatEvents());
  readonly onDidChange = this.#events.onDidChange;
  readonly #figures: ChatFigures;
  readonly #setup: ChatSetup;
  readonly #agent: ChatAgent;
  readonly #work: ChatWork;
  readonly #moves: ChatLeafMoves;
  /** The facade of the open chat while no agent runs on it. */
  #offline: OfflineChat | undefined;
  /** The session file whose appends are being announced (through its facade), and how to stop. */
  #watched: { readonly store: JsonlSessionStore; readonly stop: () => void } | undefined;

  constructor(private readonly d: ChatServiceDeps) {
    super();
    this.#figures = new ChatFigures(d.settings, this.#events, d.logger);
    this.#setup = new ChatSetup(d.providers, d.settings, d.sessions, this.#events);
    this.#agent = new ChatAgent(d, this.#events, this.#figures, this.#setup);
    this.#work = new ChatWork(this.#agent, this.#setup, this.#events);
    this.#moves = new ChatLeafMoves(this.#events, this.#figures);
    this._register({ dispose: () => this.#work.dispose() });
    this.#watch();
    this._register({ dispose: () => this.#watched?.stop() });
    this._register(
      d.sessions.onDidChange(() => {
        this.#watch();
        this.#events.fire({ kind: 'tree' });
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

  // ---- what is open --------------------------------------------------------------------------------------

  /** The open chat's facade: the agent's when it runs on the chat, else one over the session file; undefined with no chat. */
  get open(): OpenChatFacade | undefined {
    const store = this.d.sessions.openStore();
    if (!store) return undefined;
    const agent = this.#agent.facade;
    if (agent?.runsOn(store)) return agent;
    if (!this.#offline?.runsOn(store)) this.#offline = new OfflineChat(store);
    return this.#offline;
  }

  get problem(): string | undefined {
    return this.#setup.problem;
  }

  get models(): readonly ModelOption[] {
    return this.#setup.models;
  }

  get setup(): SetupState | null {
    return this.#setup.setup;
  }

  get budget(): Budget | undefined {
    return this.#figures.budget;
  }

  basis(): MeterBasis {
    return this.#figures.basis(this.open);
  }

  /** A picker id: VS Code language models carry a prefix. */
  currentModelId(): string | null {
    return pickerIdOf(this.#agent.facade, this.d.settings.current);
  }

  /** Announces each entry appended to the open chat (the projection shows it, the figures follow it); a reopened file is a new store. */
  #watch(): void {
    const store = this.d.sessions.openStore();
    if (this.#watched?.store === store) return;
    this.#watched?.stop();
    const chat = this.open;
    this.#watched = store && chat ? { store, stop: chat.onAppended((entry) => this.#appended(entry)) } : undefined;
    // A chat opened tail-first shows its tail at once; once the whole file is indexed, everything is shown again.
    if (store && chat && !chat.indexed) {
      this.#changed();
      void chat.whenIndexed().then(() => {
        if (this.d.sessions.openStore() === store && !this.isDisposed) this.#changed(true);
      });
    }
  }

  #appended(entry: Entry): void {
    // A subagent's entries are its own branch: not in the chat, the tree or the meter (docs/subagents.md).
    if (entry.subagent !== undefined) return;
    this.#events.fire({ kind: 'appended', entry });
    this.#figures.remeasure(this.open);
    // The tree lists messages, checkpoints and compactions (undone or not); a leaf move changes which are on the branch.
    if (TREE_ENTRY_TYPES.has(entry.type)) this.#events.fire({ kind: 'tree' });
  }

  /** The chat changed under the webview (another chat, model or settings): figures and snapshot again. */
  #changed(cards = false): void {
    this.#figures.remeasure(this.open);
    this.#events.fire({ kind: 'state', cards });
    this.#events.fire({ kind: 'tree' });
  }

  // ---- the work queue ------------------------------------------------------------------------------------

  /** An input runs (the Stop button shows). */
  get busy(): boolean {
    return this.#work.busy;
  }

  /** A turn or a compaction runs: an input, or the agent's own work (an idle compaction). */
  get working(): boolean {
    return this.#work.busy || this.#agent.facade?.busy === true;
  }

  get queued(): QueuedInput[] {
    return this.#work.queued;
  }

  /** A message for the agent, in order (queued while busy); slash commands are the router's (actions/chatActions.ts `sendText`). */
  send(text: string, clientId?: string, attachments: readonly Attachment[] = [], images: readonly ImagePart[] = []): void {
    this.#work.send(text, clientId, attachments, images);
  }

  /** A command's work as an input job (chatWork.ts): typed, `text` is echoed as the user's message. */
  enqueue(text: string, run: JobRun, opts: EnqueueOptions = {}): void {
    this.#work.enqueue(text, run, opts);
  }

  /** An error card's Retry: the failed turn is sent again, in its turn (docs/behaviour.md#errors). */
  retry(turnId: string): void {
    this.#work.retry(turnId);
  }

  /** Host work after what runs now, before queued inputs (a switch, a rewind, reopening). */
  task(name: string, run: JobRun): Promise<void> {
    return this.#work.task(name, run);
  }

  /** Stop: what runs now is aborted. */
  cancel(): void {
    this.#work.cancel();
  }

  /** Stops what runs and drops queued inputs: the chat is about to change under them. */
  preempt(): void {
    this.#work.preempt();
  }

  /** The idle trigger (off by default): only looked at while nothing runs or waits. */
  checkIdle(): void {
    this.#work.idle((err) => this.d.logger.log('warn', `Idle compaction: ${errorMessage(err)}`));
  }

  // ---- the agent for the open chat -----------------------------------------------------------------------

  /** The setup panel's state again, without reconnecting (a provider check's progress). */
  showSetup(): Promise<void> {
    return this.#setup.show();
  }

  /** Brings the agent in line with the open chat, the settings, the key and the models VS Code offers. */
  scheduleReconcile(): Promise<void> {
    if (this.isDisposed || this.#work.hasTask(RECONCILE)) return Promise.resolve();
    return this.#work
      .task(RECONCILE, (signal) => this.#reconcile(signal))
      .catch((err: unknown) => {
        this.d.logger.log('error', `Could not set up the chat: ${errorMessage(err)}`);
        this.#events.notify('error', `Could not set up the chat: ${errorMessage(err)}`);
      });
  }

  async #reconcile(signal: AbortSignal): Promise<void> {
    const store = this.d.sessions.openStore();
    const p = this.d.providers;
    const agent = this.#agent;
    if (agent.facade && !agent.facade.runsOn(store)) await agent.detach();
    const s = this.d.settings.current;
    await p.refreshLm();
    if (s.providerKind === 'openai') await p.refreshCatalog(s);
    const r = store ? await p.resolve(s) : undefined;
    // Restricted Mode: no agent (it reads, writes and runs in the workspace); trust brings it up (extension.ts reconciles then).
    const trusted = vscode.workspace.isTrusted;
    this.#setup.modelProblem = !trusted
      ? 'This workspace is not trusted (Restricted Mode); the chat starts once you trust it.'
      : r && !r.ok
        ? r.message
        : undefined;
    if (store && r?.ok && trusted) {
      try {
        if (!agent.facade) await agent.open(store, r);
        else if (!agent.runsWith(r)) await agent.switchTo(r, signal);
      } catch (err) {
        // The setup panel opens with the reason; nothing is sent until it is fixed.
        this.#setup.modelProblem = `Could not start the chat with ${r.info.model}: ${errorMessage(err)}`;
        this.d.logger.log('error', this.#setup.modelProblem);
      }
    } else if (agent.facade) await agent.detach();
    this.#setup.refreshModels();
    await this.#setup.show();
    this.#changed();
  }

  /**
   * The picker's choice: the running agent switches first (with the protective handoff); true when the settings
   * should follow. A refused or unknown model leaves everything as it was, and the picker shows the model in use again.
   */
  async chooseModel(target: HostSettings, signal: AbortSignal): Promise<boolean> {
    const r = await this.d.providers.resolve(target);
    if (!r.ok) this.#events.notify('error', r.message);
    // A refused switch (the handoff could not make room) leaves the model as it was; the agent said why.
    const ok = r.ok && (!this.#agent.facade || (await this.#agent.switchTo(r, signal)));
    if (!ok) this.#changed();
    return ok;
  }

  /** Closes the agent (waiting for its work; the facade keeps the pending intents beside the chat). */
  detach(): Promise<void> {
    return this.#agent.detach();
  }

  #settingsChanged(): void {
    this.#agent.applySettings();
    this.#setup.refreshModels();
    this.#changed(true);
    void this.scheduleReconcile();
  }

  // ---- leaf moves (leafMoves.ts) -------------------------------------------------------------------------

  /** What a rewind to `ref` would do (files that differ, the message that comes back). */
  previewRewind(ref: string): Promise<RewindPreview | RewindFailure> {
    return this.#moves.preview(this.open, ref);
  }

  /** Rewind `chat` after the user confirmed; undefined (and a notice) when it could not be done or the chat changed. */
  rewind(chat: ChatReads, ref: string, opts: RewindOptions = {}): Promise<RewindDone | undefined> {
    return this.#moves.rewind(this.open, chat, ref, opts);
  }

  /** The ‹ › switcher (docs/rewind.md#branches); undefined (and a notice) when refused. */
  switchBranch(chat: ChatReads, entryId: string): Promise<SwitchDone | undefined> {
    return this.#moves.switchBranch(this.open, chat, entryId);
  }

  /** Undo or redo one compaction; false (and a notice saying why) when refused. */
  undoCompaction(ref: string, action: UndoAction): Promise<boolean> {
    return this.#moves.undoCompaction(this.open, ref, action);
  }

  /** Deactivation: stop what runs, close the agent (keeping its intents), release the chat's writer lock. */
  async close(): Promise<void> {
    this.#work.preempt();
    await this.#work.task('close', () => this.#agent.detach()).catch(() => undefined);
    await this.d.sessions.close();
  }
}
