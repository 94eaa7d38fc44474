// End to end in code-server: `@` a workspace file and send it (the model receives its content), click a path in the answer (the editor opens at the line), Show diff on an applied edit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isSummaryRequest, type ChatBody, type ChatRequestView, type ScriptedReply } from '../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../unit/compaction/harness.js';
import { screenshot } from './browser.js';
import { NOT_STARTED, startE2e, step, stopE2e } from './session.js';
import { ChatView, waitUntil } from './chatView.js';
import { openWorkbenchWithCapsule, widenSideBar } from './workbench.js';

const MODEL = 'fake-model';
const APP = ['export function greet(name: string): string {', '  return `Hello, ${name}! MARKER-E2E-5150`;', '}', ''].join('\n');

function responder(req: ChatRequestView): ScriptedReply {
  const body = req.body as ChatBody;
  if (isSummaryRequest(body)) return { text: GOOD_SUMMARY };
  const last = body.messages[body.messages.length - 1];
  const users = body.messages.filter((m) => m.role === 'user');
  const ask = String(users[users.length - 1]?.content ?? '');
  if (last?.role === 'tool' && ask.startsWith('Edit')) return { text: 'Changed the greeting in `greeter.ts`.' };
  if (last?.role === 'tool') return { text: 'The greeting is built on line 2 of `greeter.ts:2`; see also README.md.' };
  if (ask.startsWith('Edit')) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'greeter.ts', oldText: 'Hello', newText: 'Welcome' } }] };
  return { text: 'Noted.' };
}

let { fake, server, page } = NOT_STARTED;

before(async () => {
  ({ fake, server, page } = await startE2e({
    fake: { window: 64_000, models: [{ id: MODEL, contextLength: 64_000 }], fallback: responder },
    settings: (url) => ({
      'capsule.provider.baseUrl': url,
      'capsule.model.id': MODEL,
      'capsule.model.contextWindow': 64_000,
      'capsule.model.maxOutputTokens': 4000,
    }),
    files: { 'README.md': '# sample\n', 'greeter.ts': APP, 'other.ts': 'export const other = 1;\n' },
  }));
});

after(stopE2e);

test('@file context, a clickable path in the answer, and the diff of an applied edit', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  await step('15-09-open', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 120);
  });

  await step('15-09b-at-file-sent', async () => {
    await chat.composer.click();
    await chat.composer.pressSequentially('What does @gree');
    const option = chat.frame.locator('.slash-popup [role="option"]', { hasText: 'greeter.ts' });
    await option.first().waitFor({ timeout: 30_000 });
    await screenshot(page, '15-09-at-file');
    await chat.composer.press('Enter');
    assert.equal(await chat.composer.inputValue(), 'What does @greeter.ts ');
    await chat.composer.pressSequentially('return?');
    await chat.composer.press('Enter');
    await waitUntil('the file content in a model request', () => f.chatRequests.some((r) => JSON.stringify(r.body).includes('MARKER-E2E-5150')), 30_000);
    await chat.idle();
  });

  await step('15-10-clickable-path', async () => {
    const link = chat.answer('line 2 of').locator('a.file-link', { hasText: 'greeter.ts:2' });
    await link.waitFor({ timeout: 30_000 });
    await link.click();
    await page.locator('.tab', { hasText: 'greeter.ts' }).first().waitFor({ timeout: 30_000 });
    // The cursor is on the line the answer named.
    await page
      .locator('.statusbar-item', { hasText: /Ln 2, Col 1/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await screenshot(page, '15-10-clickable-path');
  });

  await step('15-11-edit-diff', async () => {
    await chat.send('Edit the greeting');
    const card = chat.frame.locator('.approval-card.write');
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: 'Accept', exact: true }).click();
    await chat.idle();
    const show = chat.frame.locator('.item-tool button.show-diff').last();
    await show.waitFor({ timeout: 30_000 });
    await show.click();
    await page
      .locator('.tab', { hasText: /before ↔ after/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await screenshot(page, '15-11-edit-diff');
  });
});
