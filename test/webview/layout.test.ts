// The chat at 170, 292 and 600 px in all four themes: a one-line header, and the composer, the last message and an approval's buttons in view without scrolling.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview, TranscriptItem } from '../../src/protocol/messages.js';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, scenario, type Harness, type Theme } from './harness.js';

const browser = browserForFile();

const THEMES: readonly Theme[] = ['dark', 'light', 'high-contrast', 'high-contrast-light'];
const WIDTHS = [170, 292, 600] as const;
/** The pane the walkthrough measured at the default sidebar width (372 px under the view's own title). */
const HEIGHT = 372;

const LAST = 'The last answer: the tests pass now.';
const items: TranscriptItem[] = [
  { id: 'u1', kind: 'user', text: 'Find why the login fails and fix it.' },
  { id: 'a1', kind: 'assistant', markdown: 'The token check in `src/auth.ts` compares against the wrong field. I will fix it and run the tests.' },
  { id: 'u2', kind: 'user', text: 'Go ahead.' },
  { id: 'a2', kind: 'assistant', markdown: LAST },
];

const COMMAND_APPROVAL = {
  id: 'ap_1',
  kind: 'command' as const,
  title: 'Run `npm test -- --grep login` in the workspace root',
  command: 'npm test -- --grep login',
  cwd: 'the workspace root',
  rule: 'npm',
  ruleChoices: ['npm', 'npm test', 'npm test --'],
};

const SNAPSHOT: HostToWebview = {
  ...snapshot,
  transcript: { items, hasMore: false },
  plan: [
    { step: 'Reproduce the login bug', status: 'done' },
    { step: 'Fix the token check', status: 'in_progress' },
  ],
  approvals: [COMMAND_APPROVAL],
};

/** Whether the element's whole box is on screen and not cut by any scrolling ancestor (nothing hidden behind an inner scroll). */
const FULLY_SHOWN = `(el) => {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1 || r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) return false;
  for (let p = el.parentElement; p; p = p.parentElement) {
    const st = getComputedStyle(p);
    if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
    const c = p.getBoundingClientRect();
    if (r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5 || r.left < c.left - 0.5 || r.right > c.right + 0.5) return false;
  }
  return true;
}`;

async function shown(h: Harness, selector: string): Promise<boolean> {
  return h.value<boolean>(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); return !!el && (${FULLY_SHOWN})(el); })()`);
}

/** The last message's last line: its bottom edge is inside the message list's visible box, with room to read it. */
const LAST_MESSAGE_IN_VIEW = `(() => {
  const list = document.querySelector('.list'); const last = document.querySelector('[data-id="a2"] .markdown');
  if (!list || !last) return 'missing';
  const l = list.getBoundingClientRect(); const m = last.getBoundingClientRect();
  if (l.height < 48) return 'the list is ' + Math.round(l.height) + ' px tall';
  return m.bottom <= l.bottom + 0.5 && m.bottom > l.top + 14 ? true : 'the last message is at ' + Math.round(m.top) + '-' + Math.round(m.bottom) + ', the list ' + Math.round(l.top) + '-' + Math.round(l.bottom);
})()`;

async function settle(h: Harness): Promise<void> {
  await h.value('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(0))))');
}

for (const theme of THEMES) {
  test(`${theme}: at 170, 292 and 600 px the header is one line, and the composer, the last message and "Allow once" are in view`, async () => {
    for (const width of WIDTHS) {
      await scenario(
        browser,
        `layout-${theme}-${width}`,
        async (h) => {
          await h.send(SNAPSHOT);
          await h.until('!!document.querySelector(\'[data-approval="ap_1"]\') && !!document.querySelector(\'[data-id="a2"]\')', 'the card and the last answer');
          await settle(h);
          const header = await h.value<number>("document.querySelector('.chat-header').getBoundingClientRect().height");
          assert.ok(header <= 32, `${theme} ${width}px: the header is one line (${header} px)`);
          assert.equal(await shown(h, '.composer textarea'), true, `${theme} ${width}px: the composer`);
          for (const choice of ['allow', 'deny', 'allowAlways', 'feedback'])
            assert.equal(await shown(h, `[data-approval="ap_1"] button[data-choice="${choice}"]`), true, `${theme} ${width}px: the ${choice} button`);
          assert.equal(await h.value<boolean | string>(LAST_MESSAGE_IN_VIEW), true, `${theme} ${width}px: the last message`);
          assert.equal(await shown(h, '[role="meter"]'), true, `${theme} ${width}px: the meter`);
          for (const label of ['Compact context now', 'New chat', 'Provider setup'])
            assert.equal(await shown(h, `.chat-header button[aria-label="${label}"]`), true, `${theme} ${width}px: ${label}`);
          await h.screenshot(`layout-${theme}-${width}`);
        },
        { theme, width, height: HEIGHT },
      );
    }
  });
}

test('the meter opens the breakdown under the line (figures, legend, auto-compact) and its tooltip has every field', async () => {
  await scenario(
    browser,
    'header-breakdown',
    async (h) => {
      await h.send(SNAPSHOT);
      await h.until("!!document.querySelector('summary.budget')", 'the budget line');
      assert.match((await h.page.locator('summary.budget').getAttribute('title')) ?? '', /Effective tokens: 38,420/);
      assert.equal(await h.value("document.querySelector('.budget-panel').checkVisibility()"), false, 'closed at first');
      await h.page.locator('summary.budget').click();
      assert.equal(await shown(h, '.budget-panel .figure'), true, 'the figures');
      assert.match((await h.page.locator('.budget-panel .figure').textContent()) ?? '', /38,420 \/ 48,808/);
      assert.equal(await h.page.locator('.budget-panel .legend li').count(), 7);
      await h.page.getByRole('button', { name: /Auto-compact on/ }).click();
      await h.page.getByRole('button', { name: 'Show in the chat' }).click();
      assert.deepEqual(
        (await h.posted()).filter((m) => m.type === 'command').map((m) => (m.type === 'command' ? m.command : '')),
        ['toggleAutoCompact', 'budget'],
      );
      await h.screenshot('header-breakdown');
    },
    { width: 292, height: HEIGHT },
  );
});

test('a write approval with its diff open keeps Accept and Reject in view at 170 px', async () => {
  await scenario(
    browser,
    'approval-write-narrow',
    async (h) => {
      const diff = [
        '--- a/src/auth.ts',
        '+++ b/src/auth.ts',
        '@@ -1,40 +1,40 @@',
        ...Array.from({ length: 40 }, (_, i) => `${i % 2 ? '+' : '-'}const line${i} = check(token);`),
      ].join('\n');
      await h.send({ ...SNAPSHOT, approvals: [{ id: 'ap_2', kind: 'write', title: 'Edit src/auth.ts', path: 'src/auth.ts', diff }] });
      await h.until('!!document.querySelector(\'[data-approval="ap_2"]\')', 'the card');
      await h.value("(document.querySelector('.approval-diff').open = true, 0)");
      await settle(h);
      for (const choice of ['allow', 'deny'])
        assert.equal(await shown(h, `[data-approval="ap_2"] button[data-choice="${choice}"]`), true, `the ${choice} button`);
      assert.equal(await shown(h, '.composer textarea'), true, 'the composer');
      await h.screenshot('approval-write-narrow');
    },
    { width: 170, height: HEIGHT },
  );
});
