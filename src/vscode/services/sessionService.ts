// The current chat of this workspace: opens, creates, switches and deletes its JSONL session and announces the change.
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import type { Logger } from '../../engine/ports.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import { SessionDirectory } from '../../node/sessions.js';
import { errorMessage } from '../base/log.js';
import { Sequencer } from '../base/sequencer.js';

const CURRENT_SESSION_KEY = 'capsule.currentSessionId';

export class SessionService implements vscode.Disposable {
  readonly directory: SessionDirectory;
  /** Workspace storage, or global storage with no folder open; Project Memory lives here too. */
  readonly storagePath: string;
  readonly #memento: vscode.Memento;
  readonly #emitter = new vscode.EventEmitter<void>();
  #store: JsonlSessionStore | undefined;
  #error: string | undefined;
  /** Owns the writes to which chat is open: open/new/switch/delete run one at a time, so two quick clicks cannot open two stores. */
  readonly #writes = new Sequencer();
  #disposed = false;

  /** A different, reloaded or no session is now current. */
  readonly onDidChange = this.#emitter.event;

  constructor(
    context: vscode.ExtensionContext,
    private readonly log: Logger,
  ) {
    const storage = context.storageUri ?? context.globalStorageUri;
    this.storagePath = storage.fsPath;
    this.#memento = context.storageUri ? context.workspaceState : context.globalState;
    this.directory = new SessionDirectory(storage.fsPath);
  }

  /** The open chat's session file, for the facades the chat service builds on it (everything else reads the chat through them). */
  openStore(): JsonlSessionStore | undefined {
    return this.#store;
  }

  /** Why no session is open, when opening failed. */
  get error(): string | undefined {
    return this.#error;
  }

  /** Opens the chat this workspace used last, else the most recent one, else a new one. */
  start(): Promise<void> {
    return this.#run(async () => {
      const remembered = this.#memento.get<string>(CURRENT_SESSION_KEY);
      const sessions = await this.directory.list();
      const id = sessions.find((s) => s.id === remembered)?.id ?? sessions[0]?.id;
      if (id !== undefined && (await this.#tryOpen(id))) return;
      await this.#install(await this.directory.create(this.#cwd()));
    });
  }

  newChat(): Promise<void> {
    return this.#run(async () => this.#install(await this.directory.create(this.#cwd())));
  }

  /** Makes another chat of this workspace current. */
  switchTo(id: string): Promise<void> {
    return this.#run(async () => {
      if (this.#store?.header.id === id) return;
      await this.#release();
      await this.#install(await this.directory.open(id, { tailFirst: true }));
    });
  }

  /** Re-reads the current chat from disk (another window may have written to it). */
  reload(): Promise<void> {
    return this.#run(async () => {
      const id = this.#store?.header.id ?? this.#memento.get<string>(CURRENT_SESSION_KEY);
      // Release our own writer lock first, or the reopened store would find it taken and go read-only.
      await this.#release();
      if (id === undefined || !(await this.#tryOpen(id))) await this.#install(await this.directory.create(this.#cwd()));
    });
  }

  /** Deletes a chat and its evidence archive; deleting the current one moves to the newest other chat (or a new one). */
  delete(id: string): Promise<void> {
    return this.#run(async () => {
      const current = this.#store?.header.id === id;
      if (current) await this.#release();
      await this.directory.delete(id);
      if (!current) return;
      const next = (await this.directory.list()).find((s) => s.id !== id);
      if (next === undefined || !(await this.#tryOpen(next.id))) await this.#install(await this.directory.create(this.#cwd()));
    });
  }

  /** Closes the store (releasing the writer lock); called on deactivate. */
  close(): Promise<void> {
    return this.#run(() => this.#release());
  }

  async #release(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    await store?.close();
  }

  async #tryOpen(id: string): Promise<boolean> {
    try {
      await this.#install(await this.directory.open(id, { tailFirst: true }));
      return true;
    } catch (err) {
      this.log.log('error', `Could not open chat ${id}`, { error: errorMessage(err) });
      return false;
    }
  }

  #run(op: () => Promise<void>): Promise<void> {
    return this.#writes.queue(op).catch((err: unknown) => {
      this.#error = `Could not open a Capsule chat: ${errorMessage(err)}`;
      this.log.log('error', this.#error);
      this.#fire();
    });
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
    this.#fire();
    // Opened tail-first (docs/loading.md): what loading found is known once the whole file is indexed.
    void store.whenIndexed().then(() => {
      if (store.readOnly) this.log.log('warn', `Chat ${store.header.id} is read-only`, { reason: store.readOnlyReason });
      for (const p of store.problems) this.log.log('warn', `Chat ${store.header.id}: ${p.message}`, { kind: p.kind, line: p.line });
    });
  }

  #fire(): void {
    if (!this.#disposed) this.#emitter.fire();
  }

  #cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? homedir();
  }

  dispose(): void {
    // deactivate() normally closed the store already; this covers a dispose without it.
    void this.close();
    this.#disposed = true;
    this.#emitter.dispose();
  }
}
