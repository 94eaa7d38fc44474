// End to end: the packaged VSIX installed into real VS Code (code-server) in real Chromium shows the Capsule view.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { capsuleWebview, openWorkbenchWithCapsule } from './workbench.js';
import { NOT_STARTED, assertNoCapsuleErrors, startE2e, step, stopE2e } from './session.js';

let { server, page } = NOT_STARTED;

before(async () => {
  ({ server, page } = await startE2e({
    settings: { 'capsule.model.id': 'gpt-4o', 'capsule.model.contextWindow': 65000, 'capsule.model.maxOutputTokens': 8000 },
  }));
});

after(stopE2e);

test('the Capsule view opens in code-server and shows the budget of the current session without errors', { timeout: 180_000 }, async () => {
  const s = server;
  assert.ok(s);
  await step('01-02-open-capsule-view', () => openWorkbenchWithCapsule(page, s.url));
  const view = capsuleWebview(page);
  await step('03-budget-visible', async () => {
    // The header is one line; its meter opens the breakdown with the full figures.
    const line = view.locator('summary.budget');
    await line.waitFor({ timeout: 60_000 });
    await line.click();
    await view.getByText('48,808').first().waitFor({ timeout: 60_000 });
    await view.getByText('39,046').first().waitFor({ timeout: 10_000 });
  });
  await step('04-checkpoints-tree', async () => {
    await page
      .locator('.pane-header', { hasText: /Checkpoints/i })
      .first()
      .waitFor({ timeout: 30_000 });
  });
  assertNoCapsuleErrors(s);
});
