// 5,000 messages in headless Chromium: the list renders, pages older items in on scroll-to-top, and the DOM stays bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WINDOW_MAX } from '../../webview/windowing.js';
import { manyItems, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario, type Harness } from './harness.js';

const TOTAL = 5000;
/** The whole view (header, composer, ~WINDOW_MAX items) stays under this many elements however long the chat is. */
const MAX_NODES = 25 * WINDOW_MAX;

const browser = browserForFile();

const rendered = (h: Harness): Promise<number> => h.value<number>("document.querySelectorAll('.list-body > .item').length");
const nodes = (h: Harness): Promise<number> => h.value<number>("document.querySelectorAll('#root *').length");
const has = (h: Harness, id: string): Promise<boolean> => h.value<boolean>(`!!document.querySelector('[data-id="${id}"]')`);

/** The first message on screen and where it is. */
const ON_TOP = `(() => {
  const l = document.querySelector('.list').getBoundingClientRect();
  const e = Array.from(document.querySelectorAll('.list-body > .item')).find((x) => x.getBoundingClientRect().bottom > l.top);
  return e ? { id: e.dataset.id, top: e.getBoundingClientRect().top } : null;
})()`;

/** Scrolls the list to its top once and lets the view react (a frame for the scroll handler, one for layout). */
async function scrollTop(h: Harness): Promise<void> {
  await h.value("(document.querySelector('.list').scrollTop = 0, 0)");
  await h.value('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
}

test('a 5,000-item snapshot renders only a window, and scrolling to the top walks back to the first message', async () => {
  await scenario(browser, 'scale-memory', async (h) => {
    await h.send({ ...snapshot, transcript: { items: manyItems(TOTAL), hasMore: false } });
    assert.ok(await has(h, `m${TOTAL - 1}`), 'the newest message is shown');
    assert.ok((await rendered(h)) <= WINDOW_MAX);
    const visible = await h.value<boolean>(
      `(() => { const r = document.querySelector('[data-id="m${TOTAL - 1}"]').getBoundingClientRect(); const l = document.querySelector('.list').getBoundingClientRect(); return r.bottom <= l.bottom + 1 && r.top >= l.top; })()`,
    );
    assert.ok(visible, 'the view opens at the newest message');
    // One page-side loop: scroll to the top, let two frames pass, note the window size; until the first message shows.
    const walk = await h.value<{ steps: number; maxRendered: number }>(`(async () => {
      const list = document.querySelector('.list');
      let steps = 0, maxRendered = 0;
      while (!document.querySelector('[data-id="m0"]') && steps < 400) {
        list.scrollTop = 0;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        maxRendered = Math.max(maxRendered, document.querySelectorAll('.list-body > .item').length);
        steps++;
      }
      return { steps, maxRendered };
    })()`);
    assert.ok(await has(h, 'm0'), `scrolling up never reached the first message (${walk.steps} steps)`);
    assert.ok(walk.steps <= 3, `dragging to the top took ${walk.steps} steps: the scrollbar should span the whole chat`);
    assert.ok(walk.maxRendered <= WINDOW_MAX, `the window grew to ${walk.maxRendered} items`);
    assert.ok((await nodes(h)) < MAX_NODES, `${await nodes(h)} elements`);
    assert.match(await h.value<string>("document.querySelector('.list-top').textContent"), /Beginning of the chat/);
    assert.equal((await h.posted()).filter((m) => m.type === 'loadOlder').length, 0, 'everything was in memory: nothing to ask the host');
    // The middle of the chat is one jump away too.
    await h.value("(document.querySelector('.list').scrollTop = document.querySelector('.list').scrollHeight / 2, 0)");
    await h.value('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
    const middle = await h.value<number[]>(
      "Array.from(document.querySelectorAll('.list-body > .item')).filter((e) => { const r = e.getBoundingClientRect(); const l = document.querySelector('.list').getBoundingClientRect(); return r.bottom > l.top && r.top < l.bottom; }).map((e) => Number(e.dataset.id.slice(1)))",
    );
    assert.ok(middle.length > 0 && middle.every((n) => n > TOTAL * 0.3 && n < TOTAL * 0.7), `mid-scroll shows ${middle.slice(0, 3).join(', ')}…`);
    await h.page.getByRole('button', { name: /Jump to latest/ }).click();
    assert.ok(await has(h, `m${TOTAL - 1}`));
    assert.ok((await rendered(h)) <= WINDOW_MAX);
  });
});

test('a paged snapshot asks the host for older pages one at a time until the beginning', async () => {
  await scenario(browser, 'scale-paged', async (h) => {
    const all = manyItems(TOTAL);
    const PAGE = 200;
    await h.send({ ...snapshot, transcript: { items: all.slice(TOTAL - PAGE), hasMore: true } });
    let answered = 0;
    let steps = 0;
    while (!(await has(h, 'm0'))) {
      await scrollTop(h);
      const requests = await ofType(h, 'loadOlder');
      assert.ok(requests.length <= answered + 1, 'a second request went out while one was pending');
      const next = requests[answered];
      if (next) {
        const at = all.findIndex((it) => it.id === next.beforeId);
        assert.equal(at, TOTAL - PAGE * (answered + 1), 'the request names the oldest item the view has');
        const before = await h.value<{ id: string; top: number } | null>(ON_TOP);
        await h.send({ type: 'olderItems', beforeId: next.beforeId, items: all.slice(Math.max(0, at - PAGE), at), hasMore: at - PAGE > 0 });
        const afterwards = await h.value<{ id: string; top: number } | null>(
          `(() => { const e = document.querySelector('[data-id="${before?.id ?? ''}"]'); return e ? { id: e.dataset.id, top: e.getBoundingClientRect().top } : null; })()`,
        );
        assert.ok(
          before && afterwards && Math.abs(afterwards.top - before.top) <= 1,
          `older items moved what was on screen (${JSON.stringify(before)} → ${JSON.stringify(afterwards)})`,
        );
        answered++;
      }
      assert.ok((await rendered(h)) <= WINDOW_MAX);
      assert.ok(++steps < 600, 'scrolling up never reached the first message');
    }
    assert.equal(answered, TOTAL / PAGE - 1);
    assert.ok((await nodes(h)) < MAX_NODES);
  });
});

test('streaming into the newest message of a 5,000-item chat touches only that message', async () => {
  await scenario(browser, 'scale-stream', async (h) => {
    await h.send({
      ...snapshot,
      transcript: { items: [...manyItems(TOTAL - 1), { id: 'live', kind: 'assistant', markdown: '', streaming: true }], hasMore: false },
    });
    await h.value("document.querySelectorAll('.list-body > .item').forEach((e) => (e.__mark = 1))");
    for (let i = 0; i < 20; i++) await h.send({ type: 'streamDelta', itemId: 'live', text: `word${i} ` });
    await h.until("document.querySelector('[data-id=\"live\"] .markdown').textContent.includes('word19')", 'the streamed words');
    assert.equal(
      await h.value("Array.from(document.querySelectorAll('.list-body > .item')).filter((e) => e.__mark !== 1).length"),
      0,
      'a message element was replaced',
    );
  });
});
