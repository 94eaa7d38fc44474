// The chat webview in headless Chromium: links, provider setup, the model picker, state across reloads, accessibility, malformed messages, hover actions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capsule, card, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, openHarness, scenario, type Harness } from './harness.js';

const browser = browserForFile();

const text = async (h: Harness, selector: string): Promise<string> => (await h.page.locator(selector).first().textContent()) ?? '';

test('links never navigate: they are handed to the host, and code blocks copy through the host', async () => {
  await scenario(browser, 'links-copy', async (h) => {
    await h.send({
      ...snapshot,
      transcript: {
        items: [{ id: 'a1', kind: 'assistant', markdown: 'See [the docs](https://example.com/docs) or https://x.dev/y.\n\n```sh\nnpm test\n```' }],
        hasMore: false,
      },
    });
    const url = h.page.url();
    await h.page.locator('[data-id="a1"] a', { hasText: 'the docs' }).click();
    await h.page.locator('[data-id="a1"] a', { hasText: 'x.dev' }).click();
    assert.equal(h.page.url(), url);
    assert.deepEqual(
      (await ofType(h, 'openLink')).map((m) => m.href),
      ['https://example.com/docs', 'https://x.dev/y'],
    );
    await h.page.locator('[data-id="a1"] button[data-action="copy-code"]').click();
    await h.page.locator('[data-id="a1"] button[data-action="copy-item"]').click();
    assert.deepEqual(
      (await ofType(h, 'copy')).map((m) => m.text),
      ['npm test\n', 'See [the docs](https://example.com/docs) or https://x.dev/y.\n\n```sh\nnpm test\n```'],
    );
  });
});

test('first-run setup: a VS Code model or an OpenAI-compatible endpoint; the key is posted once and kept nowhere', async () => {
  await scenario(browser, 'setup', async (h) => {
    await h.send({
      ...snapshot,
      setup: {
        required: true,
        lmModels: [{ id: 'copilot/gpt-4o', label: 'GPT-4o', vendor: 'copilot', maxInputTokens: 64000 }],
        provider: null,
        hasApiKey: false,
      },
    });
    assert.equal(await h.page.locator('section.setup').isVisible(), true, 'required setup opens by itself');
    await h.page.getByRole('button', { name: 'Use this model' }).click();
    assert.deepEqual(
      (await ofType(h, 'setupProvider')).map((m) => m.provider),
      [{ kind: 'lm', modelId: 'copilot/gpt-4o' }],
    );
    await h.send({ type: 'setup', setup: { required: true, lmModels: [], provider: null, hasApiKey: false, message: 'That model is not available.' } });
    await h.page.getByLabel('OpenAI-compatible endpoint').check();
    await h.page.getByLabel('Base URL').fill('ftp://nope');
    await h.page.getByLabel('Model id').fill('qwen2.5');
    await h.page.getByLabel('API key').fill('sk-secret-123');
    await h.page.getByRole('button', { name: 'Save' }).click();
    assert.match(await text(h, '.form-error'), /http:\/\/ or https:\/\//);
    assert.equal((await ofType(h, 'setupProvider')).length, 1, 'nothing posted for an invalid URL');
    await h.page.getByLabel('Base URL').fill('http://127.0.0.1:11434/v1');
    await h.page.getByRole('button', { name: 'Save' }).click();
    const posted = await h.posted();
    assert.deepEqual(posted.filter((m) => m.type === 'setupProvider').at(-1), {
      type: 'setupProvider',
      provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' },
    });
    assert.deepEqual(
      posted.filter((m) => m.type === 'setApiKey'),
      [{ type: 'setApiKey', key: 'sk-secret-123' }],
    );
    const saved = JSON.stringify(await h.value('window.__savedState()'));
    assert.ok(!saved.includes('sk-secret'), 'the key is not in the webview state');
    const fields = await h.value<string[]>("Array.from(document.querySelectorAll('input')).map((i) => i.value)");
    assert.ok(!fields.some((v) => v.includes('sk-secret')), 'the key field was cleared');
  });
});

test('the model picker shows each model window and soft threshold and posts the choice', async () => {
  await scenario(browser, 'models', async (h) => {
    await h.send(snapshot);
    const select = h.page.getByLabel('Model', { exact: true });
    assert.deepEqual(await select.locator('option').allTextContents(), ['GPT-4o · 128k window · soft 82.7k', 'Claude (Copilot) · 65k window · soft 39k']);
    await select.selectOption('copilot/claude');
    assert.deepEqual(
      (await ofType(h, 'selectModel')).map((m) => m.id),
      ['copilot/claude'],
    );
  });
});

test('draft, open viewer and details survive a reload of the view through getState/setState', async () => {
  let saved: unknown;
  await scenario(browser, 'state-1', async (h) => {
    await h.send(snapshot);
    await h.page.locator('textarea').fill('half a thought');
    await h.page.locator('[data-id="i5"] button[data-action="view-capsule"]').click();
    await h.send({ type: 'capsule', capsule });
    await h.page.locator('#tab-diff').click();
    await h.until("window.__savedState()?.draft === 'half a thought'", 'the draft saved');
    saved = await h.value('window.__savedState()');
  });
  await scenario(
    browser,
    'state-2',
    async (h) => {
      assert.equal(await h.page.locator('textarea').inputValue(), 'half a thought');
      await h.send(snapshot);
      assert.deepEqual(
        (await ofType(h, 'viewCapsule')).map((m) => m.checkpointId),
        ['ck_abc123'],
        'the viewer asks for its capsule again',
      );
      await h.send({ type: 'capsule', capsule });
      assert.equal(await h.page.locator('#tab-diff').getAttribute('aria-selected'), 'true');
    },
    { state: saved },
  );
});

test('every control has an accessible name and keyboard focus is visible (high-contrast theme)', async () => {
  await scenario(
    browser,
    'a11y-hc',
    async (h) => {
      await h.send({
        ...snapshot,
        busy: true,
        queue: [{ id: 'q', text: 'queued' }],
        barrier: { phase: 'progress', operationId: 'o', trigger: 'user', percent: 40 },
      });
      const unnamed = await h.value<string[]>(
        "Array.from(document.querySelectorAll('button, select, textarea, input, [role=tab]')).filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || (e.id && document.querySelector('label[for=\"' + e.id + '\"]')))).map((e) => e.outerHTML.slice(0, 80))",
      );
      assert.deepEqual(unnamed, []);
      await h.page.keyboard.press('Tab');
      // The message box (the first stop) shows focus on its frame, in the focus colour; every other control has an outline.
      const shown = await h.value<string>(
        "(() => { const a = document.activeElement; const row = a.closest('.input-row'); return row ? getComputedStyle(row).borderTopColor : getComputedStyle(a).outlineStyle; })()",
      );
      assert.ok(shown === 'rgb(243, 133, 24)' || (shown !== 'none' && !shown.startsWith('rgb')), `keyboard focus is visible (${shown})`);
      await h.page.keyboard.press('Tab');
      assert.notEqual(await h.value<string>('getComputedStyle(document.activeElement).outlineStyle'), 'none', 'keyboard focus is visible on the next control');
    },
    { theme: 'high-contrast' },
  );
});

test('a malformed host message is ignored and reported to the host log', async () => {
  const h = await openHarness(browser);
  try {
    await h.send(snapshot);
    await h.sendRaw({
      type: 'itemsAppended',
      items: [
        { id: 'x', kind: 'user', text: '<b>not shown</b>', extra: 1 },
        { id: 'y', kind: 'robot' },
      ],
    });
    await h.sendRaw({ type: 'launchMissiles' });
    assert.equal(await h.page.locator('[data-id="x"]').count(), 0);
    const reported = await ofType(h, 'webviewError');
    assert.equal(reported.length, 2);
    assert.match(reported[0]?.message ?? '', /malformed message from the host \(type itemsAppended\)/);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('message hover actions, undo/redo on a card, and the composer filled by a rewind', async () => {
  await scenario(browser, 'rewind-actions', async (h) => {
    const items = [
      { id: 'e_u1', kind: 'user' as const, text: 'Edit the two files' },
      { id: 'e_a1', kind: 'assistant' as const, markdown: 'Edited both files.' },
      { id: 'e_c1', kind: 'compaction' as const, card: { ...card, undone: true } },
    ];
    await h.send({ ...snapshot, transcript: { items, hasMore: false } });
    const user = h.page.locator('[data-id="e_u1"]');
    await user.hover();
    await user.getByRole('button', { name: /^Rewind to before this message/ }).click();
    await user.getByRole('button', { name: /^Edit and resend/ }).click();
    await user.getByRole('button', { name: /^Compact up to here/ }).click();
    const answer = h.page.locator('[data-id="e_a1"]');
    await answer.hover();
    await answer.getByRole('button', { name: /^Retry/ }).click();
    await h.page.locator('[data-id="e_c1"]').getByRole('button', { name: /^Redo/ }).click();
    assert.deepEqual(
      (await ofType(h, 'messageAction')).map((m) => [m.action, m.entryId]),
      [
        ['rewind', 'e_u1'],
        ['edit', 'e_u1'],
        ['compactUpTo', 'e_u1'],
        ['retry', 'e_u1'],
      ],
      'retry names the message the answer belongs to',
    );
    assert.deepEqual(
      (await ofType(h, 'compactionAction')).map((m) => m.action),
      ['redo'],
    );
    assert.equal(await h.page.locator('.card.undone').count(), 1, 'an undone compaction looks undone');
    await h.send({ type: 'composer', text: 'Edit the two files' });
    await h.until('document.querySelector("textarea").value === "Edit the two files"', 'the message back in the composer');
  });
});
