// Loading an older page from the button at the top of a paged chat: one request naming the oldest row, the answer goes above in order, a stale answer is dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manyItems, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario, type Harness } from './harness.js';

const browser = browserForFile();

const ids = (h: Harness): Promise<string[]> => h.value<string[]>("Array.from(document.querySelectorAll('.list-body > .item')).map((e) => e.dataset.id)");
/** The id of the first row the list renders. */
const FIRST_ROW = "(document.querySelector('.list-body > .item')?.dataset.id ?? '')";
/** Whether the rows on screen are m0, m1, … in order (a page the list has finished rendering). */
const ROWS_FROM_FIRST =
  "(() => { const ids = Array.from(document.querySelectorAll('.list-body > .item')).map((e) => e.dataset.id); return ids.length > 0 && ids.every((id, i) => id === 'm' + i); })()";
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

    // An answer for another list (a snapshot replaced it meanwhile) changes nothing: scrolled to the top, the first
    // row is still the page's oldest. (Focusing the button scrolled the list, which renders the rows in view a frame
    // later, so this waits for the top row rather than comparing two reads of a list still moving.)
    await h.send({ type: 'olderItems', beforeId: 'm900', items: manyItems(2, 898), hasMore: true });
    await h.until(`(document.querySelector('.list').scrollTop = 0, ['m200', 'm898'].includes(${FIRST_ROW}))`, 'the top row');
    assert.equal(await h.value<string>(FIRST_ROW), 'm200');
    assert.equal(await h.value<boolean>('!!document.querySelector(\'[data-id="m898"], [data-id="m899"]\')'), false);
    assert.match(await top(h), /Loading earlier messages/);

    await h.send({ type: 'olderItems', beforeId: 'm200', items: all.slice(0, 200), hasMore: false });
    // They go above what is on screen (the view does not jump); scrolled to the top, they show. The list renders the
    // rows in view a frame after the scroll, so this waits for the rows it settles on rather than reading once.
    await h.until(`(document.querySelector('.list').scrollTop = 0, ${ROWS_FROM_FIRST})`, 'the rows from the first one, in order');
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
