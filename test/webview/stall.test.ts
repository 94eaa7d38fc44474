// A turn gone quiet: after 30 s on the page's clock without data the view says so, with Stop and Retry; data clears it. The clock is Playwright's fake one: nothing waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

test('no data for 30 s shows the stall line with Stop and Retry; a delta or the turn end takes it away', async () => {
  await scenario(
    browser,
    'stream-stalled',
    async (h) => {
      await h.page.clock.install();
      await h.send({ ...snapshot, transcript: { items: [{ id: 'u1', kind: 'user', text: 'Explain the parser.' }], hasMore: false } });
      await h.send({ type: 'busy', busy: true });
      await h.send({ type: 'streamDelta', itemId: 's1', text: 'The parser reads' });
      const stalled = (): Promise<boolean> => h.value("!document.querySelector('.stall').classList.contains('hidden')");
      await h.page.clock.runFor(29_000);
      assert.equal(await stalled(), false, 'not before the quiet period is over');
      await h.send({ type: 'streamDelta', itemId: 's1', text: ' tokens one by one' });
      await h.page.clock.runFor(29_000);
      assert.equal(await stalled(), false, 'each delta starts the quiet period again');
      await h.page.clock.runFor(2_000);
      assert.equal(await stalled(), true, '30 s without data');
      assert.match(await h.value<string>("document.querySelector('.stall').textContent"), /No reply from the model for 30 s/);
      await h.screenshot('stream-stalled');
      await h.page.locator('.stall button', { hasText: 'Retry' }).click();
      assert.equal((await ofType(h, 'cancel')).length, 1, 'Retry stops the stalled request');
      assert.deepEqual(
        (await ofType(h, 'send')).map((m) => m.text),
        ['Continue'],
        'and asks the model to continue',
      );
      await h.send({ type: 'streamDelta', itemId: 's1', text: '…' });
      assert.equal(await stalled(), false, 'data takes the line away');
      await h.page.clock.runFor(31_000);
      await h.page.locator('.stall button', { hasText: 'Stop' }).click();
      assert.equal((await ofType(h, 'cancel')).length, 2);
      await h.send({ type: 'busy', busy: false });
      assert.equal(await stalled(), false, 'the turn ended');
      await h.page.clock.runFor(60_000);
      assert.equal(await stalled(), false, 'nothing is watched between turns');
    },
    { width: 292, height: 500 },
  );
});

test('a turn waiting for an approval is not stalled: no line while the card waits, the watch starts again once it is answered', async () => {
  await scenario(
    browser,
    'stall-not-while-approving',
    async (h) => {
      await h.page.clock.install();
      await h.send({ ...snapshot, busy: true, approvals: [{ id: 'ap_1', kind: 'command', title: 'Run `echo hi`', command: 'echo hi', rule: 'echo' }] });
      const stalled = (): Promise<boolean> => h.value("!document.querySelector('.stall').classList.contains('hidden')");
      await h.send({ type: 'itemUpdated', item: { id: 't1', kind: 'tool', name: 'run_command', argsSummary: 'command: echo hi', status: 'running' } });
      await h.page.clock.runFor(120_000);
      assert.equal(await stalled(), false, 'waiting for the user is not the model going quiet');
      await h.send({ type: 'approvals', approvals: [] });
      await h.page.clock.runFor(31_000);
      assert.equal(await stalled(), true, 'after the answer, quiet again counts');
    },
    { width: 292, height: 500 },
  );
});
