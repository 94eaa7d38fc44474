// Activates the real extension in plain Node against the fake `vscode`, with temp storage and workspace, and drives its chat view.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { warmEncoding } from '../../../src/node/tokenCounter.js';
import { HostToWebviewSchema, type HostToWebview } from '../../../src/protocol/messages.js';
import { createFakeVscode, installFakeVscode, type FakeState } from '../../support/fakeVscode.js';
import { fakeWebviewView, FakeSecrets, type FakeWebview } from '../../support/fakeVscodeParts.js';

const ROOT = join(__dirname, '..', '..', '..');

type Ext = typeof import('../../../src/extension.js');

export interface OpenView {
  readonly webview: FakeWebview;
  /** Every message posted so far, each validated against the protocol schema (a bad one fails the test). */
  messages(): HostToWebview[];
  /** Messages posted after the `mark` index (see `mark()`). */
  since(mark: number): HostToWebview[];
  mark(): number;
  send(message: unknown): void;
  dispose(): void;
}

export interface Harness {
  readonly state: FakeState;
  readonly api: Record<string, unknown>;
  readonly secrets: FakeSecrets;
  readonly tmp: string;
  readonly workspace: string;
  readonly storage: string;
  readonly context: { readonly subscriptions: { dispose(): unknown }[]; readonly workspaceState: Memento; readonly globalState: Memento };
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves the chat view and says `ready`. */
  openView(ready?: boolean): OpenView;
  command(id: string, ...args: unknown[]): Promise<unknown>;
  /** Sets settings as if the user edited them (one change event per key). */
  configure(values: Readonly<Record<string, unknown>>): void;
}

interface Memento {
  get(k: string): unknown;
  update(k: string, v: unknown): Promise<void>;
  keys(): string[];
}

function memento(): Memento {
  const m = new Map<string, unknown>();
  return { get: (k) => m.get(k), update: async (k, v) => void m.set(k, v), keys: () => [...m.keys()] };
}

/** Points the extension at `server`, activates it and opens the chat view once its agent is ready. */
export async function openAgentView(h: Harness, server: { readonly url: string }): Promise<OpenView> {
  h.state.config.set('capsule.provider.baseUrl', server.url);
  await h.start();
  const v = h.openView();
  await until(() => v.messages().some((m) => m.type === 'snapshot' && m.setup?.required === false), 'the agent to open');
  return v;
}

/** Closes what openAgentView opened, and the server. */
export async function closeAgentView(h: Harness, v: OpenView, server: { close(): Promise<void> }): Promise<void> {
  v.dispose();
  await h.stop();
  await server.close();
}

/** Sends `text` as the user and waits for the turn to end; returns what the view received meanwhile. */
export async function turnOn(v: OpenView, text: string): Promise<HostToWebview[]> {
  const mark = v.mark();
  v.send({ type: 'send', text, clientId: `c_${mark}` });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), `the turn "${text}" to finish`);
  return v.since(mark);
}

/** Waits until `cond` holds, checking after each turn of the event loop (file and HTTP I/O need a few). */
export async function until(cond: () => boolean, what: string, tries = 3000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

export function lastOf<T extends HostToWebview['type']>(messages: readonly HostToWebview[], type: T): Extract<HostToWebview, { type: T }> | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.type === type) return m as Extract<HostToWebview, { type: T }>;
  }
  return undefined;
}

export function createHarness(opts: { readonly workspace?: boolean; readonly settings?: Readonly<Record<string, unknown>> } = {}): Harness {
  // Exact counts from the first figure on: until the table is built (250 ms after the first count, later on a loaded
  // machine) counts are upper bounds, and these tests compare meter readings across turns. The cold start has its own
  // tests (test/unit/agent/coldStart.test.ts); almost every host test builds the table anyway once its first turn runs.
  warmEncoding('o200k_base');
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-host-'));
  const workspace = join(tmp, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const storage = join(tmp, 'storage');
  const { api, state } = createFakeVscode(opts.workspace === false ? undefined : workspace);
  for (const [k, v] of Object.entries(opts.settings ?? {})) state.config.set(k, v);
  const uninstall = installFakeVscode(api);
  const secrets = new FakeSecrets();
  const uri = (p: string): unknown => (api.Uri as { file(p: string): unknown }).file(p);
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    storageUri: uri(storage),
    globalStorageUri: uri(join(tmp, 'global')),
    workspaceState: memento(),
    globalState: memento(),
    secrets,
    extensionUri: uri(ROOT),
    extension: { packageJSON: { version: '0.0.0-test' } },
  };
  let ext: Ext | undefined;
  return {
    state,
    api,
    secrets,
    tmp,
    workspace,
    storage,
    context,
    async start() {
      ext = await import('../../../src/extension.js');
      ext.activate(context as never);
    },
    async stop() {
      await ext?.deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
      uninstall();
    },
    openView(ready = true) {
      const chat = state.providers.get('capsule.chat') as { resolveWebviewView(v: unknown): void };
      const v = fakeWebviewView();
      chat.resolveWebviewView(v.view);
      const messages = (): HostToWebview[] => v.webview.posted.map((m) => HostToWebviewSchema.parse(m));
      if (ready) v.webview.send({ type: 'ready' });
      return {
        webview: v.webview,
        messages,
        since: (mark) => messages().slice(mark),
        mark: () => v.webview.posted.length,
        send: (m) => v.webview.send(m),
        dispose: v.dispose,
      };
    },
    async command(id, ...args) {
      const f = state.commands.get(id);
      if (!f) assert.fail(`command ${id} is not registered`);
      return f(...args);
    },
    configure(values) {
      for (const [key, value] of Object.entries(values)) {
        state.config.set(key, value);
        state.configEvents.fire({ affectsConfiguration: (s: string) => key.startsWith(s) });
      }
    },
  };
}
