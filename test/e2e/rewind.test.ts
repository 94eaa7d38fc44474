// End to end in code-server: a chat edits two files; rewind to the first message brings files and message back; edit & resend branches; compact up to here; undo a compaction; ‹ › switches branches; Compact Up to Here from the Checkpoints tree.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isSummaryRequest, type ChatRequestView, type ScriptedReply } from '../fakes/openaiServer.js';
import { screenshot } from './browser.js';
import { ChatView, waitUntil } from './chatView.js';
import { CAPSULE_TEXT, longText } from './scriptedModel.js';
import { NOT_STARTED, smallWindowSettings, startE2e, step, stopE2e } from './session.js';
import { answerModal, checkpointsPane, contextMenuAction, openWorkbenchWithCapsule, treeRows, widenSideBar } from './workbench.js';

const API_KEY = 'sk-e2e-rewind';
const MODEL = 'fake-model';
const WINDOW = 24_000;

let { fake, server, page, consoleLog } = NOT_STARTED;

function lastUser(req: ChatRequestView): string {
  const users = req.body.messages.filter((m) => m.role === 'user');
  return String(users[users.length - 1]?.content ?? '');
}

/** "Edit the two files" writes a.txt and b.txt; "[long]" gets a long answer; everything else a short one. */
function responder(req: ChatRequestView): ScriptedReply {
  if (isSummaryRequest(req.body) || req.body.stream !== true) return { text: CAPSULE_TEXT };
  const last = req.body.messages[req.body.messages.length - 1];
  if (last?.role === 'tool') return { text: 'Edited both files.' };
  const user = lastUser(req);
  if (user.startsWith('Edit the two files')) {
    return {
      toolCalls: [
        { name: 'write_file', arguments: { path: 'a.txt', content: 'two\n' } },
        { name: 'write_file', arguments: { path: 'b.txt', content: 'new file\n' } },
      ],
    };
  }
  if (user.includes('[long]')) return { text: longText('Long answer', 3000) };
  return { text: `Short answer to: ${user.slice(0, 60)}` };
}

before(async () => {
  ({ fake, server, page, consoleLog } = await startE2e({
    fake: { apiKey: API_KEY, window: WINDOW, models: [{ id: MODEL, contextLength: WINDOW }], fallback: responder },
    settings: (url) => smallWindowSettings(url, MODEL, WINDOW),
    files: { 'a.txt': 'one\n' },
  }));
});

after(stopE2e);

test('rewind with files, edit & resend, compact up to here, undo a compaction', { timeout: 300_000 }, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);
  const ws = (name: string): string => join(s.workspace, name);
  const userItem = (text: string) => chat.frame.locator('.item-user', { hasText: text });
  const hoverAction = async (text: string, label: RegExp): Promise<void> => {
    const item = userItem(text).first();
    await item.hover();
    await item.getByRole('button', { name: label }).click();
  };

  await step('r01-open-and-key', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 260);
    await chat.frame.getByRole('button', { name: 'Provider setup' }).click();
    const form = chat.frame.locator('section.setup');
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole('radio', { name: 'OpenAI-compatible endpoint' }).check();
    await form.getByLabel('API key').fill(API_KEY);
    await form.getByRole('button', { name: 'Save' }).click();
    // Save checks the endpoint; the check passes, so the panel closes itself and one line says what it found.
    await form.waitFor({ state: 'hidden', timeout: 30_000 });
    await chat.frame.locator('.banners .banner.info').first().waitFor({ timeout: 15_000 });
  });

  await step('r02-chat-edits-two-files', async () => {
    await chat.send('Edit the two files, please.');
    // Each write asks on an inline approval card (the window stays usable); Accept applies it.
    for (const name of ['a.txt', 'b.txt']) {
      const card = chat.frame.locator('.approval-card.write', { hasText: name });
      await card.waitFor({ timeout: 30_000 });
      await card.locator('button[data-choice="allow"]').click();
      await card.waitFor({ state: 'detached', timeout: 30_000 });
    }
    await chat.answer('Edited both files.').waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(readFileSync(ws('a.txt'), 'utf8'), 'two\n');
    assert.equal(readFileSync(ws('b.txt'), 'utf8'), 'new file\n');
    await chat.send('A follow-up question.');
    await chat.answer('Short answer to: A follow-up question.').waitFor({ timeout: 60_000 });
    await chat.idle();
  });

  await step('r03-rewind-first-message-with-files', async () => {
    await hoverAction('Edit the two files, please.', /^Rewind to before this message/);
    const prompt = await answerModal(page, 'Conversation and Files');
    assert.match(prompt, /Rewind to before "Edit the two files, please\."/);
    await waitUntil('the message back in the composer', async () => (await chat.composer.inputValue()) === 'Edit the two files, please.', 30_000);
    await waitUntil('a.txt restored', () => readFileSync(ws('a.txt'), 'utf8') === 'one\n', 30_000);
    assert.equal(existsSync(ws('b.txt')), false, 'the file the turn created is gone');
    assert.equal(await userItem('Edit the two files').count(), 0, 'the chat is back to before the message');
    await screenshot(page, 'r03a-rewound-files-and-composer');
  });

  await step('r04-edit-and-resend-branches', async () => {
    await chat.composer.fill('Just say hello instead.');
    await chat.composer.press('Enter');
    await chat.answer('Short answer to: Just say hello instead.').waitFor({ timeout: 60_000 });
    await chat.idle();
    const session = checkpointsPane(page).locator('.monaco-list-row[aria-level="1"]').first();
    await session.waitFor({ timeout: 15_000 });
    if ((await session.getAttribute('aria-expanded')) !== 'true') await session.click();
    await treeRows(page, 'Just say hello instead.').waitFor({ timeout: 30_000 });
    await treeRows(page, 'Other branches').waitFor({ timeout: 30_000 });
    await screenshot(page, 'r04a-branch-in-tree');
  });

  await step('r05-compact-up-to-here', async () => {
    await chat.send('[long] Tell me everything about the module.');
    await chat.answer('Long answer').waitFor({ timeout: 90_000 });
    await chat.idle();
    await chat.send('And the last question.');
    await chat.answer('Short answer to: And the last question.').waitFor({ timeout: 60_000 });
    await chat.idle();
    const summariesBefore = f.chatRequests.filter((r) => isSummaryRequest(r.body as ChatRequestView['body'])).length;
    await hoverAction('And the last question.', /^Compact up to here/);
    await chat.cards.first().waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(await chat.cards.count(), 1);
    assert.ok(f.chatRequests.filter((r) => isSummaryRequest(r.body as ChatRequestView['body'])).length > summariesBefore, 'a summary was asked for');
    await screenshot(page, 'r05a-compacted-up-to-here');
  });

  await step('r06-undo-and-redo-the-compaction', async () => {
    const compacted = await chat.meter();
    await chat.cards
      .first()
      .getByRole('button', { name: /Undo this compaction/ })
      .click();
    await chat.frame.locator('.card.undone').waitFor({ timeout: 30_000 });
    const undone = await chat.waitForMeterAbove(compacted);
    await screenshot(page, 'r06a-compaction-undone');
    await chat.cards.first().getByRole('button', { name: /^Redo/ }).click();
    await chat.frame.locator('.card:not(.undone)').first().waitFor({ timeout: 30_000 });
    await chat.waitForMeterBelow(undone);
  });

  await step('r07-branch-switcher', async () => {
    // The edit of r04 forked the chat at its first message: ‹ 2/2 › on the edited one.
    const edited = userItem('Just say hello instead.').first();
    const fork2 = edited.getByRole('group', { name: 'Branch 2 of 2' });
    await fork2.waitFor({ timeout: 30_000 });
    await fork2.getByRole('button', { name: 'Previous branch' }).click();
    const original = userItem('Edit the two files, please.').first();
    const fork1 = original.getByRole('group', { name: 'Branch 1 of 2' });
    await fork1.waitFor({ timeout: 30_000 });
    await chat.answer('Short answer to: A follow-up question.').waitFor({ timeout: 30_000 });
    assert.equal(await userItem('Just say hello instead.').count(), 0, 'branch 1 is shown whole, without the edited message');
    assert.equal(await chat.cards.count(), 0, "branch 2's compaction is not on branch 1");
    // Files stay as they are; the chat says which differ from branch 1 (the rewind of r03 put them back).
    await chat.frame.locator('.item-info', { hasText: 'Files stay as they are' }).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(ws('a.txt'), 'utf8'), 'one\n', 'a switch never writes files');
    await screenshot(page, 'r07-branch-switcher-1of2');
    await fork1.getByRole('button', { name: 'Next branch' }).click();
    await userItem('Just say hello instead.').first().getByRole('group', { name: 'Branch 2 of 2' }).waitFor({ timeout: 30_000 });
    await chat.answer('Short answer to: And the last question.').waitFor({ timeout: 30_000 });
    assert.equal(await userItem('Edit the two files, please.').count(), 0);
    assert.equal(await chat.cards.count(), 1, "branch 2's compaction is back");
    await screenshot(page, 'r07-branch-switcher-2of2');
  });

  await step('r08-compact-up-to-here-from-the-tree', async () => {
    // The same action from the Checkpoints tree's context menu, on a message after the last compaction.
    await chat.send('[long] Tell me about the tests too.');
    await chat.answer('Long answer').nth(1).waitFor({ timeout: 90_000 });
    await chat.idle();
    await chat.send('One more question.');
    await chat.answer('Short answer to: One more question.').waitFor({ timeout: 60_000 });
    await chat.idle();
    const summariesBefore = f.chatRequests.filter((r) => isSummaryRequest(r.body as ChatRequestView['body'])).length;
    const row = treeRows(page, 'One more question.').first();
    await row.waitFor({ timeout: 30_000 });
    await contextMenuAction(page, row, 'Compact Up to Here');
    await waitUntil('a second compaction card', async () => (await chat.cards.count()) === 2, 60_000);
    await chat.idle();
    assert.ok(f.chatRequests.filter((r) => isSummaryRequest(r.body as ChatRequestView['body'])).length > summariesBefore, 'a summary was asked for');
    assert.equal(await chat.frame.locator('.item-error').count(), 0, 'no error in the chat');
    assert.equal(await page.locator('.notifications-toasts .notification-toast', { hasText: /not on the active branch/ }).count(), 0, 'no error toast');
    await screenshot(page, 'r08-compacted-up-to-here-from-the-tree');
  });

  const ours = consoleLog.errors.filter((e) => /capsule|webview\.js|Content Security Policy|Refused to/i.test(e));
  assert.deepEqual(ours, [], `console errors from Capsule:\n${ours.join('\n')}`);
});
