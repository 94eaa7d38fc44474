// Approval cards, the plan checklist, Escape to stop, Tab order, the /budget table and transient banners, in Chromium.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budget, snapshot } from '../unit/protocol/samples.js';
import { formatBudget } from '../../src/engine/tokens/budgetFormat.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

const COMMAND = {
  id: 'ap_1',
  kind: 'command' as const,
  title: 'Run `npm test` in the workspace root',
  command: 'npm test',
  cwd: 'the workspace root',
  rule: 'npm',
  ruleChoices: ['npm', 'npm test'],
};
const WRITE = { id: 'ap_2', kind: 'write' as const, title: 'Edit src/a.ts', path: 'src/a.ts', diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n' };

test('approval cards answer with the choice; Deny with feedback sends the text; the cards go when the host says so', async () => {
  await scenario(browser, 'approvals', async (h) => {
    await h.send({ ...snapshot, approvals: [COMMAND, WRITE] });
    await h.until("document.querySelectorAll('.approval-card').length === 2", 'two cards');
    assert.equal(await h.page.locator('[data-approval="ap_1"] code').textContent(), 'npm test');
    await h.page.locator('[data-approval="ap_1"] button', { hasText: 'Always allow…' }).click();
    assert.equal(await h.page.getByLabel('Allow commands starting with').inputValue(), 'npm', 'the command name is offered first');
    await h.page.locator('[data-approval="ap_1"] button', { hasText: 'Save rule and run' }).click();
    await h.page.locator('[data-approval="ap_2"] button', { hasText: 'Open diff' }).click();
    await h.page.locator('[data-approval="ap_2"] button', { hasText: 'Reject with feedback' }).click();
    await h.page.locator('[data-approval="ap_2"] textarea').fill('Keep a, add b below it');
    await h.page.locator('[data-approval="ap_2"] textarea').press('Enter');
    assert.deepEqual(
      (await ofType(h, 'approval')).map((m) => [m.id, m.choice, m.feedback, m.rule, m.scope]),
      [
        ['ap_1', 'allowAlways', undefined, 'npm', 'user'],
        ['ap_2', 'openDiff', undefined, undefined, undefined],
        ['ap_2', 'deny', 'Keep a, add b below it', undefined, undefined],
      ],
    );
    await h.send({ type: 'approvals', approvals: [] });
    await h.until("document.querySelectorAll('.approval-card').length === 0", 'the cards to go');
  });
});

test('the plan shows as a checklist with its progress and follows updates', async () => {
  await scenario(browser, 'plan', async (h) => {
    await h.send({
      ...snapshot,
      plan: [
        { step: 'Find it', status: 'done' },
        { step: 'Fix it', status: 'in_progress' },
        { step: 'Test it', status: 'pending' },
      ],
    });
    await h.until("!document.querySelector('.plan').classList.contains('hidden')", 'the plan');
    assert.match((await h.page.locator('.plan-summary').textContent()) ?? '', /^Plan · 1 of 3 done/);
    assert.deepEqual(await h.value("Array.from(document.querySelectorAll('.plan-item')).map((e) => e.getAttribute('aria-label'))"), [
      'Find it, done',
      'Fix it, in progress',
      'Test it, pending',
    ]);
    await h.send({ type: 'plan', plan: [] });
    await h.until("document.querySelector('.plan').classList.contains('hidden')", 'an empty plan to hide');
  });
});

test('Escape stops a running turn; the composer comes first in Tab order', async () => {
  await scenario(browser, 'keyboard', async (h) => {
    await h.send({ ...snapshot, busy: true });
    await h.value('(document.activeElement?.blur(), 0)');
    await h.page.keyboard.press('Tab');
    assert.equal(await h.value("document.activeElement === document.querySelector('.composer textarea')"), true, 'the first Tab stop is the message box');
    await h.page.keyboard.press('Escape');
    assert.equal((await ofType(h, 'cancel')).length, 1);
    await h.send({ type: 'busy', busy: false });
    await h.page.keyboard.press('Escape');
    assert.equal((await ofType(h, 'cancel')).length, 1, 'Escape does nothing when no turn runs');
  });
});

test('/budget is a table of the Context Stats rows; a retry banner goes when the turn ends', async () => {
  await scenario(browser, 'budget-table', async (h) => {
    await h.send({ ...snapshot, busy: true });
    await h.send({
      type: 'itemsAppended',
      items: [{ id: 'b1', kind: 'info', text: formatBudget({ ...budget, source: 'estimated' } as Parameters<typeof formatBudget>[0]) }],
    });
    await h.until('!!document.querySelector(\'[data-id="b1"] table.info-table\')', 'the table');
    const rows = await h.value<string[]>('Array.from(document.querySelectorAll(\'[data-id="b1"] th\')).map((t) => t.textContent)');
    for (const r of [
      'Effective tokens',
      'Measurement source',
      'Soft limit',
      'Hard limit',
      'Safety reserve',
      'Keep recent',
      'Capsules',
      'Messages',
      'Turns',
      'Last capsule',
      'Savings ratio',
      'Auto-compact',
      'Next trigger est.',
    ])
      assert.ok(rows.includes(r), r);
    assert.equal(await h.page.locator('[data-id="b1"] caption').textContent(), 'Context Stats');
    await h.send({ type: 'notice', level: 'warning', text: 'Provider busy, retrying (attempt 2 of 4)' });
    await h.until("document.querySelector('.banners').textContent.includes('retrying')", 'the retry banner');
    await h.send({ type: 'busy', busy: false });
    await h.until("!document.querySelector('.banners').textContent.includes('retrying')", 'the banner to clear');
  });
});
