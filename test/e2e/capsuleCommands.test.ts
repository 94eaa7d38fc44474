// End to end in code-server: the palette's Compact Context posts no message, /budget's table and savings ratio, the load preview, Project Memory, Restricted Mode.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { isSummaryRequest, startFakeOpenAI, type ChatBody, type ChatRequestView, type FakeOpenAIServer, type ScriptedReply } from '../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../unit/compaction/harness.js';
import { fileText, META } from '../unit/portable/helpers.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, launchBrowser, stepper, watchConsole } from './browser.js';
import { ChatView, waitUntil } from './chatView.js';
import { startCodeServer, type CodeServer } from './codeServer.js';
import { answerModal, capsuleWebview, openWorkbenchWithCapsule, runCommand, widenSideBar } from './workbench.js';

const MODEL = 'fake-model';
const NOTES = 'The parser keeps its state in one place and reports errors with positions. '.repeat(30);

function responder(req: ChatRequestView): ScriptedReply {
  return isSummaryRequest(req.body as ChatBody) ? { text: GOOD_SUMMARY } : { text: `Noted. ${NOTES}` };
}

let fake: FakeOpenAIServer | undefined;
const servers: CodeServer[] = [];
let browser: Browser | undefined;
let page: Page;
let current: CodeServer | undefined;
/** A page screenshot in this Chromium leaves VS Code's modal dialogs out; one of the workbench element keeps them. */
async function workbenchShot(name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.locator('.monaco-workbench').screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

const step = stepper(
  () => page,
  () => current?.output() ?? '',
);

after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  await fake?.close();
});

const settings = (url: string): Record<string, unknown> => ({
  'capsule.provider.baseUrl': url,
  'capsule.model.id': MODEL,
  'capsule.model.contextWindow': 64_000,
  'capsule.model.maxOutputTokens': 4000,
  'capsule.compaction.keepRecentTokens': 300,
  'capsule.compaction.minReclaimableTokens': 100,
  'capsule.compaction.auto': false,
});

test('palette compaction, /budget, the load preview and Project Memory', { timeout: 300_000 }, async () => {
  fake = await startFakeOpenAI({ window: 64_000, models: [{ id: MODEL, contextLength: 64_000 }], fallback: responder });
  const s = await startCodeServer({
    settings: settings(fake.url),
    files: { 'README.md': '# sample\n', 'handoff.capsule.md': fileText({ ...META, title: 'handoff auth work' }) },
  });
  servers.push(s);
  current = s;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
  watchConsole(page);
  const chat = new ChatView(page);
  await step('15-11-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 160);
  });

  await step('15-11a-palette-compact', async () => {
    for (let round = 0; round < 3; round++) {
      for (const topic of ['parser', 'lexer']) {
        await chat.send(`Round ${round}, notes on the ${topic}: ${NOTES}`);
        await chat.idle();
      }
      await runCommand(page, 'Capsule: Compact Context');
      await waitUntil(`compaction ${round + 1}`, async () => (await chat.cards.count()) === round + 1, 60_000);
      await chat.idle();
    }
    const users = await chat.frame.locator('.item-user').allTextContents();
    assert.ok(!users.some((t) => t.includes('/compact')), `no "/compact" message: ${users.join(' | ')}`);
  });

  await step('15-13-budget', async () => {
    await chat.send('/budget');
    if ((await chat.composer.inputValue()).trim() !== '') await chat.composer.press('Enter');
    const table = chat.frame.locator('table.info-table').last();
    await table.waitFor({ timeout: 30_000 });
    const ratio = (await table.locator('tr', { hasText: 'Savings ratio' }).locator('td').textContent()) ?? '';
    assert.match(ratio, /^0\.\d\d \(\d+%\)$/);
    assert.ok(Number(ratio.slice(0, 4)) > 0, `savings ratio after three compactions: ${ratio}`);
    for (const row of [
      'Effective tokens',
      'Measurement source',
      'Soft limit',
      'Hard limit',
      'Safety reserve',
      'Keep recent',
      'Capsules',
      'Messages',
      'Turns',
      'Last capsule',
      'Auto-compact',
      'Next trigger est.',
      'System prompt',
      'Free',
    ]) {
      assert.equal((await table.locator('th', { hasText: row }).count()) > 0, true, `the table has ${row}`);
    }
    await table.locator('caption').scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
  });

  await step('15-12a-capsule-loaded-here', async () => {
    await chat.send('/capsule load handoff.capsule.md');
    if ((await chat.composer.inputValue()).trim() !== '') await chat.composer.press('Enter');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const text = (await dialog.textContent()) ?? '';
    for (const part of ['Load capsule "handoff auth work"?', 'tokens', 'Task:', 'Ledger:', 'Checksum: verified', 'New Chat', 'This Chat'])
      assert.ok(text.includes(part), `the preview shows ${part}`);
    // The dialog paints a moment after it is in the DOM; a screenshot taken at once can miss it.
    await page.waitForTimeout(1000);
    await workbenchShot('15-12-capsule-load-preview');
    const cards = await chat.cards.count();
    await answerModal(page, 'This Chat');
    await waitUntil('the loaded capsule in this chat', async () => (await chat.cards.count()) === cards + 1, 30_000);
  });

  await step('15-14a-project-memory-closed', async () => {
    await runCommand(page, 'Capsule: Show Project Memory');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    const text = (await dialog.textContent()) ?? '';
    assert.ok(text.includes('Project Memory: "'), text);
    assert.ok(text.includes('New chats of this workspace inherit it'), text);
    await page.waitForTimeout(1000);
    await workbenchShot('15-14-project-memory');
    await answerModal(page, 'Cancel');
  });
});

test('Restricted Mode: the view explains what works and offers Manage Workspace Trust; trusting turns it into the chat', { timeout: 240_000 }, async () => {
  assert.ok(fake && browser);
  const s = await startCodeServer({ trust: true, settings: settings(fake.url) });
  servers.push(s);
  current = s;
  page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
  await step('15-15-restricted-mode', async () => {
    await page.goto(s.url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    // VS Code asks whether to trust the folder's authors; the answer "No" opens it in Restricted Mode.
    const ask = page.locator('.monaco-dialog-box');
    if (
      await ask.waitFor({ timeout: 20_000 }).then(
        () => true,
        () => false,
      )
    ) {
      await ask.locator('.monaco-button', { hasText: /^No/ }).first().click();
      await ask.waitFor({ state: 'hidden', timeout: 15_000 });
    }
    await page.locator('.activitybar [aria-label^="Capsule"]').first().click();
    const frame = page.frameLocator('iframe.webview.ready[src*="capsule-dev.capsule"]').frameLocator('#active-frame');
    await frame.locator('text=Capsule is in Restricted Mode').waitFor({ timeout: 60_000 });
    await frame.locator('a.trust-button', { hasText: 'Manage Workspace Trust' }).waitFor();
    await page.mouse.move(900, 600);
    await page.waitForTimeout(500);
  });
  await step('15-15a-trusted', async () => {
    const frame = page.frameLocator('iframe.webview.ready[src*="capsule-dev.capsule"]').frameLocator('#active-frame');
    await frame.locator('a.trust-button').click();
    const trustButton = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trustButton.waitFor({ timeout: 30_000 });
    await trustButton.click();
    await capsuleWebview(page).locator('textarea[aria-label="Message"]').waitFor({ timeout: 60_000 });
  });
});
