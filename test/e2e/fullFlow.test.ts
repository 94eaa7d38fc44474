// End to end: real VS Code (code-server) in real Chromium drives the Capsule chat against the scripted OpenAI-compatible server.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FakeOpenAIServer, RecordedRequest } from '../fakes/openaiServer.js';
import { screenshot } from './browser.js';
import { ChatView, waitUntil } from './chatView.js';
import { LONG, scriptedModel } from './scriptedModel.js';
import { NOT_STARTED, assertNoCapsuleErrors, smallWindowSettings, startE2e, step, stopE2e } from './session.js';
import {
  answerModal,
  checkpointsPane,
  openWorkbenchWithCapsule,
  contextMenuAction,
  filesContaining,
  filterOutput,
  outputText,
  pickQuickItem,
  runCommand,
  treeRows,
  widenSideBar,
} from './workbench.js';

const API_KEY = 'sk-e2e-test';
const MODEL = 'fake-model';
// hard limit 24,000 - 5,000 - 2,000 = 17,000; soft limit max(4,000, 0.8 × 17,000) = 13,600: three ~4.1k answers cross it.
const WINDOW = 24_000;
const SOFT_LIMIT = 13_600;

let { fake, server, page } = NOT_STARTED;
const model = scriptedModel({ longWords: 4000, summaryDelayMs: 2500, firstChunkDelayMs: 80 });

before(async () => {
  ({ fake, server, page } = await startE2e({
    fake: { apiKey: API_KEY, window: WINDOW, models: [{ id: MODEL, contextLength: WINDOW }], fallback: model.responder },
    settings: (url) => smallWindowSettings(url, MODEL, WINDOW),
  }));
});

after(stopE2e);

function streamed(f: FakeOpenAIServer): RecordedRequest[] {
  return f.chatRequests.filter((r) => bodyOf(r).stream === true);
}

function bodyOf(r: RecordedRequest | undefined): { readonly stream?: boolean; readonly tool_choice?: unknown; readonly messages?: readonly unknown[] } {
  return (r?.body ?? {}) as { stream?: boolean; tool_choice?: unknown; messages?: unknown[] };
}

/** Effective tokens after each event the flow watches, for failure messages. */
const meter: number[] = [];
let figureBeforeReload = '';

test('a user sets the key, chats until the context compacts, compacts from the palette, rewinds and reads the flight records', {
  timeout: 300_000,
}, async () => {
  const s = server;
  const f = fake;
  assert.ok(s && f);
  const chat = new ChatView(page);

  await step('01-02-open-capsule-view', async () => {
    await openWorkbenchWithCapsule(page, s.url);
    await chat.ready(60_000);
    await widenSideBar(page, 260);
  });

  // ---- 2: the key goes in through the chat's setup panel, reaches the server, and never lands in settings ----
  await step('03-key-through-setup-panel', async () => {
    await chat.frame.getByRole('button', { name: 'Provider setup' }).click();
    const form = chat.frame.locator('section.setup');
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole('radio', { name: 'OpenAI-compatible endpoint' }).check();
    assert.equal(await form.getByLabel('Base URL').inputValue(), f.url, 'the form shows the configured endpoint');
    await form.getByLabel('API key').fill(API_KEY);
    await form.getByRole('button', { name: 'Save' }).click();
    // Save checks the endpoint; the check passes, so the panel closes itself and one line says what it found.
    await form.waitFor({ state: 'hidden', timeout: 30_000 });
    await chat.frame.locator('.banners .banner.info').first().waitFor({ timeout: 15_000 });
    await waitUntil(
      'a request carrying the entered key',
      () => f.requests.some((r) => r.headers['authorization'] === `Bearer ${API_KEY}` && r.status === 200),
      30_000,
    );
  });
  await step('04-key-not-in-settings', async () => {
    const user = join(s.root, 'user', 'User', 'settings.json');
    for (const file of [user, join(s.workspace, '.vscode', 'settings.json')]) {
      if (existsSync(file)) assert.ok(!readFileSync(file, 'utf8').includes(API_KEY), `${file} holds the API key`);
    }
    const settings = JSON.parse(readFileSync(user, 'utf8')) as Record<string, unknown>;
    assert.equal(settings['capsule.provider.baseUrl'], f.url, 'the endpoint setting survived the setup form');
  });

  // ---- 3: long answers stream in and the meter climbs ----
  meter.push(await chat.meter());
  await step('05-first-answer-streams', async () => {
    await chat.send(`${LONG} Write report 1 about the module.`);
    await chat.streaming('Report 1 begins').waitFor({ timeout: 60_000 });
    await screenshot(page, '05a-streaming');
    await chat.answer('Report 1 ends').waitFor({ timeout: 90_000 });
    await chat.idle();
    meter.push(await chat.waitForMeterAbove(meter.at(-1) ?? 0));
  });
  for (const n of [2, 3]) {
    await step(`06-answer-${n}`, async () => {
      await chat.send(`${LONG} Write report ${n} about the module.`);
      await chat.answer(`Report ${n} ends`).waitFor({ timeout: 90_000 });
      await chat.idle();
      meter.push(await chat.waitForMeterAbove(meter.at(-1) ?? 0));
    });
  }
  assert.ok((meter.at(-1) ?? 0) >= SOFT_LIMIT, `three long answers reach the soft limit (meter ${meter.join(' → ')})`);
  assert.equal(await chat.cards.count(), 0, 'no compaction before the soft limit was reached');

  // ---- 4: the automatic compaction runs before the next request ----
  await step('07-barrier-live-line', async () => {
    await chat.send('What should we do next?');
    await chat.barrier.locator('.barrier-live', { hasText: /Compacting context before response · \d+%/ }).waitFor({ timeout: 60_000 });
    assert.match((await chat.composer.getAttribute('placeholder')) ?? '', /Compacting/, 'the input says it queues during the barrier');
    assert.equal(await chat.composer.isEnabled(), true, 'the input stays enabled during the barrier');
  });
  const autoCk = await step('08-barrier-result-line', async () => {
    const line = chat.barrier.locator('.barrier-result');
    await line.waitFor({ timeout: 60_000 });
    const text = ((await line.textContent()) ?? '').trim();
    assert.match(text, /^Context compacted · context size/, text);
    assert.match(text, /[\d.]+k? → [\d.]+k? tokens · reclaimed \d+%/, text);
    assert.doesNotMatch(text, /ck_\w+/, 'no internal id in the result line (docs/user/writing-style.md)');
    await chat.answer('Short answer to: What should we do next?').waitFor({ timeout: 60_000 });
    await chat.idle();
    // The checkpoint id is in the card's details, not in the words the user reads first.
    const cardText = (await chat.cards.first().textContent()) ?? '';
    const ck = /ck_[a-z0-9]+/.exec(cardText)?.[0];
    assert.ok(ck, `the card's details name the checkpoint: ${cardText}`);
    return ck;
  });
  await step('09-compaction-card', async () => {
    const card = chat.cards.filter({ hasText: autoCk });
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await chat.cards.count(), 1);
    const figures = ((await card.locator('.card-figures').textContent()) ?? '').trim();
    const m = /([\d.]+)k → ([\d.]+)k tokens · reclaimed (\d+)%/.exec(figures);
    assert.ok(m, `card figures: ${figures}`);
    assert.ok(Number(m[1]) > Number(m[2]), `before > after: ${figures}`);
    assert.ok(Number(m[3]) > 0, `reclaimed: ${figures}`);
    await card.locator('.chip.reason', { hasText: 'context size' }).waitFor({ timeout: 5_000 });
    await card.getByText('Full-quality capsule').waitFor({ timeout: 5_000 });
    meter.push(await chat.waitForMeterBelow(meter.at(-1) ?? 0));
  });
  await step('10-capsule-viewer', async () => {
    await chat.cards.filter({ hasText: autoCk }).getByRole('button', { name: 'View capsule' }).click();
    await chat.dialog.locator('h2', { hasText: `Capsule ${autoCk}` }).waitFor({ timeout: 15_000 });
    for (const section of ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context', 'Relevant Files']) {
      await chat.dialog.locator('h3', { hasText: section }).waitFor({ timeout: 15_000 });
    }
    await chat.dialog.getByText('The e2e marker word is PELICAN.').waitFor({ timeout: 5_000 });
    await chat.dialog.getByRole('tab', { name: 'Ledger' }).click();
    await chat.dialog.getByText('Built from the transcript by Capsule').waitFor({ timeout: 5_000 });
    await screenshot(page, '10a-capsule-viewer-ledger');
    await chat.dialog.getByRole('button', { name: 'Close the capsule viewer' }).click();
    await chat.dialog.waitFor({ state: 'hidden', timeout: 10_000 });
  });
  await step('11-checkpoints-tree', async () => {
    const session = checkpointsPane(page).locator('.monaco-list-row[aria-level="1"]').first();
    await session.waitFor({ timeout: 15_000 });
    if ((await session.getAttribute('aria-expanded')) !== 'true') await session.click();
    // The chat's own row is titled by its first request too: the message row is the one a level below.
    await checkpointsPane(page)
      .locator('.monaco-list-row[aria-level="2"]', { hasText: '[long] Write report 1 about the module.' })
      .waitFor({ timeout: 30_000 });
    await treeRows(page, 'Compaction · context size (turn complete)').waitFor({ timeout: 30_000 });
  });

  // ---- 5: Compact Context from the palette (after one more answer, so there is history since the capsule) ----
  await step('12-another-long-answer', async () => {
    await chat.send(`${LONG} Write report 4 about the module.`);
    await chat.answer('Report 4 ends').waitFor({ timeout: 90_000 });
    await chat.idle();
    meter.push(await chat.waitForMeterAbove(meter.at(-1) ?? 0));
    assert.ok((meter.at(-1) ?? 0) < SOFT_LIMIT, `below the soft limit again (meter ${meter.join(' → ')})`);
  });
  const manualCk = await step('13-palette-compact-context', async () => {
    await runCommand(page, 'Capsule: Compact Context');
    const card = chat.cards.filter({ has: chat.frame.locator('.chip.reason', { hasText: 'manual' }) });
    await card.waitFor({ timeout: 60_000 });
    await chat.idle();
    assert.equal(await chat.cards.count(), 2);
    const ck = ((await card.locator('code.ck').textContent()) ?? '').trim();
    assert.match(ck, /^ck_\w+$/);
    assert.notEqual(ck, autoCk);
    meter.push(await chat.waitForMeterBelow(meter.at(-1) ?? 0));
    await treeRows(page, 'Compaction · manual').waitFor({ timeout: 30_000 });
    return ck;
  });
  const summaries = f.chatRequests.filter((r) => bodyOf(r).tool_choice === 'none');
  assert.equal(summaries.length, 2, 'one summary request (tool_choice none) per compaction');

  // ---- 6: rewind from the tree to before report 4's message; the next request resumes exactly that moment's input ----
  await step('14-rewind-from-tree', async () => {
    // The request of report 4 without its question is the model input of the moment before it was sent.
    const then = (bodyOf(streamed(f).at(-1)).messages ?? []).slice(0, -1);
    const sentBefore = f.chatRequests.length;
    await contextMenuAction(page, treeRows(page, 'Write report 4 about the module.'), 'Rewind Here');
    assert.match(await answerModal(page, 'Rewind'), /Rewind to before "\[long\] Write report 4/);
    await waitUntil('the message back in the composer', async () => /Write report 4 about the module\./.test(await chat.composer.inputValue()), 30_000);
    await waitUntil('the manual compaction to leave the active branch', async () => (await chat.cards.count()) === 1, 30_000);
    meter.push(await chat.waitForMeterAbove(meter.at(-1) ?? 0));
    await chat.send('After the rewind: one more question.');
    await chat.answer('Short answer to: After the rewind').waitFor({ timeout: 60_000 });
    await chat.idle();
    const sent = f.chatRequests.slice(sentBefore);
    assert.equal(sent.length, 1, 'one request after the rewind, no compaction in between');
    const messages = bodyOf(sent[0]).messages ?? [];
    assert.ok(then.length > 2);
    assert.deepEqual(messages.slice(0, then.length), then, 'the request after the rewind starts with the messages sent at the checkpoint');
    assert.equal(messages.length, then.length + 1, 'followed by the new question only');
    assert.ok(manualCk.startsWith('ck_'));
    assert.deepEqual(messages.at(-1), { role: 'user', content: 'After the rewind: one more question.' });
  });

  // ---- 8: the flight records in the "Capsule" output channel (before the reload starts a new extension host) ----
  await step('15-output-channel', async () => {
    await runCommand(page, 'Output: Show Output Channels');
    await pickQuickItem(page, /^Capsule$/);
    await filterOutput(page, 'op_');
    const record = (trigger: string, ck: string): RegExp =>
      new RegExp(`op_\\w+\\s+${trigger}\\s+L\\d\\s+completed\\s+[\\d,]+\\s+→\\s+[\\d,]+\\s+\\(-\\d+%\\)\\s+in\\s+[\\d.]+\\s?m?s\\s+${ck}\\s+full`);
    await waitUntil(
      'both flight records in the Capsule output',
      async () => {
        const text = await outputText(page);
        return record('turn_complete', autoCk).test(text) && record('user', manualCk).test(text);
      },
      30_000,
    ).catch(async (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; the output shows:\n${await outputText(page)}`);
    });
  });

  // ---- 9: no errors, and the key is nowhere on disk ----
  assertNoCapsuleErrors(s);
  assert.ok(
    f.chatRequests.every((r) => r.headers['authorization'] === `Bearer ${API_KEY}`),
    'every chat request carried the key',
  );
  assert.deepEqual(filesContaining(s.root, API_KEY), [], 'files holding the API key in plain text');
  figureBeforeReload = await chat.figure();
});

// ---- 7: a reload resumes the same chat on the rewound branch with the same budget ----
test('after a window reload the chat resumes on the rewound branch with the same budget', { timeout: 180_000 }, async () => {
  const s = server;
  assert.ok(s);
  assert.notEqual(figureBeforeReload, '', 'the flow above ran to its end');
  const chat = new ChatView(page);
  await step('16-reload-resumes', async () => {
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await chat.ready(90_000);
    await chat.answer('Short answer to: After the rewind').waitFor({ timeout: 30_000 });
    assert.equal(await chat.cards.count(), 1, 'still on the rewound branch: only the automatic compaction’s card');
  });
  await step('17-same-budget-after-reload', async () => {
    const figure = async (): Promise<string> => chat.figure();
    await waitUntil(`the meter to show ${figureBeforeReload}`, async () => (await figure()) === figureBeforeReload, 20_000).catch(async () => {
      throw new Error(`the meter shows ${await figure()} after the reload, ${figureBeforeReload} before (meter history ${meter.join(' → ')})`);
    });
  });
  assertNoCapsuleErrors(s);
});
