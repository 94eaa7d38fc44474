// The value types of the in-memory `vscode` stand-in (events, URIs, positions, secrets, a webview view), and the file walk its workspace search uses.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export type Listener<T> = (e: T) => unknown;

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

export class Uri {
  private constructor(
    readonly fsPath: string,
    readonly scheme = 'file',
    private readonly raw?: string,
  ) {}
  static file(p: string): Uri {
    return new Uri(p);
  }
  static parse(href: string): Uri {
    return new Uri('', href.split(':')[0] ?? '', href);
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri([u.fsPath, ...parts].join('/'));
  }
  static from(c: { readonly scheme: string; readonly path: string; readonly query?: string }): Uri {
    return new Uri(c.path, c.scheme, `${c.scheme}:${c.path}${c.query === undefined ? '' : `?${c.query}`}`);
  }
  get query(): string {
    const at = (this.raw ?? '').indexOf('?');
    return at === -1 ? '' : (this.raw ?? '').slice(at + 1);
  }
  with(c: { readonly query: string }): Uri {
    return Uri.from({ scheme: this.scheme, path: this.fsPath, query: c.query });
  }
  toString(): string {
    return this.raw ?? `file://${this.fsPath}`;
  }
}

/** A glob as VS Code's file search reads it (`**`, `*`, `?`, `{a,b}`), as a RegExp over forward-slash relative paths. */
export function globRegExp(glob: string): RegExp {
  const alts = glob.startsWith('{') && glob.endsWith('}') ? glob.slice(1, -1).split(',') : [glob];
  const one = (g: string): string =>
    g
      .replace(/[.+^$()|[\]\\]/g, (c) => `\\${c}`)
      .replace(/\*\*\//g, '\u0000')
      .replace(/\*\*/g, '\u0001')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')
      .replace(/\u0000/g, '(?:.*/)?')
      .replace(/\u0001/g, '.*');
  return new RegExp(`^(?:${alts.map(one).join('|')})$`);
}

/** Every file under `root` (relative, forward slashes), as `vscode.workspace.findFiles` would list them. */
export function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) walk(root, p, out);
    else if (d.isFile()) out.push(relative(root, p).split('\\').join('/'));
  }
  return out;
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}

/** VS Code's SecretStorage, in memory; `stored` lets a test look at what was written. */
export class FakeSecrets {
  readonly stored = new Map<string, string>();
  readonly #changes = new EventEmitter<{ key: string }>();
  readonly onDidChange = this.#changes.event;
  async get(key: string): Promise<string | undefined> {
    return this.stored.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.stored.set(key, value);
    this.#changes.fire({ key });
  }
  async delete(key: string): Promise<void> {
    this.stored.delete(key);
    this.#changes.fire({ key });
  }
}

/** What a dialog or picker answers: a function of what it was asked, or undefined (dismissed). */
export type Answer = (kind: 'modal' | 'quickPick' | 'inputBox' | 'saveDialog' | 'openDialog', prompt: string, items: readonly unknown[]) => unknown;

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
  const view = { webview, visible: true, show: () => undefined, onDidChangeVisibility: new EventEmitter<void>().event, onDidDispose: disposed.event };
  return {
    view,
    webview,
    dispose: () => {
      isDisposed = true;
      disposed.fire();
    },
  };
}
