// The subagent card in headless Chromium: it renders collapsed with its state and own meter, follows the subagent live, opens its transcript on demand (paged), and fits at 292 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SubagentLine, SubagentView, ToolItem } from '../../src/protocol/messages.js';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario, type Harness } from './harness.js';

const browser = browserForFile();

const ROW = 'e_9/call_sub';
const sub: SubagentView = {
  id: 'sa_1',
  description: 'explore the authentication module and every caller of its login function',
  status: 'running',
  contextTokens: 4000,
  contextWindow: 16_000,
  requests: 2,
  tokens: 7_500,
  compactions: 0,
};
const running: ToolItem = {
  id: ROW,
  kind: 'tool',
  name: 'task',
  argsSummary: 'description: explore the authentication module and every caller · prompt: …',
  status: 'running',
  subagent: sub,
};

const text = async (h: Harness, selector: string): Promise<string> => (await h.page.locator(selector).first().textContent()) ?? '';

/** Whether nothing inside the card reaches past the list's right edge (no horizontal overflow at a narrow width). */
const FITS = `(() => {
  const card = document.querySelector('[data-id="${ROW}"]');
  const list = document.querySelector('.list');
  if (!card || !list) return 'missing';
  const right = list.getBoundingClientRect().right + 0.5;
  for (const el of [card, ...card.querySelectorAll('*')]) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > right) return (el.className || el.tagName) + ' ends at ' + Math.round(r.right) + ' > ' + Math.round(right);
  }
  return document.documentElement.scrollWidth <= innerWidth ? true : 'the page scrolls sideways';
})()`;

function lines(n: number, from = 0): SubagentLine[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0
      ? { kind: 'tool', name: 'read_file', status: 'ok', text: `path: src/file${from + i}.ts\n→ export const x${from + i} = ${from + i};` }
      : { kind: 'assistant', text: `Looked at file ${from + i}.` },
  );
}

test('a task row is a subagent card: collapsed with its state and meter, live, its transcript on demand and paged, 292 px wide', async () => {
  await scenario(
    browser,
    'subagent-card',
    async (h) => {
      await h.send({ ...snapshot, transcript: { items: [...snapshot.transcript.items.slice(0, 2), running], hasMore: false } });
      const card = `[data-id="${ROW}"] details.subagent`;
      await h.until(`document.querySelector('${card}')`, 'the card');
      assert.equal(await h.page.locator(card).getAttribute('open'), null, 'collapsed by default');
      assert.match(await text(h, `${card} > summary`), /Subagent: explore the authentication module.*running/);
      assert.equal(await h.page.locator(`${card} .subagent-meter`).getAttribute('data-percent'), '25', 'its own meter: 4,000 of 16,000');
      assert.equal(await h.page.locator(`[data-id="${ROW}"] .codicon-modifier-spin`).count(), 1, 'a running card spins');
      assert.equal(await h.value(FITS), true, 'collapsed, it fits');

      // Expand: the figures; the transcript is asked for only when its box opens.
      await h.page.locator(`${card} > summary`).click();
      assert.match(await text(h, `${card} .subagent-figures`), /2 requests · 7,500 tokens · context 4,000 \/ 16,000/);
      assert.equal((await ofType(h, 'subagentTranscript')).length, 0, 'nothing asked before the transcript is opened');
      await h.page.locator(`${card} .subagent-transcript-box > summary`).click();
      await h.until(`window.__posted.some((m) => m.type === 'subagentTranscript')`, 'the transcript request');
      assert.deepEqual(await ofType(h, 'subagentTranscript'), [{ type: 'subagentTranscript', itemId: ROW, page: 1 }]);
      await h.send({
        type: 'subagentTranscript',
        itemId: ROW,
        page: 1,
        pages: 2,
        lines: [{ kind: 'user', text: 'Explore src/auth and report every caller.' }, ...lines(39)],
      });
      await h.until(`document.querySelectorAll('${card} .subagent-line').length === 40`, 'the first page');
      assert.match(await text(h, `${card} .subagent-line-user`), /Explore src\/auth/);
      assert.match(await text(h, `${card} .subagent-pager`), /Page 1 of 2/);

      // The subagent compacts: the card changes in place and keeps what the user opened.
      await h.send({ type: 'itemUpdated', item: { ...running, subagent: { ...sub, status: 'compacting', contextTokens: 12_800, requests: 5 } } });
      await h.until(`document.querySelector('${card} .subagent-state-compacting')`, 'compacting');
      assert.notEqual(await h.page.locator(card).getAttribute('open'), null, 'still expanded');
      assert.equal(await h.page.locator(`${card} .subagent-line`).count(), 40, 'the loaded page stays');
      assert.equal(await h.page.locator(`${card} .subagent-meter`).getAttribute('data-percent'), '80');

      // Later: the next page.
      await h.page.locator(`${card} button[data-action="subagent-page"]`).click();
      await h.until(`window.__posted.filter((m) => m.type === 'subagentTranscript').length === 2`, 'the second page request');
      assert.deepEqual((await ofType(h, 'subagentTranscript'))[1], { type: 'subagentTranscript', itemId: ROW, page: 2 });
      await h.send({ type: 'subagentTranscript', itemId: ROW, page: 2, pages: 2, lines: lines(3, 39) });
      await h.until(`document.querySelectorAll('${card} .subagent-line').length === 3`, 'the second page');
      assert.match(await text(h, `${card} .subagent-pager`), /Earlier.*Page 2 of 2/);
      assert.equal(await h.value(FITS), true, 'expanded with its transcript, it fits');

      // It stops: the reason shows, and the card can be collapsed again.
      await h.send({
        type: 'itemUpdated',
        item: {
          ...running,
          status: 'error',
          resultPreview: 'Subagent sa_1 stopped without an answer: it repeated the same tool call and was stopped (loop).',
          subagent: { ...sub, status: 'stopped', reason: 'it repeated the same tool call and was stopped (loop)', requests: 6 },
        },
      });
      await h.until(`document.querySelector('${card} .subagent-state-stopped')`, 'stopped');
      assert.match(await text(h, `${card} .subagent-reason`), /Stopped: it repeated the same tool call/);
      assert.equal(await h.page.locator(`[data-id="${ROW}"] .codicon-modifier-spin`).count(), 0);
      await h.page.locator(`${card} > summary`).click();
      assert.equal(await h.page.locator(card).getAttribute('open'), null, 'collapsed again');
      assert.equal(await h.value(FITS), true);
    },
    { width: 292, height: 720 },
  );
});
