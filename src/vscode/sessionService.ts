// The current chat of this workspace: opens (or creates) its JSONL session, keeps its budget, announces changes.
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import type { Logger } from '../engine/ports.js';
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import { computeBudget, type Budget } from '../engine/tokens/budget.js';
import { EntryTokenCache } from '../engine/tokens/entryCache.js';
import { counterForModel } from '../engine/tokens/tokenizer.js';
import type { JsonlSessionStore } from '../node/jsonlStore.js';
import { SessionDirectory } from '../node/sessions.js';
import { errorMessage } from './log.js';
import type { HostSettings, SettingsReader } from './settings.js';

/** Until the agent issue brings modes and rules, every chat starts from this prompt and no tools. */
export { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';

const CURRENT_SESSION_KEY = 'capsule.currentSessionId';

/** What changed: a different or reloaded session, new settings, or only the figures. */
export type SessionChange = 'session' | 'settings' | 'budget';

export class SessionService implements vscode.Disposable {
  readonly directory: SessionDirectory;
  readonly #memento: vscode.Memento;
  readonly #emitter = new vscode.EventEmitter<SessionChange>();
  readonly #settingsListener: vscode.Disposable;
  #store: JsonlSessionStore | undefined;
  #error: string | undefined;
  #budget: Budget | undefined;
  #cache: { readonly modelId: string; readonly cache: EntryTokenCache } | undefined;
  /** Open/new/reload run one at a time, so two quick clicks cannot open two stores. */
  #queue: Promise<void> = Promise.resolve();
  #disposed = false;

  readonly onDidChange = this.#emitter.event;

  constructor(
    context: vscode.ExtensionContext,
    private readonly settings: SettingsReader,
    private readonly log: Logger,
  ) {
    // Workspace storage keeps chats per workspace; with no folder open they live in global storage.
    const storage = context.storageUri ?? context.globalStorageUri;
    this.#memento = context.storageUri ? context.workspaceState : context.globalState;
    this.directory = new SessionDirectory(storage.fsPath);
    this.#settingsListener = settings.onDidChange(() => {
      this.#recompute();
      this.#emitter.fire('settings');
    });
  }

  get store(): JsonlSessionStore | undefined {
    return this.#store;
  }

  /** Why no session is open, when opening failed. */
  get error(): string | undefined {
    return this.#error;
  }

  get budget(): Budget | undefined {
    return this.#budget;
  }

  get hostSettings(): HostSettings {
    return this.settings.current;
  }

  /** Recomputes the figures after the session grew (the agent calls this after appends). */
  refreshBudget(): void {
    this.#recompute();
    this.#fire('budget');
  }

  /** Opens the chat this workspace used last, else the most recent one, else a new one. */
  start(): Promise<void> {
    return this.#run(async () => {
      const remembered = this.#memento.get<string>(CURRENT_SESSION_KEY);
      const sessions = await this.directory.list();
      const known = sessions.find((s) => s.id === remembered);
      const latest = [...sessions].sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
      const id = known?.id ?? latest?.id;
      if (id !== undefined) {
        try {
          return await this.#install(await this.directory.open(id));
        } catch (err) {
          this.log.log('error', `Could not open chat ${id}; starting a new one`, { error: errorMessage(err) });
        }
      }
      await this.#install(await this.directory.create(this.#cwd()));
    });
  }

  newChat(): Promise<void> {
    return this.#run(async () => this.#install(await this.directory.create(this.#cwd())));
  }

  /** Re-reads the current chat from disk (another window may have written to it). */
  reload(): Promise<void> {
    return this.#run(async () => {
      const id = this.#store?.header.id ?? this.#memento.get<string>(CURRENT_SESSION_KEY);
      if (id === undefined) return this.#install(await this.directory.create(this.#cwd()));
      // Release our own writer lock first, or the reopened store would find it taken and go read-only.
      const previous = this.#store;
      this.#store = undefined;
      await previous?.close();
      await this.#install(await this.directory.open(id));
    });
  }

  /** Closes the store (releasing the writer lock); called on deactivate. */
  close(): Promise<void> {
    return this.#run(async () => {
      const store = this.#store;
      this.#store = undefined;
      await store?.close();
    });
  }

  #run(op: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(op).catch((err: unknown) => {
      this.#error = `Could not open a Capsule chat: ${errorMessage(err)}`;
      this.log.log('error', this.#error);
      this.#recompute();
      this.#fire('session');
    });
    this.#queue = next;
    return next;
  }

  async #install(store: JsonlSessionStore): Promise<void> {
    const previous = this.#store;
    this.#store = store;
    this.#error = undefined;
    if (previous && previous !== store) await previous.close();
    if (this.#disposed) {
      await store.close();
      return;
    }
    await this.#memento.update(CURRENT_SESSION_KEY, store.header.id);
    if (store.readOnly) this.log.log('warn', `Chat ${store.header.id} is read-only`, { reason: store.readOnlyReason });
    for (const p of store.problems) this.log.log('warn', `Chat ${store.header.id}: ${p.message}`, { kind: p.kind, line: p.line });
    this.#recompute();
    this.#fire('session');
  }

  #recompute(): void {
    const store = this.#store;
    if (!store) {
      this.#budget = undefined;
      return;
    }
    const s = this.settings.current;
    // The cache is keyed by entry id, so it is only valid for one tokenizer: rebuild it when the model changes.
    if (this.#cache?.modelId !== s.modelId) this.#cache = { modelId: s.modelId, cache: new EntryTokenCache(counterForModel(s.modelId)) };
    try {
      this.#budget = computeBudget({
        branch: store.tree.branch(),
        defaultSystem: DEFAULT_SYSTEM_PROMPT,
        tools: [],
        model: s.model,
        provider: s.provider,
        resolved: s.resolved,
        now: Date.now(),
        cache: this.#cache.cache,
      });
    } catch (err) {
      this.#budget = undefined;
      this.log.log('error', 'Could not compute the context budget', { error: errorMessage(err) });
    }
  }

  #fire(change: SessionChange): void {
    if (!this.#disposed) this.#emitter.fire(change);
  }

  #cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? homedir();
  }

  dispose(): void {
    // deactivate() normally closed the store already; this covers a dispose without it.
    void this.close();
    this.#disposed = true;
    this.#settingsListener.dispose();
    this.#emitter.dispose();
  }
}
