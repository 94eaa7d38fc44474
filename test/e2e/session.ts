// The setup every e2e file shares: the scripted OpenAI-compatible server (when the file needs one), code-server with
// the VSIX and the file's settings, Chromium with one watched page; stopped in reverse order after the file.
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAIServer } from '../fakes/openaiServer.js';
import type { FakeServerOptions } from '../fakes/types.js';
import { launchBrowser, stepper, watchConsole, type ConsoleLog } from './browser.js';
import { startCodeServer, type CodeServer } from './codeServer.js';

export interface E2e {
  readonly fake: FakeOpenAIServer | undefined;
  readonly server: CodeServer | undefined;
  readonly page: Page;
  readonly consoleLog: ConsoleLog;
}

export interface E2eOptions {
  /** Start the fake provider with these options; its URL is passed to `settings`. */
  readonly fake?: FakeServerOptions;
  readonly settings: Readonly<Record<string, unknown>> | ((fakeUrl: string) => Readonly<Record<string, unknown>>);
  readonly files?: Readonly<Record<string, string>>;
  /** Folders of other extensions (test fixtures) to install next to Capsule. */
  readonly extensions?: readonly string[];
}

/** What a file's bindings hold until its `before` has run (`let { page, … } = NOT_STARTED`): nothing to use yet. */
export const NOT_STARTED: E2e = { fake: undefined, server: undefined, page: undefined as unknown as Page, consoleLog: { errors: [] } };

let current: E2e = NOT_STARTED;
let browser: Browser | undefined;

/** Runs one named step with a screenshot of the current page (see stepper). */
export const step = stepper(
  () => current.page,
  () => current.server?.output() ?? '',
);

/** Starts everything for one test file; call from `before`, and `stopE2e` from `after`. */
export async function startE2e(opts: E2eOptions): Promise<E2e> {
  const fake = opts.fake === undefined ? undefined : await startFakeOpenAI(opts.fake);
  const settings = typeof opts.settings === 'function' ? opts.settings(fake?.url ?? '') : opts.settings;
  const server = await startCodeServer({
    settings,
    ...(opts.files === undefined ? {} : { files: opts.files }),
    ...(opts.extensions === undefined ? {} : { extensions: opts.extensions }),
  });
  current = { ...current, fake, server };
  browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  current = { fake, server, page, consoleLog: watchConsole(page) };
  return current;
}

export async function stopE2e(): Promise<void> {
  await browser?.close();
  await current.server?.stop();
  await current.fake?.close();
}

/**
 * Provider settings for `model` at `baseUrl` with a small window: hard limit window − 5,000 output − 2,000 reserve,
 * soft limit max(4,000, 0.8 × hard), 3,000 tokens kept recent, so that a few long answers reach compaction.
 */
export function smallWindowSettings(baseUrl: string, model: string, window: number): Readonly<Record<string, unknown>> {
  return {
    'capsule.provider.baseUrl': baseUrl,
    'capsule.model.id': model,
    'capsule.model.contextWindow': window,
    'capsule.model.maxOutputTokens': 5000,
    'capsule.compaction.safetyReserveTokens': 2000,
    'capsule.compaction.minTokensForAutoCompact': 4000,
    'capsule.compaction.keepRecentTokens': 3000,
    'capsule.compaction.minReclaimableTokens': 2000,
  };
}

/** No console errors from Capsule's webview, and the extension host activated it. */
export function assertNoCapsuleErrors(s: CodeServer): void {
  const ours = current.consoleLog.errors.filter((e) => /capsule|webview\.js|Content Security Policy|Refused to/i.test(e));
  assert.deepEqual(ours, [], `console errors from Capsule:\n${ours.join('\n')}`);
  const exthost = s.extHostLog();
  assert.doesNotMatch(exthost, /Activating extension '?capsule-dev\.capsule'? failed/i, 'the extension failed to activate');
  assert.match(exthost, /capsule-dev\.capsule/i, 'the extension host never saw Capsule');
}
