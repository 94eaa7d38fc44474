// Headless Chromium harness: the BUILT webview bundle under the production CSP, with a scripted stand-in for acquireVsCodeApi.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { HostToWebview, WebviewToHost } from '../../src/protocol/messages.js';
import { newNonce, webviewHtml } from '../../src/vscode/views/webviewHtml.js';

export const REPO = resolve(__dirname, '..', '..');
const ARTIFACTS = join(REPO, 'test-artifacts', 'webview');
const MEDIA = join(REPO, 'media');
const BUNDLE = join(MEDIA, 'webview.js');
/** A stand-in for VS Code's webview resource origin (`webview.cspSource`). */
const ORIGIN = 'https://webview.capsule.test';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : name.endsWith('.ts') ? st.mtimeMs : 0);
  }
  return newest;
}

/**
 * Builds media/webview.js when it is missing or older than its sources. Only the webview entry is built (same options as
 * esbuild.mjs), so a half-edited host file elsewhere cannot fail these tests; write-then-rename keeps parallel test files safe.
 */
export async function ensureBundle(): Promise<void> {
  // webview.css imports codicon.css; esbuild.mjs copies it from @vscode/codicons, and so does this.
  for (const f of ['codicon.css', 'codicon.ttf']) copyFileSync(join(REPO, 'node_modules', '@vscode', 'codicons', 'dist', f), join(REPO, 'media', f));
  let built = 0;
  try {
    built = statSync(BUNDLE).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(newestMtime(join(REPO, 'webview')), newestMtime(join(REPO, 'src', 'protocol')));
  if (built > sources) return;
  const r = await esbuild.build({
    entryPoints: [join(REPO, 'webview', 'chatApp.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: false,
    keepNames: true,
    write: false,
    logLevel: 'silent',
    outfile: BUNDLE,
  });
  const out = r.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!out) throw new Error('esbuild produced no webview bundle');
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  writeFileSync(tmp, out.contents);
  renameSync(tmp, BUNDLE);
}

import { launchBrowser } from '../support/browser.js';

export { launchBrowser };

/** A browser, or the handle `browserForFile` returns (read once the file's `before` has run). */
export type BrowserRef = Browser | (() => Browser);

/** One Chromium for a test file, with the bundle built first: launched in `before`, closed in `after`. */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    await ensureBundle();
    browser = await launchBrowser();
  });
  after(async () => browser?.close());
  return () => {
    if (browser === undefined) throw new Error('the browser is launched in before(): use it inside a test');
    return browser;
  };
}

/** The messages of one type the page posted to the host, in order. */
export async function ofType<T extends WebviewToHost['type']>(h: Harness, type: T): Promise<Extract<WebviewToHost, { type: T }>[]> {
  return (await h.posted()).filter((m): m is Extract<WebviewToHost, { type: T }> => m.type === type);
}

export type Theme = 'dark' | 'light' | 'high-contrast' | 'high-contrast-light';

/**
 * The part of the stylesheet VS Code puts in front of every webview's own that colours code: textPreformat
 * foreground on textPreformat background. Served first, so the view's CSS must win over it as it does in VS Code.
 */
const VSCODE_DEFAULT_STYLES = `
code { font-family: var(--vscode-editor-font-family); color: var(--vscode-textPreformat-foreground); background-color: var(--vscode-textPreformat-background); padding: 1px 3px; border-radius: 4px; }
pre code { padding: 0; }
`;
/** VS Code's colours for the code and diff tokens, per theme (textPreformat, textCodeBlock, editor, diff). */
const CODE_TOKENS: Readonly<Record<Theme, Readonly<Record<string, string>>>> = {
  dark: { 'textPreformat-foreground': '#d7ba7d', 'textPreformat-background': '#ffffff1a', 'editor-foreground': '#cccccc' },
  light: {
    'textPreformat-foreground': '#a31515',
    'textPreformat-background': '#0000001a',
    'textCodeBlock-background': '#dcdcdc66',
    'editor-foreground': '#3b3b3b',
    'editor-background': '#ffffff',
    'diffEditor-insertedLineBackground': '#9bb95533',
    'diffEditor-removedLineBackground': '#ff000033',
  },
  'high-contrast': {
    'textPreformat-foreground': '#000000',
    'textPreformat-background': '#ffffff',
    'textCodeBlock-background': '#000000',
    'editor-foreground': '#ffffff',
    'editor-background': '#000000',
    'diffEditor-insertedTextBorder': '#33ff2eff',
    'diffEditor-removedTextBorder': '#ff008f',
  },
  'high-contrast-light': {
    'textPreformat-foreground': '#ffffff',
    'textPreformat-background': '#09345f',
    'textCodeBlock-background': '#f2f2f2',
    'editor-foreground': '#292929',
    'editor-background': '#ffffff',
    'diffEditor-insertedTextBorder': '#374e06',
    'diffEditor-removedTextBorder': '#ad0707',
  },
};

/** A few of the variables VS Code injects, enough for the view to look like itself in screenshots. */
const THEMES: Readonly<Record<Theme, Readonly<Record<string, string>>>> = {
  dark: {
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    'sideBar-background': '#181818',
    'editor-background': '#1f1f1f',
    focusBorder: '#0078d4',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'widget-border': '#313131',
    'textLink-foreground': '#4daafc',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'textBlockQuote-background': '#2b2b2b',
    'textCodeBlock-background': '#2b2b2b',
    'charts-purple': '#b180d7',
    'charts-yellow': '#cca700',
    'charts-green': '#89d185',
    'charts-blue': '#3794ff',
    'charts-orange': '#d18616',
    disabledForeground: '#6e6e6e',
    'editorWarning-foreground': '#cca700',
    'editorError-foreground': '#f14c4c',
    errorForeground: '#f85149',
    'progressBar-background': '#0078d4',
    'diffEditor-insertedLineBackground': '#9bb95533',
    'diffEditor-removedLineBackground': '#ff000033',
    'editorWidget-background': '#202020',
    'font-family': 'system-ui, sans-serif',
    'font-size': '13px',
    'editor-font-family': 'monospace',
  },
  light: {
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    'sideBar-background': '#f8f8f8',
    focusBorder: '#005fb8',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-secondaryBackground': '#e5e5e5',
    'input-background': '#ffffff',
    'input-border': '#cecece',
    'widget-border': '#e5e5e5',
    'charts-blue': '#1a85ff',
    'charts-green': '#388a34',
    'charts-purple': '#652d90',
    'charts-yellow': '#bf8803',
    'charts-orange': '#d18616',
    'editorWarning-foreground': '#bf8803',
    'editorError-foreground': '#e51400',
    'font-family': 'system-ui, sans-serif',
    'font-size': '13px',
  },
  'high-contrast': {
    foreground: '#ffffff',
    'sideBar-background': '#000000',
    focusBorder: '#f38518',
    contrastBorder: '#6fc3df',
    contrastActiveBorder: '#f38518',
    'input-background': '#000000',
    'charts-blue': '#3794ff',
    'charts-green': '#89d185',
    'editorWarning-foreground': '#ffd370',
    'editorError-foreground': '#ff3232',
    'font-family': 'system-ui, sans-serif',
    'font-size': '13px',
  },
  'high-contrast-light': {
    foreground: '#292929',
    descriptionForeground: '#292929',
    'sideBar-background': '#ffffff',
    focusBorder: '#006bbd',
    contrastBorder: '#0f4a85',
    contrastActiveBorder: '#006bbd',
    'input-background': '#ffffff',
    'button-background': '#0f4a85',
    'button-foreground': '#ffffff',
    'charts-blue': '#0f4a85',
    'charts-green': '#374e06',
    'editorWarning-foreground': '#895503',
    'editorError-foreground': '#b5200d',
    'font-family': 'system-ui, sans-serif',
    'font-size': '13px',
  },
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
};

export interface Harness {
  readonly page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  readonly errors: string[];
  /** What VS Code's frame would have opened itself (a click on an a[href]): must stay empty, the host opens links. */
  frameOpened(): Promise<string[]>;
  /** Everything the webview posted to the "host", in order. */
  posted(): Promise<WebviewToHost[]>;
  /** Delivers a host message exactly as VS Code does (a `message` event on window), synchronously. */
  send(message: HostToWebview): Promise<void>;
  /** Sends anything, valid or not. */
  sendRaw(message: unknown): Promise<void>;
  /** Evaluates a browser-side expression (source text) and returns its JSON value. */
  value<T>(expression: string): Promise<T>;
  /** Waits until a browser-side expression is truthy. */
  until(expression: string, what: string): Promise<void>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly theme?: Theme;
  /** What getState() returns at first (as if VS Code had kept it). */
  readonly state?: unknown;
  readonly width?: number;
  readonly height?: number;
}

export async function openHarness(browser: BrowserRef, o: HarnessOptions = {}): Promise<Harness> {
  const page = await (typeof browser === 'function' ? browser() : browser).newPage({ viewport: { width: o.width ?? 420, height: o.height ?? 720 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  const theme = o.theme ?? 'dark';
  // Browser-side code goes in as source text: this tsconfig has no DOM library, and the page is not Node.
  const init = {
    state: o.state ?? null,
    vars: { ...THEMES[theme], ...CODE_TOKENS[theme] },
    themeClass: theme === 'high-contrast' ? 'vscode-high-contrast' : theme === 'high-contrast-light' ? 'vscode-high-contrast-light' : `vscode-${theme}`,
    defaults: `${ORIGIN}/vscode/default-styles.css`,
  };
  await page.addInitScript({
    content: `(() => {
      const init = ${JSON.stringify(init)};
      const posted = [];
      let saved = init.state;
      window.__posted = posted;
      window.__savedState = () => saved;
      window.acquireVsCodeApi = () => ({
        postMessage: (m) => { posted.push(JSON.parse(JSON.stringify(m))); },
        getState: () => saved,
        setState: (s) => { saved = JSON.parse(JSON.stringify(s)); },
      });
      // What VS Code's webview frame does with a click on any a[href] (its index.html handleInnerClick), whatever the
      // page's own handlers did: it asks the workbench to open node.href. A relative href opens a "Not found" tab.
      window.__frameOpened = [];
      window.addEventListener('click', (e) => {
        for (const n of e.composedPath()) if (n.tagName && n.tagName.toLowerCase() === 'a' && n.href) { window.__frameOpened.push(String(n.href)); e.preventDefault(); return; }
      });
      document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
      document.addEventListener('DOMContentLoaded', () => {
        for (const [k, v] of Object.entries(init.vars)) document.documentElement.style.setProperty('--vscode-' + k, v);
        document.body.classList.add(init.themeClass);
        const link = document.createElement('link');
        link.rel = 'stylesheet';
        link.href = init.defaults;
        document.head.prepend(link);
      });
    })();`,
  });
  const html = webviewHtml({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/media/webview.js`, styleUri: `${ORIGIN}/media/webview.css`, nonce: newNonce() });
  await page.route(`${ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/index.html') return route.fulfill({ status: 200, contentType: 'text/html', body: html });
    if (path === '/vscode/default-styles.css') return route.fulfill({ status: 200, contentType: 'text/css', body: VSCODE_DEFAULT_STYLES });
    const m = /^\/media\/([\w.-]+)$/.exec(path);
    if (!m?.[1]) return route.fulfill({ status: 404, body: '' });
    try {
      return await route.fulfill({
        status: 200,
        contentType: CONTENT_TYPES[extname(m[1])] ?? 'application/octet-stream',
        body: readFileSync(join(MEDIA, m[1])),
      });
    } catch {
      return route.fulfill({ status: 404, body: '' });
    }
  });
  await page.goto(`${ORIGIN}/index.html`);
  for (let i = 0; !(await page.evaluate('window.__posted.some((m) => m.type === "ready")')); i++) {
    if (i > 500) throw new Error('the webview never said ready');
    await new Promise((r) => setTimeout(r, 20));
  }
  const deliver = async (message: unknown): Promise<void> => {
    await page.evaluate(`window.dispatchEvent(new MessageEvent('message', { data: ${JSON.stringify(message)} }))`);
  };
  return {
    page,
    errors,
    posted: async () => (await page.evaluate('window.__posted.slice()')) as WebviewToHost[],
    frameOpened: async () => (await page.evaluate('window.__frameOpened.slice()')) as string[],
    send: deliver,
    sendRaw: deliver,
    value: async <T>(expression: string) => (await page.evaluate(expression)) as T,
    until: async (expression, what) => {
      // Polled from here: waitForFunction compiles its predicate inside the page, which the production CSP forbids.
      const deadline = Date.now() + 10_000;
      let last = '';
      while (Date.now() < deadline) {
        try {
          if (await page.evaluate(expression)) return;
        } catch (err) {
          last = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`gave up waiting for ${what} (${expression})${last ? `: ${last}` : ''}`);
    },
    screenshot: async (name) => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const file = join(ARTIFACTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    close: async () => page.close(),
  };
}

/**
 * Runs one scenario on a fresh page; on failure keeps a screenshot in test-artifacts/webview/<name>.png. Afterwards the
 * page must have logged no console error or CSP violation and posted no `webviewError`.
 */
export async function scenario(browser: BrowserRef, name: string, fn: (h: Harness) => Promise<void>, o: HarnessOptions = {}): Promise<void> {
  const h = await openHarness(browser, o);
  try {
    await fn(h);
    const reported = (await h.posted()).filter((m) => m.type === 'webviewError');
    if (h.errors.length > 0 || reported.length > 0)
      throw new Error(`errors in the webview:\n${[...h.errors, ...reported.map((m) => JSON.stringify(m))].join('\n')}`);
  } catch (err) {
    const file = await h.screenshot(name).catch(() => '(no screenshot)');
    if (err instanceof Error) err.message = `${err.message}\nscreenshot: ${file}`;
    throw err;
  } finally {
    await h.close();
  }
}
