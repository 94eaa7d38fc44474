// The ‹ 1/2 › switcher in Chromium: drawn from the items' branch info, labelled, keyboard operable, keeping its place and focus across the snapshot of the new branch, and never overlapping at 170 and 292 px.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { HostToWebview, TranscriptItem, WebviewToHost } from '../../src/protocol/messages.js';
import { snapshot } from '../unit/protocol/samples.js';
import { ensureBundle, launchBrowser, scenario, type Harness } from './harness.js';

let browser: Browser;
before(async () => {
  await ensureBundle();
  browser = await launchBrowser();
});
after(async () => browser?.close());

const switches = async (h: Harness): Promise<string[]> =>
  (await h.posted()).filter((m): m is Extract<WebviewToHost, { type: 'switchBranch' }> => m.type === 'switchBranch').map((m) => m.entryId);

const LONG = 'Refactor the session loader so that damaged lines are skipped and counted, then report every skipped line with its number.';

function chat(middle: TranscriptItem[]): Extract<HostToWebview, { type: 'snapshot' }> {
  const filler = (from: number): TranscriptItem[] =>
    Array.from(
      { length: 12 },
      (_, i): TranscriptItem =>
        i % 2 === 0
          ? { id: `e_f${from + i}`, kind: 'user', text: `Question ${from + i}` }
          : { id: `e_f${from + i}`, kind: 'assistant', markdown: `Answer ${from + i}, in a paragraph long enough to wrap once or twice in a narrow side bar.` },
    );
  const items: TranscriptItem[] = [
    { id: 'e_u1', kind: 'user', text: 'Read the loader.' },
    { id: 'e_a1', kind: 'assistant', markdown: 'It reads the file line by line.' },
    ...filler(0),
    ...middle,
    ...filler(100),
  ];
  return { ...(snapshot as Extract<HostToWebview, { type: 'snapshot' }>), approvals: [], plan: [], transcript: { items, hasMore: false } };
}

const SECOND: TranscriptItem[] = [
  { id: 'e_u2', kind: 'user', text: LONG, branch: { index: 2, count: 3, previous: 'e_u0', next: 'e_u3' } },
  { id: 'e_a2', kind: 'assistant', markdown: 'Done: damaged lines are skipped.', branch: { index: 1, count: 2, next: 'e_u5' } },
];
const THIRD: TranscriptItem[] = [
  { id: 'e_u3', kind: 'user', text: 'Refactor the loader, keep it short.', branch: { index: 3, count: 3, previous: 'e_u2' } },
  { id: 'e_a3', kind: 'assistant', markdown: 'Done.' },
];

/** Boxes of the switchers' parts and every other button in the same item: pairs that overlap, and parts outside their item. */
const LAYOUT = `(() => {
  const out = [];
  for (const group of document.querySelectorAll('.branch-switcher')) {
    const item = group.closest('.item'); const box = item.getBoundingClientRect();
    const parts = Array.from(item.querySelectorAll('button, .branch-count')).filter((e) => e.getClientRects().length > 0);
    for (const p of group.querySelectorAll('button, .branch-count')) { const r = p.getBoundingClientRect(); if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.push('outside: ' + (p.getAttribute('aria-label') || p.textContent)); }
    for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
      const r = parts[i].getBoundingClientRect(), s = parts[j].getBoundingClientRect();
      const w = Math.min(r.right, s.right) - Math.max(r.left, s.left), hh = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
      if (w > 1 && hh > 1) out.push((parts[i].getAttribute('aria-label') || parts[i].textContent) + ' × ' + (parts[j].getAttribute('aria-label') || parts[j].textContent));
    }
  }
  return out;
})()`;

test('the switcher is drawn from the branch info, labelled, disabled at the ends, and posts the neighbouring branch', async () => {
  await scenario(browser, 'branch-switcher', async (h) => {
    await h.send(chat(SECOND));
    const msg = h.page.locator('[data-id="e_u2"]');
    const group = msg.getByRole('group', { name: 'Branch 2 of 3' });
    await group.waitFor();
    assert.equal(await group.locator('.branch-count').textContent(), '2/3');
    assert.equal(await group.locator('.branch-count').getAttribute('aria-hidden'), 'true', 'the group names the position; the digits are not read twice');
    assert.equal(await h.page.locator('[data-id="e_u1"] .branch-switcher').count(), 0, 'a message that does not fork has none');
    const answer = h.page.locator('[data-id="e_a2"]').getByRole('group', { name: 'Branch 1 of 2' });
    assert.equal(await answer.getByRole('button', { name: 'Previous branch' }).isDisabled(), true, 'nothing before the first branch');
    assert.equal(await answer.getByRole('button', { name: 'Next branch' }).isEnabled(), true);
    // Visible without hovering: the switcher says the message has branches.
    assert.equal(await h.value('getComputedStyle(document.querySelector(\'[data-id="e_u2"] .branch-switcher\')).opacity'), '1');

    await group.getByRole('button', { name: 'Next branch' }).click();
    await group.getByRole('button', { name: 'Previous branch' }).click();
    await answer.getByRole('button', { name: 'Next branch' }).click();
    assert.deepEqual(await switches(h), ['e_u3', 'e_u0', 'e_u5'], 'each posts the entry its branch starts with');
  });
});

test('keyboard: Enter and Space switch; the new branch keeps the fork where it was and the focus in its switcher', async () => {
  await scenario(browser, 'branch-switcher-keyboard', async (h) => {
    await h.send(chat(SECOND));
    const next = h.page.locator('[data-id="e_u2"]').getByRole('button', { name: 'Next branch' });
    await next.waitFor();
    // The fork at the top of the view: the item the view would otherwise keep in place is the one the switch replaces.
    await h.value("(document.querySelector('[data-id=\"e_u2\"]').scrollIntoView({ block: 'start' }), 0)");
    await next.focus();
    await h.page.keyboard.press('Space');
    await next.focus();
    await h.page.keyboard.press('Enter');
    assert.deepEqual(await switches(h), ['e_u3', 'e_u3']);
    const before = await h.value<number>('document.querySelector(\'[data-id="e_u2"]\').getBoundingClientRect().top');
    await h.send(chat(THIRD));
    await h.page.locator('[data-id="e_u3"]').getByRole('group', { name: 'Branch 3 of 3' }).waitFor();
    const after = await h.value<number>('document.querySelector(\'[data-id="e_u3"]\').getBoundingClientRect().top');
    assert.ok(Math.abs(after - before) <= 1, `the fork stays in place (${before} → ${after})`);
    // › is not offered on the last branch, so the focus stays in the switcher on ‹.
    assert.equal(await h.value("document.activeElement?.getAttribute('aria-label')"), 'Previous branch');
    assert.equal(await h.value("document.activeElement?.closest('[data-id]')?.getAttribute('data-id')"), 'e_u3');
    await h.page.keyboard.press('Enter');
    assert.deepEqual((await switches(h)).at(-1), 'e_u2', 'and works from there at once');
  });
});

for (const width of [170, 292]) {
  test(`at ${width} px the switcher fits its item and overlaps no other control`, async () => {
    await scenario(
      browser,
      `branch-switcher-${width}`,
      async (h) => {
        await h.send(chat(SECOND));
        await h.page.locator('.branch-switcher').first().waitFor();
        // Hover actions show on hover: measure with them visible too.
        await h.page.locator('[data-id="e_u2"]').hover();
        assert.deepEqual(await h.value<string[]>(LAYOUT), [], `${width}px: overlapping or clipped parts`);
        await h.page.locator('[data-id="e_a2"]').hover();
        assert.deepEqual(await h.value<string[]>(LAYOUT), [], `${width}px: overlapping or clipped parts (answer hovered)`);
        await h.screenshot(`branch-switcher-${width}`);
      },
      { width, height: 700 },
    );
  });
}

test("Retry's switcher on the answer: the other branch's answer and its switcher take this one's place", async () => {
  await scenario(browser, 'branch-switcher-retry', async (h) => {
    const retry = (n: 1 | 2): TranscriptItem[] => [
      { id: `e_q${n}`, kind: 'user', text: 'Why does the loader skip lines?' },
      {
        id: `e_r${n}`,
        kind: 'assistant',
        markdown: n === 1 ? 'Because they are damaged.' : 'It skips lines it cannot parse.',
        branch: n === 1 ? { index: 1, count: 2, next: 'e_q2' } : { index: 2, count: 2, previous: 'e_q1' },
      },
    ];
    await h.send(chat(retry(1)));
    const first = h.page.locator('[data-id="e_r1"]').getByRole('group', { name: 'Branch 1 of 2' });
    await first.waitFor();
    await h.value("(document.querySelector('[data-id=\"e_q1\"]').scrollIntoView({ block: 'start' }), 0)");
    const before = await h.value<number>('document.querySelector(\'[data-id="e_r1"] .branch-switcher\').getBoundingClientRect().top');
    await first.getByRole('button', { name: 'Next branch' }).click();
    assert.deepEqual(await switches(h), ['e_q2'], 'the switch names the question of the other branch');
    await h.send(chat(retry(2)));
    await h.page.locator('[data-id="e_r2"]').getByRole('group', { name: 'Branch 2 of 2' }).waitFor();
    const after = await h.value<number>('document.querySelector(\'[data-id="e_r2"] .branch-switcher\').getBoundingClientRect().top');
    assert.ok(Math.abs(after - before) <= 1, `the switcher stays in place (${before} → ${after})`);
    assert.equal(await h.value("document.activeElement?.closest('[data-id]')?.getAttribute('data-id')"), 'e_r2', "the focus is in the answer's switcher");
  });
});
