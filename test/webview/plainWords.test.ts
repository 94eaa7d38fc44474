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
      const loaded = {
        ...card,
        checkpointId: 'ck_load1',
        trigger: 'user' as const,
        tokensBefore: 0,
        tokensAfter: 694,
        quality: 'full' as const,
        loaded: true,
        level: 0,
      };
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
      await h.until('!!document.querySelector(\'[data-id="k2"] .card\')', 'the cards');
      assert.equal(await h.value('document.querySelector(\'[data-id="k1"] .card-title\').textContent'), 'Capsule loaded');
      const k1 = await h.value<string>('document.querySelector(\'[data-id="k1"] .card-figures\').textContent');
      assert.match(k1, /adds 694 tokens of context/);
      assert.doesNotMatch(k1, /0 → 694|reclaimed/);
      const shown = await h.value<string>(VISIBLE_TEXT);
      assert.doesNotMatch(shown, /\b(ck|e|cap)_[A-Za-z0-9]+/, `an id in plain view: ${shown.slice(0, 400)}`);
      await h.page.locator('[data-id="k2"] .card-breakdown summary').click();
      assert.equal(await h.value('document.querySelector(\'[data-id="k2"] code.ck\').textContent'), 'ck_abc123', 'the id is in the details');
      await h.send({
        type: 'barrier',
        phase: 'end',
        operationId: 'op_1',
        trigger: 'auto_threshold',
        percent: 100,
        line: 'Not compacted: too little of the chat is old enough to summarize yet, so nothing changed. It will compact later, when it frees more.',
        result: { outcome: 'skipped', tokensBefore: 3000, durationMs: 10 },
      });
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

test('after a /compact that fell back, the chat says why no Project Memory was written', async () => {
  await scenario(
    browser,
    'project-memory-not-written',
    async (h) => {
      const why =
        "Project Memory was not written: the model's summary could not be used (the answer had no capsule sections), so Capsule kept a simpler summary of its own. That is enough for this chat, but only a full-quality summary becomes Project Memory. Run /compact again when the model answers normally.";
      await h.send({
        ...snapshot,
        transcript: {
          hasMore: false,
          items: [
            { id: 'u1', kind: 'user', text: '/compact' },
            { id: 'k1', kind: 'compaction', card: { ...card, trigger: 'user', fallbackReason: 'the answer had no capsule sections' } },
            { id: 'i1', kind: 'info', text: why },
          ],
        },
      });
      await h.until('!!document.querySelector(\'[data-id="i1"]\')', 'the line');
      assert.match(await h.value<string>('document.querySelector(\'[data-id="i1"]\').textContent'), /^Project Memory was not written: /);
      await h.screenshot('project-memory-not-written');
    },
    { width: 292, height: 620 },
  );
});

test('Compact Up to Here on a message the last compaction already summarizes: one line, in words', async () => {
  await scenario(
    browser,
    'compact-up-to-here-refused',
    async (h) => {
      const items = [
        { id: 'u1', kind: 'user' as const, text: 'Read the parser' },
        { id: 'k1', kind: 'compaction' as const, card: { ...card, trigger: 'user' as const, quality: 'full' as const } },
        { id: 'u2', kind: 'user' as const, text: 'Run the tests' },
        { id: 'x_1', kind: 'error' as const, text: 'Not compacted: the latest compaction already summarizes that message. Choose a later message.' },
      ];
      await h.send({ ...snapshot, transcript: { items, hasMore: false } });
      await h.until('!!document.querySelector(\'[data-id="x_1"]\')', 'the line');
      assert.doesNotMatch(await h.value<string>('document.querySelector(\'[data-id="x_1"]\').textContent'), /\be_[a-z0-9]/);
      await h.screenshot('compact-up-to-here-refused');
    },
    { width: 292, height: 620 },
  );
});
