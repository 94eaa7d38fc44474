// The composer's mode switch in Chromium: hidden until the host reports a mode, shows it, and a change sends /mode like a typed command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budget, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

test('the mode switch follows the host and sends /mode ask|agent', async () => {
  await scenario(browser, 'mode-switch', async (h) => {
    await h.send({ ...snapshot, budget: { ...budget } });
    assert.equal(await h.value("document.querySelector('.mode-select').classList.contains('hidden')"), true, 'no mode reported: no switch');
    await h.send({ type: 'budget', budget: { ...budget, mode: 'agent' } });
    await h.until("!document.querySelector('.mode-select').classList.contains('hidden')", 'the switch');
    assert.equal(await h.value("document.querySelector('.mode-select').value"), 'agent');
    await h.page.locator('.mode-select').selectOption('ask');
    const sends = await ofType(h, 'send');
    assert.deepEqual(
      sends.map((m) => m.text),
      ['/mode ask'],
    );
    await h.send({ type: 'budget', budget: { ...budget, mode: 'ask' } });
    assert.equal(await h.value("document.querySelector('.mode-select').value"), 'ask');
    assert.equal(await h.value("document.querySelector('.mode-select').getAttribute('aria-label')"), 'Chat mode');
  });
});
