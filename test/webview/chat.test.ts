// The chat webview in headless Chromium: streaming, meter, barrier, cards, capsule viewer, queue, slash completion, setup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budget, capsule, card, snapshot } from '../unit/protocol/samples.js';
import { SLASH_COMPLETIONS } from '../../src/protocol/commands.js';
import { browserForFile, ofType, openHarness, scenario, type Harness } from './harness.js';

const browser = browserForFile();

const text = async (h: Harness, selector: string): Promise<string> => (await h.page.locator(selector).first().textContent()) ?? '';

test('streamed text appears piece by piece, and only its own item is redrawn', async () => {
  await scenario(browser, 'streaming', async (h) => {
    await h.send({ ...snapshot, transcript: { items: snapshot.transcript.items.slice(0, 3), hasMore: false } });
    await h.send({ type: 'itemsAppended', items: [{ id: 's1', kind: 'assistant', markdown: '', streaming: true }] });
    await h.value('(document.querySelector(\'[data-id="i1"]\').__mark = 1, document.querySelector(\'[data-id="s1"]\').__mark = 2)');
    await h.send({ type: 'streamDelta', itemId: 's1', text: 'Hello ' });
    await h.until('document.querySelector(\'[data-id="s1"] .markdown\').textContent.includes("Hello")', 'the first delta');
    assert.doesNotMatch(await text(h, '[data-id="s1"] .markdown'), /world/);
    await h.send({ type: 'streamDelta', itemId: 's1', text: '**wor' });
    await h.send({ type: 'streamDelta', itemId: 's1', text: 'ld**' });
    await h.until('document.querySelector(\'[data-id="s1"] .markdown strong\')?.textContent === "world"', 'the bold word');
    assert.equal(await h.value('document.querySelector(\'[data-id="i1"]\').__mark'), 1, 'an earlier message was re-rendered');
    assert.equal(await h.value('document.querySelector(\'[data-id="s1"]\').__mark'), 2, 'the streaming item itself was replaced, not its body');
    assert.equal(await h.page.locator('[data-id="s1"] .markdown.streaming').count(), 1);
    await h.send({ type: 'streamEnd', itemId: 's1', markdown: 'Hello **world**, done.' });
    await h.until('!document.querySelector(\'[data-id="s1"] .markdown.streaming\')', 'the end of the stream');
    assert.equal((await text(h, '[data-id="s1"] .markdown')).trim(), 'Hello world, done.');
  });
});

test('tool calls are collapsed with status and duration, and update in place', async () => {
  await scenario(browser, 'tools', async (h) => {
    await h.send(snapshot);
    const tool = h.page.locator('[data-id="i4"] details.tool');
    assert.equal(await tool.getAttribute('open'), null, 'collapsed by default');
    assert.match(await text(h, '[data-id="i4"] summary'), /run_command\s*npm test.*running/);
    await h.page.locator('[data-id="i4"] summary').click();
    await h.send({
      type: 'itemUpdated',
      item: { id: 'i4', kind: 'tool', name: 'run_command', argsSummary: 'npm test', status: 'error', durationMs: 5400, resultPreview: '1 failing' },
    });
    await h.until('document.querySelector(\'[data-id="i4"] .codicon.status-error\')', 'the error status');
    assert.match(await text(h, '[data-id="i4"] summary'), /5\.4 s.*failed/);
    assert.notEqual(await h.page.locator('[data-id="i4"] details.tool').getAttribute('open'), null, 'an expanded call stays expanded');
    assert.equal(await text(h, '[data-id="i4"] .tool-result'), '1 failing');
    assert.match(await text(h, '[data-id="i3"] summary'), /read_file.*12 ms.*done/);
  });
});

test('the meter shows the categories, soft and hard markers, the source and every /budget field', async () => {
  await scenario(browser, 'meter', async (h) => {
    await h.send(snapshot);
    for (const k of ['system', 'tools', 'capsule', 'messages', 'toolResults', 'reservedOutput']) {
      const width = await h.value<number>(`parseFloat(document.querySelector('.meter .seg.cat-${k}').style.width)`);
      assert.ok(width > 0, `${k} segment`);
    }
    const soft = await h.value<number>("parseFloat(document.querySelector('.meter .marker.soft').style.left)");
    const hard = await h.value<number>("parseFloat(document.querySelector('.meter .marker.hard').style.left)");
    assert.ok(Math.abs(soft - (39046 / 65000) * 100) < 0.01 && Math.abs(hard - (48808 / 65000) * 100) < 0.01, `markers at ${soft}% and ${hard}%`);
    assert.equal(await text(h, '.budget-panel .badge'), 'estimated');
    assert.match(await text(h, '.budget-panel .figure'), /38,420 \/ 48,808/);
    const tip = (await h.page.locator('summary.budget').getAttribute('title')) ?? '';
    for (const f of [
      'Effective tokens: 38,420',
      'Measurement source: estimated',
      'Soft limit: 39,046',
      'Hard limit: 48,808',
      'Safety reserve: 8,192',
      'Keep recent: 20,000',
      'Capsules: 2',
      'Messages: 47',
      'Turns: 12',
      'Last capsule: 2m ago',
      'Savings ratio: 0.48',
      'Auto-compact: ON',
      'Next trigger est.: ~3 turns',
    ])
      assert.ok(tip.includes(f), `tooltip lacks ${f}`);
    await h.page.locator('.budget-details summary').click();
    const legend = await h.page.locator('.legend .legend-label').allTextContents();
    assert.deepEqual(legend, ['System', 'Tools', 'Capsule', 'Messages', 'Tool results', 'Reserved output', 'Margin / calibration']);
    await h.send({ type: 'budget', budget: { ...budget, effectiveTokens: 45000, source: 'provider_usage' } });
    await h.until("document.querySelector('.budget-panel .badge').textContent === 'provider usage'", 'the provider badge');
    assert.equal(await h.page.locator('.meter.soft').count(), 1, 'past the soft limit the meter says so');
    assert.equal(await h.page.locator('.budget-details').getAttribute('open'), '', 'the details stay open across updates');
  });
});

test('the barrier shows the live percentage, keeps the input usable and queues, then leaves one result line', async () => {
  await scenario(browser, 'barrier', async (h) => {
    await h.send({ ...snapshot, busy: true });
    await h.send({ type: 'barrier', phase: 'start', operationId: 'op_1', trigger: 'auto_threshold', percent: 0 });
    assert.equal(await text(h, '.barrier .barrier-text'), 'Compacting context before response · 0%');
    await h.send({ type: 'barrier', phase: 'progress', operationId: 'op_1', trigger: 'auto_threshold', percent: 82 });
    assert.equal(await text(h, '.barrier .barrier-text'), 'Compacting context before response · 82%');
    assert.equal(await h.page.locator('.barrier [role="progressbar"]').getAttribute('aria-valuenow'), '82');
    const input = h.page.locator('textarea');
    assert.equal(await input.isEnabled(), true, 'the input stays enabled during the barrier');
    await input.fill('also update the changelog');
    await input.press('Enter');
    const [sent] = await ofType(h, 'send');
    assert.equal(sent?.text, 'also update the changelog');
    assert.ok(sent?.clientId);
    assert.match(await text(h, '.queue .chip'), /Queued\s*also update the changelog/);
    assert.equal(await input.inputValue(), '');
    await h.send({ type: 'queue', items: [{ id: sent?.clientId ?? '', text: 'also update the changelog' }] });
    assert.equal(await h.page.locator('.queue .chip').count(), 1, 'the host listing the pending input does not duplicate its chip');
    await h.send({
      type: 'barrier',
      phase: 'end',
      operationId: 'op_1',
      trigger: 'auto_threshold',
      percent: 100,
      result: { outcome: 'completed', tokensBefore: 41000, tokensAfter: 12300, checkpointId: 'ck_abc123', durationMs: 3200, quality: 'full' },
    });
    const line = await text(h, '.barrier .barrier-result');
    assert.equal(line, 'Context compacted · context size · 41k → 12.3k tokens · reclaimed 70% · 3.2 s');
    await h.send({ type: 'queue', items: [] });
    await h.send({ type: 'itemsAppended', items: [{ id: 'u9', kind: 'user', text: 'also update the changelog', clientId: sent?.clientId }] });
    assert.equal(await h.page.locator('.queue .chip').count(), 0, 'consumed input leaves the queue');
    assert.equal(await text(h, '.barrier .barrier-result'), line, 'the result line persists');
  });
});

test('a compaction card shows reason, figures by category, quality with the fallback reason, and opens the capsule', async () => {
  await scenario(browser, 'card-and-viewer', async (h) => {
    await h.send({ ...snapshot, transcript: { items: [], hasMore: false } });
    await h.send({ type: 'itemsAppended', items: [{ id: 'card_1', kind: 'compaction', card }] });
    const c = '[data-id="card_1"] .card';
    assert.equal(await text(h, `${c} .reason`), 'context size');
    assert.equal(await text(h, `${c} .card-figures`), '41k → 12.3k tokens · reclaimed 70% · 3.2 s · level 1');
    assert.match(await text(h, `${c} .card-quality.degraded`), /fallback capsule was used — summary request timed out after 15 s/);
    assert.deepEqual(await h.page.locator(`${c} tr[data-category="messages"] td`).allTextContents(), ['24,000', '5,200']);
    assert.deepEqual(await h.page.locator(`${c} tr.total td`).allTextContents(), ['41,000', '12,300']);
    assert.equal(await h.page.locator(`${c} .mini-bar .seg`).count(), 11, 'before and after bars by category');
    assert.equal(await text(h, `${c} .ck`), 'ck_abc123');

    const open = h.page.locator(`${c} button[data-action="view-capsule"]`);
    await open.click();
    assert.deepEqual(
      (await ofType(h, 'viewCapsule')).map((m) => m.checkpointId),
      ['ck_abc123'],
    );
    await h.until("document.querySelector('[role=dialog]')?.textContent.includes('Loading')", 'the viewer loading');
    await h.send({ type: 'capsule', capsule: { ...capsule, checkpointId: 'ck_other' } });
    assert.equal(await h.page.locator('[role=dialog] h3').count(), 0, 'an answer for another capsule is ignored');
    await h.send({ type: 'capsule', capsule });
    assert.deepEqual(await h.page.locator('[role=dialog] .panel-sections h3').allTextContents(), ['Goal', 'Progress', 'Next Steps']);
    assert.match(await text(h, '[role=dialog] .panel-sections'), /Fix the login redirect loop\./);
    await h.page.locator('#tab-sections').press('ArrowRight');
    await h.until("document.querySelector('#tab-ledger')?.getAttribute('aria-selected') === 'true'", 'the ledger tab by keyboard');
    assert.match(await text(h, '.panel-ledger'), /Files modified: src\/auth\.ts/);
    await h.page.locator('#tab-diff').click();
    assert.equal(await text(h, '#tab-diff'), 'Diff (+3 −2)');
    assert.deepEqual(await h.page.locator('.diff .diff-del').allTextContents(), ['−- In progress: reproduce', '−1. Reproduce']);
    assert.deepEqual(await h.page.locator('.diff .diff-add').allTextContents(), [
      '+- Done: reproduced',
      '+- In progress: patch src/auth.ts',
      '+1. Run the auth tests',
    ]);
    await h.page.getByRole('button', { name: 'Export…' }).click();
    await h.page.getByRole('button', { name: 'Rewind here' }).click();
    assert.deepEqual(
      (await ofType(h, 'exportCapsule')).map((m) => m.checkpointId),
      ['ck_abc123'],
    );
    assert.deepEqual(
      (await ofType(h, 'rewind')).map((m) => m.checkpointId),
      ['ck_abc123'],
    );
    await h.page.keyboard.press('Escape');
    assert.equal(await h.page.locator('[role=dialog]').count(), 0, 'Escape closes the viewer');
    assert.equal(await h.value('document.activeElement?.dataset.action'), 'view-capsule', 'focus returns to the button that opened it');

    // The host shows a capsule on its own (tree "Inspect capsule", palette, /capsule): the viewer opens on it.
    const before = (await ofType(h, 'viewCapsule')).length;
    await h.send({ type: 'capsule', capsule });
    assert.deepEqual(await h.page.locator('[role=dialog] .panel-sections h3').allTextContents(), ['Goal', 'Progress', 'Next Steps']);
    assert.equal((await ofType(h, 'viewCapsule')).length, before, 'no round trip: the content came with the message');
  });
});

test('while busy: Stop cancels, input is queued as chips, and the textarea stays usable', async () => {
  await scenario(browser, 'busy-queue', async (h) => {
    await h.send(snapshot);
    assert.equal(await h.page.locator('button.stop').isVisible(), false);
    await h.send({ type: 'busy', busy: true });
    await h.page.locator('button.stop').click();
    assert.equal((await ofType(h, 'cancel')).length, 1);
    const input = h.page.locator('textarea');
    for (const t of ['first follow-up', 'second\nfollow-up']) {
      await input.fill(t);
      await input.press('Enter');
    }
    assert.deepEqual(await h.page.locator('.queue .chip-text').allTextContents(), ['first follow-up', 'second\nfollow-up']);
    await input.fill('line one');
    await input.press('Shift+Enter');
    await input.pressSequentially('line two');
    assert.equal(await input.inputValue(), 'line one\nline two', 'Shift+Enter breaks the line');
    assert.equal((await ofType(h, 'send')).length, 2);
    await h.send({ type: 'busy', busy: false });
    assert.equal(await h.page.locator('button.stop').isVisible(), false);
  });
});

test('slash completion: filter, arrows, Enter or Tab to pick, Escape to close, checkpoint ids for export', async () => {
  await scenario(browser, 'slash', async (h) => {
    await h.send(snapshot);
    const input = h.page.locator('textarea');
    const options = h.page.locator('#slash-popup [role=option]');
    await input.pressSequentially('/');
    assert.equal(await options.count(), SLASH_COMPLETIONS.length); // every line of the catalog's popup
    await input.pressSequentially('au');
    assert.deepEqual(await h.page.locator('#slash-popup .slash-label').allTextContents(), ['/auto-compact on', '/auto-compact off']);
    await input.press('ArrowDown');
    assert.equal(await h.page.locator('#slash-popup [aria-selected=true] .slash-label').textContent(), '/auto-compact off');
    assert.equal(await input.getAttribute('aria-activedescendant'), 'slash-opt-1');
    await input.press('Enter');
    assert.equal(await input.inputValue(), '/auto-compact off');
    assert.equal(await h.page.locator('#slash-popup').isVisible(), false, 'a complete command closes the popup');
    await input.press('Enter');
    assert.deepEqual(
      (await ofType(h, 'send')).map((m) => m.text),
      ['/auto-compact off'],
    );

    await input.pressSequentially('/comp');
    await input.press('Tab');
    assert.equal(await input.inputValue(), '/compact ');
    await input.pressSequentially('auth module');
    assert.equal(await options.count(), 0);
    await input.fill('');
    await input.pressSequentially('/b');
    await input.press('Escape');
    assert.equal(await h.page.locator('#slash-popup').isVisible(), false);
    await input.fill('');
    await input.pressSequentially('/capsule export ');
    assert.deepEqual(await h.page.locator('#slash-popup .slash-label').allTextContents(), ['/capsule export ck_abc123']);
  });
});

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
