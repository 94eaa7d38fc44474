// A small in-memory stand-in for the `vscode` module, enough to activate the extension in plain Node and drive its views.
import Module from 'node:module';

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  #listeners: Listener<T>[] = [];
  readonly event = (l: Listener<T>): { dispose(): void } => {
    this.#listeners.push(l);
    return { dispose: () => (this.#listeners = this.#listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.#listeners]) l(e);
  }
  dispose(): void {
    this.#listeners = [];
  }
}

class Uri {
  private constructor(readonly fsPath: string) {}
  static file(p: string): Uri {
    return new Uri(p);
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri([u.fsPath, ...parts].join('/'));
  }
  toString(): string {
    return `file://${this.fsPath}`;
  }
}

export interface FakeWebview {
  options: unknown;
  html: string;
  readonly cspSource: string;
  readonly posted: unknown[];
  asWebviewUri(u: Uri): Uri;
  postMessage(m: unknown): Promise<boolean>;
  onDidReceiveMessage: (l: Listener<unknown>) => { dispose(): void };
  /** Test side: deliver a message as if the webview script sent it. */
  send(m: unknown): void;
}

export function fakeWebviewView(): { view: unknown; webview: FakeWebview; dispose(): void } {
  const incoming = new EventEmitter<unknown>();
  const disposed = new EventEmitter<void>();
  let isDisposed = false;
  const webview: FakeWebview = {
    options: undefined,
    html: '',
    cspSource: 'https://fake.vscode-resource',
    posted: [],
    asWebviewUri: (u) => u,
    postMessage: (m) => {
      if (isDisposed) throw new Error('Webview is disposed');
      webview.posted.push(JSON.parse(JSON.stringify(m)) as unknown);
      return Promise.resolve(true);
    },
    onDidReceiveMessage: incoming.event,
    send: (m) => incoming.fire(m),
  };
  const view = { webview, visible: true, onDidChangeVisibility: new EventEmitter<void>().event, onDidDispose: disposed.event };
  return {
    view,
    webview,
    dispose: () => {
      isDisposed = true;
      disposed.fire();
    },
  };
}

export interface FakeState {
  readonly config: Map<string, unknown>;
  readonly commands: Map<string, (...args: unknown[]) => unknown>;
  readonly messages: { readonly level: string; readonly text: string }[];
  readonly log: string[];
  readonly providers: Map<string, unknown>;
  readonly configEvents: EventEmitter<{ affectsConfiguration(s: string): boolean }>;
  readonly statusText: () => string;
}

export function createFakeVscode(workspaceFolder: string | undefined): { api: Record<string, unknown>; state: FakeState } {
  const config = new Map<string, unknown>();
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const messages: { level: string; text: string }[] = [];
  const log: string[] = [];
  const providers = new Map<string, unknown>();
  const configEvents = new EventEmitter<{ affectsConfiguration(s: string): boolean }>();
  let status = '';
  const channel = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'appendLine'].map((k) => [k, (t: string) => log.push(`${k}: ${t}`)]));
  const api: Record<string, unknown> = {
    EventEmitter,
    Uri,
    Disposable: class {
      constructor(private readonly f: () => void) {}
      dispose(): void {
        this.f();
      }
    },
    ThemeIcon: class {
      constructor(readonly id: string, readonly color?: unknown) {}
    },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    MarkdownString: class {
      value = '';
      constructor(v?: string) {
        this.value = v ?? '';
      }
      appendMarkdown(t: string): this {
        this.value += t;
        return this;
      }
      appendText(t: string): this {
        this.value += t;
        return this;
      }
    },
    TreeItem: class {
      constructor(readonly label: string, readonly collapsibleState: number) {}
    },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    window: {
      createOutputChannel: () => ({ ...channel, show: () => undefined, dispose: () => undefined }),
      createStatusBarItem: () => {
        const item = { text: '', show: () => (status = item.text), hide: () => undefined, dispose: () => undefined };
        return item;
      },
      registerWebviewViewProvider: (id: string, p: unknown) => {
        providers.set(id, p);
        return { dispose: () => providers.delete(id) };
      },
      createTreeView: (id: string, o: { treeDataProvider: unknown }) => {
        providers.set(id, o.treeDataProvider);
        return { dispose: () => providers.delete(id) };
      },
      showWarningMessage: (text: string) => (messages.push({ level: 'warning', text }), Promise.resolve(undefined)),
      showInformationMessage: (text: string) => (messages.push({ level: 'info', text }), Promise.resolve(undefined)),
      showErrorMessage: (text: string) => (messages.push({ level: 'error', text }), Promise.resolve(undefined)),
      showTextDocument: () => Promise.resolve(undefined),
    },
    workspace: {
      workspaceFolders: workspaceFolder === undefined ? undefined : [{ uri: Uri.file(workspaceFolder), name: 'ws', index: 0 }],
      getConfiguration: (section: string) => ({
        get: (k: string) => config.get(`${section}.${k}`),
        inspect: (k: string) => ({ key: `${section}.${k}`, workspaceValue: config.get(`${section}.${k}`) }),
        update: (k: string, v: unknown) => {
          config.set(`${section}.${k}`, v);
          configEvents.fire({ affectsConfiguration: (s: string) => `${section}.${k}`.startsWith(s) });
          return Promise.resolve();
        },
      }),
      onDidChangeConfiguration: configEvents.event,
      openTextDocument: (o: unknown) => Promise.resolve(o),
    },
    commands: {
      registerCommand: (id: string, f: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`command ${id} already registered`);
        commands.set(id, f);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        const f = commands.get(id);
        if (!f) throw new Error(`command '${id}' not found`);
        return f(...args);
      },
    },
  };
  return { api, state: { config, commands, messages, log, providers, configEvents, statusText: () => status } };
}

/** Makes `require('vscode')` return `api` for modules loaded after this call. */
export function installFakeVscode(api: Record<string, unknown>): void {
  const m = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = m._load;
  m._load = function load(request: string, ...rest: unknown[]): unknown {
    return request === 'vscode' ? api : original.call(this, request, ...rest);
  };
}
