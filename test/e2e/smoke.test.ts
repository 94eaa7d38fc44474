// End to end: the packaged VSIX installed into real VS Code (code-server) in real Chromium shows the Capsule view.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, stepper, watchConsole, type ConsoleLog } from './browser.js';
import { startCodeServer, type CodeServer } from './codeServer.js';
import { capsuleWebview, openWorkbenchWithCapsule } from './workbench.js';

let server: CodeServer | undefined;
let browser: Browser | undefined;
let page: Page;
let consoleLog: ConsoleLog;

const step = stepper(() => page, () => server?.output() ?? '');

before(async () => {
  server = await startCodeServer({ settings: { 'capsule.model.id': 'gpt-4o', 'capsule.model.contextWindow': 65000, 'capsule.model.maxOutputTokens': 8000 } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  consoleLog = watchConsole(page);
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the Capsule view opens in code-server and shows the budget of the current session without errors', { timeout: 180_000 }, async () => {
  const s = server;
  assert.ok(s);
  await step('01-02-open-capsule-view', () => openWorkbenchWithCapsule(page, s.url));
  const view = capsuleWebview(page);
  await step('03-budget-visible', async () => {
    await view.getByText('48,808').first().waitFor({ timeout: 60_000 });
    await view.getByText('39,046').first().waitFor({ timeout: 10_000 });
  });
  await step('04-checkpoints-tree', async () => {
    await page.locator('.pane-header', { hasText: /Checkpoints/i }).first().waitFor({ timeout: 30_000 });
  });
  const ours = consoleLog.errors.filter((e) => /capsule|webview\.js|Content Security Policy|Refused to/i.test(e));
  assert.deepEqual(ours, [], `console errors from Capsule:\n${ours.join('\n')}`);
  const exthost = s.extHostLog();
  assert.doesNotMatch(exthost, /Activating extension '?capsule-dev\.capsule'? failed/i, 'the extension failed to activate');
  assert.match(exthost, /capsule-dev\.capsule/i, 'the extension host never saw Capsule');
});
