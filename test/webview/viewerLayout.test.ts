// The capsule viewer in a narrow view: unbroken text wraps instead of widening the view, and the close button stays on screen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capsule, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, scenario } from './harness.js';

const browser = browserForFile();

const LONG = 'x'.repeat(3000);

test('an unbroken 3,000-character word, title and path wrap; the viewer never scrolls sideways and Close stays visible', async () => {
  await scenario(
    browser,
    'viewer-unbroken',
    async (h) => {
      await h.send(snapshot);
      const wide = {
        ...capsule,
        title: `T${LONG.slice(0, 400)}`,
        sections: [
          { name: 'Goal', body: LONG },
          { name: 'Progress', body: `\`${LONG}\`` },
          { name: 'Next Steps', body: `\`\`\`\n${LONG}\n\`\`\`` },
        ],
        ledger: `- Files modified: \`src/${LONG}.ts\``,
      };
      await h.send({ type: 'capsule', capsule: wide });
      await h.until("document.querySelector('[role=dialog] .panel-sections h3')", 'the viewer');
      for (const tab of ['#tab-sections', '#tab-ledger']) {
        await h.page.locator(tab).click();
        const overflow = await h.value<number>(
          "(() => { const d = document.querySelector('[role=dialog]'); return Math.max(document.documentElement.scrollWidth - window.innerWidth, d.scrollWidth - d.clientWidth); })()",
        );
        assert.ok(overflow <= 1, `${tab}: ${overflow}px wider than the view`);
        const close = await h.page.locator('.viewer-close').boundingBox();
        assert.ok(close !== null && close.x >= 0 && close.x + close.width <= 400 && close.y >= 0, `close button at ${JSON.stringify(close)}`);
      }
      await h.screenshot('viewer-unbroken-wrapped');
      await h.page.locator('.viewer-close').click();
      assert.equal(await h.page.locator('[role=dialog]').count(), 0);
    },
    { width: 400 },
  );
});
