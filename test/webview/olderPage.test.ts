// Loading an older page from the button at the top of a paged chat: one request naming the oldest row, the answer goes above in order, a stale answer is dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manyItems, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario, type Harness } from './harness.js';

const browser = browserForFile();

const ids = (h: Harness): Promise<string[]> => h.value<string[]>("Array.from(document.querySelectorAll('.list-body > .item')).map((e) => e.dataset.id)");
const top = (h: Harness): Promise<string> => h.value<string>("document.querySelector('.list-top').textContent ?? ''");

test('Load earlier messages asks for the page before the oldest row, shows it above, and ends at the beginning', async () => {
  await scenario(browser, 'older-page-button', async (h) => {
    // A page as the host sends it: 200 rows, more than the view holds, the newest in view.
    const all = manyItems(400);
    await h.send({ ...snapshot, transcript: { items: all.slice(200), hasMore: true } });
    const more = h.page.getByRole('button', { name: 'Load earlier messages' });
    await more.waitFor();
    // The keyboard's way there: focus the button and press Enter.
    await more.focus();
    await h.page.keyboard.press('Enter');
    await h.until("window.__posted.some((m) => m.type === 'loadOlder')", 'the request');
    assert.deepEqual(await ofType(h, 'loadOlder'), [{ type: 'loadOlder', beforeId: 'm200' }]);
    assert.match(await top(h), /Loading earlier messages/);

    // An answer for another list (a snapshot replaced it meanwhile) changes nothing.
    const shown = await ids(h);
    await h.send({ type: 'olderItems', beforeId: 'm900', items: manyItems(2, 898), hasMore: true });
    assert.deepEqual(await ids(h), shown);
    assert.match(await top(h), /Loading earlier messages/);

    await h.send({ type: 'olderItems', beforeId: 'm200', items: all.slice(0, 200), hasMore: false });
    // They go above what is on screen (the view does not jump); scrolled to the top, they show.
    await h.until("(document.querySelector('.list').scrollTop = 0, !!document.querySelector('[data-id=\"m0\"]'))", 'the first row');
    const first = await ids(h);
    assert.deepEqual(
      first,
      first.map((_, i) => `m${i}`),
      'the older page above, in order from the first row',
    );
    assert.match(await top(h), /Beginning of the chat/);
    assert.equal((await ofType(h, 'loadOlder')).length, 1, 'one request for one page');
  });
});
