// The chat webview in headless Chromium: streaming, tool rows, meter, barrier, compaction cards, the queue and slash completion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budget, capsule, card, snapshot } from '../unit/protocol/samples.js';
import { SLASH_COMPLETIONS } from '../../src/protocol/commands.js';
import { browserForFile, ofType, scenario, type Harness } from './harness.js';

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
