// Plain words in the chat: a loaded capsule is not a "compaction 0 → 694", ids live only in details, and a skipped compaction says what it means.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { card, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, scenario } from './harness.js';

const browser = browserForFile();

/** Visible text of the chat with the closed details' content left out (what the user reads without opening anything). */
const VISIBLE_TEXT = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.querySelector('#root'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || !el.checkVisibility() || el.closest('.sr-only')) continue;
    out.push(n.data);
  }
  return out.join(' ');
})()`;

test('a loaded capsule says "Capsule loaded" and what it adds; a compaction card and a checkpoint row show no ids outside their details', async () => {
  await scenario(
    browser,
    'plain-words-cards',
    async (h) => {
      const loaded = { ...card, checkpointId: 'ck_load1', trigger: 'user' as const, tokensBefore: 0, tokensAfter: 694, quality: 'full' as const, loaded: true, level: 0 };
      await h.send({
        ...snapshot,
        transcript: {
          hasMore: false,
          items: [
            { id: 'k1', kind: 'compaction', card: loaded },
            { id: 'c1', kind: 'checkpoint', checkpointId: 'ck_auto9', checkpointKind: 'auto' },
            { id: 'k2', kind: 'compaction', card: { ...card, quality: 'full' } },
          ],
        },
      });
      await h.until("!!document.querySelector('[data-id=\"k2\"] .card')", 'the cards');
      assert.equal(await h.value("document.querySelector('[data-id=\"k1\"] .card-title').textContent"), 'Capsule loaded');
      const k1 = await h.value<string>("document.querySelector('[data-id=\"k1\"] .card-figures').textContent");
      assert.match(k1, /adds 694 tokens of context/);
      assert.doesNotMatch(k1, /0 → 694|reclaimed/);
      const shown = await h.value<string>(VISIBLE_TEXT);
      assert.doesNotMatch(shown, /\b(ck|e|cap)_[A-Za-z0-9]+/, `an id in plain view: ${shown.slice(0, 400)}`);
      await h.page.locator('[data-id="k2"] .card-breakdown summary').click();
      assert.equal(await h.value("document.querySelector('[data-id=\"k2\"] code.ck').textContent"), 'ck_abc123', 'the id is in the details');
      await h.send({ type: 'barrier', phase: 'end', operationId: 'op_1', trigger: 'auto_threshold', percent: 100, line: 'Not compacted: too little of the chat is old enough to summarize yet, so nothing changed. It will compact later, when it frees more.', result: { outcome: 'skipped', tokensBefore: 3000, durationMs: 10 } });
      assert.match(await h.value<string>("document.querySelector('.barrier-result').textContent"), /^Not compacted: too little/);
      await h.screenshot('plain-words-cards');
    },
    { width: 292, height: 720 },
  );
});

test('after a rewind to before a compaction the capsule viewer does not stay open on the branch just left', async () => {
  await scenario(
    browser,
    'viewer-after-rewind',
    async (h) => {
      const items = [
        { id: 'u1', kind: 'user' as const, text: 'First task' },
        { id: 'k1', kind: 'compaction' as const, card: { ...card, quality: 'full' as const } },
        { id: 'u2', kind: 'user' as const, text: 'Second task' },
      ];
      await h.send({ ...snapshot, transcript: { items, hasMore: false } });
      await h.page.locator('[data-id="k1"] button[data-action="view-capsule"]').click();
      await h.until("!!document.querySelector('[role=dialog]')", 'the viewer');
      // The same chat, another snapshot that still has the capsule (a model switch): the viewer stays.
      await h.send({ ...snapshot, transcript: { items, hasMore: false } });
      assert.equal(await h.value("!!document.querySelector('[role=dialog]')"), true, 'a snapshot of the same branch keeps it');
      // The rewind's snapshot: the branch before the compaction.
      await h.send({ ...snapshot, transcript: { items: [items[0] as (typeof items)[number]], hasMore: false } });
      await h.until("!document.querySelector('[role=dialog]')", 'the viewer to close');
      assert.match(await h.value<string>("document.querySelector('.banners').textContent"), /moved to another branch/);
    },
    { width: 292, height: 600 },
  );
});
