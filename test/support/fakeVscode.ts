// A small typed in-memory stand-in for the `vscode` module, enough to activate the extension in plain Node and drive its views; installing it returns its undo.
import Module from 'node:module';
import { join } from 'node:path';
import { EventEmitter, globRegExp, Position, Range, Uri, walk, type Answer } from './fakeVscodeParts.js';

export interface FakeState {
  readonly config: Map<string, unknown>;
  readonly commands: Map<string, (...args: unknown[]) => unknown>;
  readonly messages: { readonly level: string; readonly text: string }[];
  readonly log: string[];
  readonly providers: Map<string, unknown>;
  readonly configEvents: EventEmitter<{ affectsConfiguration(s: string): boolean }>;
  readonly statusText: () => string;
  /** Every status bar item created, as the extension last set it (text, tooltip). */
  readonly statusItems: readonly { readonly text: string; readonly tooltip: unknown }[];
  /** Modal answers, picks, input and file dialogs; default: everything dismissed. */
  answer: Answer;
  /** Every modal, pick, input box or dialog shown, in order. */
  readonly asked: { readonly kind: string; readonly prompt: string; readonly detail?: string; readonly options?: readonly string[] }[];
  readonly clipboard: string[];
  readonly opened: string[];
  readonly documents: unknown[];
  /** Where a configured key lives (`user` settings or the `workspace`'s); keys not listed are workspace settings. */
  readonly scopes: Map<string, 'user' | 'workspace'>;
  /** Every configuration write, with the ConfigurationTarget it went to (1 user, 2 workspace, 3 folder). */
  readonly writes: { readonly key: string; readonly value: unknown; readonly target: unknown }[];
  /** Every `vscode.diff` opened: left, right and title; `content(uri)` reads a virtual document a provider serves. */
  readonly diffs: { readonly left: string; readonly right: string; readonly title: string }[];
  readonly content: (uri: { toString(): string; scheme: string }) => string | undefined;
  /** Grants workspace trust as VS Code does: `isTrusted` becomes true, then the grant event fires. */
  readonly grantTrust: () => void;
  /** Every `showTextDocument`: what it opened and with which options (selection, preview). */
  readonly shown: { readonly target: unknown; readonly options: unknown }[];
  /** Every `workspace.findFiles`: include and exclude globs. */
  readonly searches: { readonly include: string; readonly exclude: string | undefined }[];
  /** What `window.activeTextEditor` returns (a test sets it). */
  activeEditor: unknown;
}

/** The fake and its recorded state; the api's type is what it implements (the compiler sees each member, nothing is `unknown`). */
export function createFakeVscode(workspaceFolder: string | undefined) {
  const config = new Map<string, unknown>();
  const scopes = new Map<string, 'user' | 'workspace'>();
  const writes: FakeState['writes'][number][] = [];
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const messages: { level: string; text: string }[] = [];
  const log: string[] = [];
  const providers = new Map<string, unknown>();
  const configEvents = new EventEmitter<{ affectsConfiguration(s: string): boolean }>();
  let status = '';
  const statusItems: { text: string; tooltip: unknown }[] = [];
  const asked: { kind: string; prompt: string; detail?: string; options?: readonly string[] }[] = [];
  const clipboard: string[] = [];
  const opened: string[] = [];
  const documents: unknown[] = [];
  const lmChanges = new EventEmitter<void>();
  const trustGranted = new EventEmitter<void>();
  const diffs: FakeState['diffs'][number][] = [];
  const shown: FakeState['shown'][number][] = [];
  const searches: FakeState['searches'][number][] = [];
  const contentProviders = new Map<string, { provideTextDocumentContent(u: unknown): string }>();
  const content = (uri: { toString(): string; scheme: string }): string | undefined => contentProviders.get(uri.scheme)?.provideTextDocumentContent(uri);
  let state: FakeState;
  const ask = (kind: Parameters<Answer>[0], prompt: string, items: readonly unknown[], detail?: string): Promise<unknown> => {
    const options = items.filter((i): i is string => typeof i === 'string');
    asked.push({ kind, prompt, ...(detail === undefined ? {} : { detail }), ...(options.length === 0 ? {} : { options }) });
    return Promise.resolve(state.answer(kind, prompt, items));
  };
  const channel = Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'appendLine'].map((k) => [k, (t: string) => log.push(`${k}: ${t}`)]));
  const api = {
    EventEmitter,
    Uri,
    Disposable: class {
      constructor(private readonly f: () => void) {}
      dispose(): void {
        this.f();
      }
    },
    ThemeIcon: class {
      constructor(
        readonly id: string,
        readonly color?: unknown,
      ) {}
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
      constructor(
        readonly label: string,
        readonly collapsibleState: number,
      ) {}
    },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    Position,
    Range,
    CancellationTokenSource: class {
      readonly token = { isCancellationRequested: false };
      cancel(): void {
        this.token.isCancellationRequested = true;
      }
      dispose(): void {}
    },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    window: {
      createOutputChannel: () => ({ ...channel, show: () => undefined, dispose: () => undefined }),
      createStatusBarItem: () => {
        const item = { text: '', tooltip: undefined as unknown, show: () => (status = item.text), hide: () => undefined, dispose: () => undefined };
        statusItems.push(item);
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
      showWarningMessage: (text: string, ...rest: unknown[]) => {
        messages.push({ level: 'warning', text });
        const first = rest[0];
        const modal = typeof first === 'object' && first !== null && (first as { modal?: boolean }).modal === true;
        return modal ? ask('modal', text, rest.slice(1), (first as { detail?: string }).detail) : Promise.resolve(undefined);
      },
      showQuickPick: (items: readonly unknown[], o?: { title?: string }) => ask('quickPick', o?.title ?? '', items),
      showInputBox: (o?: { prompt?: string; title?: string }) => ask('inputBox', o?.title ?? o?.prompt ?? '', []),
      showSaveDialog: (o?: { title?: string }) => ask('saveDialog', o?.title ?? '', []),
      showOpenDialog: (o?: { title?: string }) => ask('openDialog', o?.title ?? '', []),
      showInformationMessage: (text: string, ...rest: unknown[]) => {
        messages.push({ level: 'info', text });
        const first = rest[0];
        const modal = typeof first === 'object' && first !== null && (first as { modal?: boolean }).modal === true;
        return modal ? ask('modal', text, rest.slice(1), (first as { detail?: string }).detail) : Promise.resolve(undefined);
      },
      showErrorMessage: (text: string) => (messages.push({ level: 'error', text }), Promise.resolve(undefined)),
      showTextDocument: (doc: unknown, options?: unknown) => (documents.push(doc), shown.push({ target: doc, options }), Promise.resolve(undefined)),
      get activeTextEditor(): unknown {
        return state.activeEditor;
      },
    },
    env: {
      appRoot: '',
      clipboard: { writeText: (t: string) => (clipboard.push(t), Promise.resolve()) },
      openExternal: (u: { toString(): string }) => (opened.push(u.toString()), Promise.resolve(true)),
    },
    lm: {
      selectChatModels: () => Promise.resolve([]),
      onDidChangeChatModels: lmChanges.event,
    },
    workspace: {
      workspaceFolders: workspaceFolder === undefined ? undefined : [{ uri: Uri.file(workspaceFolder), name: 'ws', index: 0 }],
      getConfiguration: (section: string) => ({
        get: (k: string) => config.get(`${section}.${k}`),
        inspect: (k: string) => {
          const key = `${section}.${k}`;
          return scopes.get(key) === 'user' ? { key, globalValue: config.get(key) } : { key, workspaceValue: config.get(key) };
        },
        update: (k: string, v: unknown, target?: unknown) => {
          writes.push({ key: `${section}.${k}`, value: v, target });
          config.set(`${section}.${k}`, v);
          // ConfigurationTarget.Global is 1: a later inspect() finds the value where it was written.
          if (target !== undefined) scopes.set(`${section}.${k}`, target === 1 ? 'user' : 'workspace');
          configEvents.fire({ affectsConfiguration: (s: string) => `${section}.${k}`.startsWith(s) });
          return Promise.resolve();
        },
      }),
      onDidChangeConfiguration: configEvents.event,
      isTrusted: true,
      onDidGrantWorkspaceTrust: trustGranted.event,
      openTextDocument: (o: unknown) => Promise.resolve(o),
      findFiles: (include: string, exclude?: string, max = 10_000) => {
        searches.push({ include, exclude });
        if (workspaceFolder === undefined) return Promise.resolve([]);
        const inc = globRegExp(include);
        const exc = exclude === undefined ? undefined : globRegExp(exclude);
        return Promise.resolve(
          walk(workspaceFolder)
            .filter((p) => inc.test(p) && !exc?.test(p))
            .slice(0, max)
            .map((p) => Uri.file(join(workspaceFolder, p))),
        );
      },
      asRelativePath: (u: { fsPath: string } | string) => {
        const p = typeof u === 'string' ? u : u.fsPath;
        return workspaceFolder !== undefined && p.startsWith(`${workspaceFolder}/`) ? p.slice(workspaceFolder.length + 1) : p;
      },
      registerTextDocumentContentProvider: (scheme: string, p: { provideTextDocumentContent(u: unknown): string }) => {
        contentProviders.set(scheme, p);
        return { dispose: () => contentProviders.delete(scheme) };
      },
    },
    commands: {
      registerCommand: (id: string, f: (...args: unknown[]) => unknown) => {
        if (commands.has(id)) throw new Error(`command ${id} already registered`);
        commands.set(id, f);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        // VS Code's own diff command: recorded, nothing to render.
        if (id === 'vscode.diff') return void diffs.push({ left: String(args[0]), right: String(args[1]), title: String(args[2]) });
        const f = commands.get(id);
        if (!f) throw new Error(`command '${id}' not found`);
        return f(...args);
      },
    },
  };
  const grantTrust = (): void => {
    api.workspace.isTrusted = true;
    trustGranted.fire();
  };
  state = {
    config,
    commands,
    messages,
    log,
    providers,
    configEvents,
    statusText: () => status,
    statusItems,
    answer: () => undefined,
    asked,
    clipboard,
    opened,
    documents,
    scopes,
    writes,
    diffs,
    content,
    grantTrust,
    shown,
    searches,
    activeEditor: undefined,
  };
  return { api, state };
}

/** Makes `require('vscode')` return `api` for modules loaded after this call; the returned function puts the loader back. */
export function installFakeVscode(api: object): () => void {
  const m = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = m._load;
  const load = function load(this: unknown, request: string, ...rest: unknown[]): unknown {
    return request === 'vscode' ? api : original.call(this, request, ...rest);
  };
  m._load = load;
  return () => {
    // Only undo our own patch: a later install that wrapped this one restores itself.
    if (m._load === load) m._load = original;
  };
}
