// End to end in code-server: an unknown window shown as unknown, a server error's card with Retry, and the setup panel checking a provider on Save.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { nothingListeningHint } from '../../src/engine/provider/turnFault.js';
import { screenshot } from './browser.js';
import { NOT_STARTED, startE2e, step, stopE2e } from './session.js';
import { ChatView } from './chatView.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

/** Unknown to the built-in table, on a server that reports no window: nobody knows its window. */
const MODEL = 'acme-local-7b';
/** The server asks to be retried at once, so the agent's four attempts take no backoff time. */
const FAIL_500 = {
  status: 500,
  body: { error: { message: 'upstream exploded', type: 'server_error', code: null } },
  headers: { 'retry-after-ms': '0' },
} as const;

let { fake, server, page } = NOT_STARTED;

before(async () => {
  ({ fake, server, page } = await startE2e({
    fake: { window: 64_000, hideModelLimits: true, models: [{ id: MODEL, contextLength: 64_000 }], fallback: () => ({ text: 'Noted.' }) },
    settings: (url) => ({ 'capsule.provider.baseUrl': url, 'capsule.model.id': MODEL }),
    files: { 'README.md': '# sample\n' },
  }));
});

after(stopE2e);

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('window unknown, a server error retried from its card, and a provider checked on Save', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const host = new URL(f.url).host;
  const chat = new ChatView(page);
  await openWorkbenchWithCapsule(page, s.url);
  await chat.ready(60_000);
  await widenSideBar(page, 120);

  await step('15-08-window-unknown', async () => {
    const set = chat.frame.getByRole('button', { name: 'window unknown — set it' });
    await set.waitFor({ timeout: 30_000 });
    assert.match((await set.getAttribute('title')) ?? '', /^Context window unknown: Capsule assumes 32,768 tokens/);
    assert.match((await chat.frame.locator('select[aria-label="Model"] option:checked').textContent()) ?? '', /window unknown/, 'the picker says so too');
    assert.match((await chat.frame.locator('[role="meter"]').getAttribute('aria-valuetext')) ?? '', /context window unknown \(assumed\)/);
    await page.locator('.statusbar-item', { hasText: 'window unknown' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, '15-08a-window-unknown-meter');
    await set.click();
    // VS Code's settings editor, filtered to the one setting.
    await page.locator('.settings-editor').waitFor({ timeout: 30_000 });
    await page.locator('.setting-item-label', { hasText: 'Context Window' }).first().waitFor({ timeout: 30_000 });
  });

  await step('15-06a-error-card', async () => {
    f.enqueue(FAIL_500, FAIL_500, FAIL_500, FAIL_500);
    await chat.send('Explain the build');
    const card = chat.frame.locator('.error-card');
    await card.waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(((await card.locator('.error-title').textContent()) ?? '').trim(), 'Server error');
    assert.equal(((await card.locator('.error-where').textContent()) ?? '').trim(), `${host} · HTTP 500`);
    assert.equal(((await card.locator('.error-message').textContent()) ?? '').trim(), 'upstream exploded');
    // The "retrying (attempt N of 4)" banner ended with the turn.
    assert.equal(await chat.frame.locator('.banner', { hasText: /attempt \d of 4/ }).count(), 0, 'no retry banner after the failure');
  });

  await step('15-06-error-retry', async () => {
    f.enqueue({ text: 'The build uses esbuild.' });
    await chat.frame
      .locator('.error-card')
      .getByRole('button', { name: /^Retry/ })
      .click();
    await chat.answer('The build uses esbuild.').waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(await chat.frame.locator('.error-card').count(), 0, 'the failure stays on its own branch');
    assert.equal(await chat.frame.locator('.item-user', { hasText: 'Explain the build' }).count(), 1, 'the message is shown once');
    const lastChat = f.chatRequests[f.chatRequests.length - 1]?.body as { messages: { role: string; content: unknown }[] };
    assert.deepEqual(
      lastChat.messages.filter((m) => m.role === 'user').map((m) => m.content),
      ['Explain the build'],
    );
  });

  await step('15-07-provider-check', async () => {
    await chat.frame.getByRole('button', { name: 'Provider setup' }).click();
    const panel = chat.frame.locator('.setup');
    await panel.locator('input[value="openai"]').check();
    const port = await closedPort();
    await panel.locator('input[data-field="baseUrl"]').fill(`http://127.0.0.1:${port}/v1`);
    await panel.getByRole('button', { name: 'Save', exact: true }).click();
    const check = panel.locator('.setup-check.check-error');
    await check.waitFor({ timeout: 60_000 });
    assert.match((await check.textContent()) ?? '', new RegExp(`127\\.0\\.0\\.1:${port} · ECONNREFUSED`));
    assert.ok(((await check.textContent()) ?? '').includes(nothingListeningHint(`127.0.0.1:${port}`)), 'the refused-connection hint');
    await check.scrollIntoViewIfNeeded();
    await screenshot(page, '15-07a-provider-check-wrong-url');
    await panel.locator('input[data-field="baseUrl"]').fill(f.url);
    await panel.getByRole('button', { name: 'Save', exact: true }).click();
    const found = panel.locator('.setup-check.check-warning');
    await found.waitFor({ timeout: 60_000 });
    await found.scrollIntoViewIfNeeded();
    assert.match(
      (await found.textContent()) ?? '',
      new RegExp(`${host.replace(/\./g, '\\.')} answers: 1 model, "${MODEL}" among them; it does not report the context window`),
    );
  });
});
