// Model output is inert: raw HTML, event handlers, scripts and javascript:/data: links never run, anywhere the view shows text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capsule, snapshot } from '../unit/protocol/samples.js';
import { browserForFile, scenario, type Harness } from './harness.js';

const browser = browserForFile();

/** Each payload would set window.__pwned if it ever ran. */
const PAYLOADS = [
  '<img src=x onerror="window.__pwned=\'img\'">',
  '<script>window.__pwned="script"</script>',
  '[click me](javascript:window.__pwned="link")',
  '<a href="javascript:window.__pwned=\'raw-a\'">raw anchor</a>',
  '[spaced]( javascript:window.__pwned="spaced")',
  '[entity](&#106;avascript:window.__pwned="entity")',
  '[upper](JaVaScRiPt:window.__pwned="upper")',
  '<javascript:window.__pwned="autolink">',
  '[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0iZGF0YSI8L3NjcmlwdD4=)',
  '![pic](x" onerror="window.__pwned=\'alt\')',
  '<svg onload="window.__pwned=\'svg\'"></svg>',
  '<iframe src="javascript:window.__pwned=\'iframe\'"></iframe>',
  '<style>body { display: none }</style>',
  '<details open ontoggle="window.__pwned=\'toggle\'">x</details>',
  '```js" onmouseover="window.__pwned=\'fence\'\ncode\n```',
  '[ok](https://example.com/safe)',
].join('\n\n');

async function assertInert(h: Harness): Promise<void> {
  assert.equal(await h.value('typeof window.__pwned'), 'undefined', 'a payload ran');
  const handlers = await h.value<string[]>(
    "Array.from(document.querySelectorAll('*')).flatMap((e) => Array.from(e.attributes).filter((a) => /^on/i.test(a.name)).map((a) => e.tagName + ' ' + a.name))",
  );
  assert.deepEqual(handlers, [], 'an element carries an event-handler attribute');
  assert.equal(await h.value("document.querySelectorAll('script').length"), 1, 'only the bundle may be a script');
  assert.equal(
    await h.value("document.querySelectorAll('#root img, #root iframe, #root svg, #root style, #root object, #root embed, #root form').length"),
    0,
    'raw HTML became elements',
  );
  // Links keep their target in data-href (VS Code's frame would open an href itself): both are checked.
  const hrefs = await h.value<string[]>(
    "Array.from(document.querySelectorAll('#root a[href], #root a[data-href]')).map((a) => a.getAttribute('href') ?? a.getAttribute('data-href'))",
  );
  for (const href of hrefs) assert.doesNotMatch(href.replace(/[\u0000-\u0020]/g, ''), /^(javascript|data|vbscript|file):/i, `unsafe link ${href}`);
  assert.equal(await h.value('document.querySelectorAll(\'[style*="display: none"], body[style]\').length'), 0);
}

test('raw HTML, handlers, scripts and javascript:/data: links in model output are inert, and clicking them does nothing', async () => {
  await scenario(browser, 'xss-markdown', async (h) => {
    await h.send({ ...snapshot, transcript: { items: [{ id: 'bad', kind: 'assistant', markdown: PAYLOADS }], hasMore: false } });
    await assertInert(h);
    const shown = await h.value<string>('document.querySelector(\'[data-id="bad"] .markdown\').textContent');
    assert.ok(shown.includes('<img src=x onerror='), 'raw HTML is shown as text');
    assert.ok(shown.includes('<script>window.__pwned="script"</script>'));
    const url = h.page.url();
    const links = h.page.locator('[data-id="bad"] a');
    const n = await links.count();
    for (let i = 0; i < n; i++) await links.nth(i).click();
    await assertInert(h);
    assert.equal(h.page.url(), url, 'a click navigated the view');
    assert.deepEqual(await h.frameOpened(), [], "VS Code's frame was given no link to open");
    const opened = (await h.posted()).filter((m) => m.type === 'openLink').map((m) => (m.type === 'openLink' ? m.href : ''));
    assert.ok(opened.includes('https://example.com/safe'));
    for (const href of opened) assert.match(href, /^https?:/, `the host was asked to open ${href}`);
  });
});

test('payloads split across stream deltas stay inert', async () => {
  await scenario(browser, 'xss-stream', async (h) => {
    await h.send({ ...snapshot, transcript: { items: [{ id: 's', kind: 'assistant', markdown: '', streaming: true }], hasMore: false } });
    for (let i = 0; i < PAYLOADS.length; i += 7) await h.send({ type: 'streamDelta', itemId: 's', text: PAYLOADS.slice(i, i + 7) });
    await h.until("document.querySelector('[data-id=\"s\"] .markdown').textContent.includes('raw anchor')", 'the streamed payloads');
    await assertInert(h);
    await h.send({ type: 'streamEnd', itemId: 's' });
    await assertInert(h);
  });
});

test('every other place that shows host text treats it as text: user messages, tools, errors, notices, cards, the capsule viewer', async () => {
  await scenario(browser, 'xss-elsewhere', async (h) => {
    const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    await h.send({
      ...snapshot,
      session: { id: 's', title: evil, createdAt: 'x', entries: 1, readOnly: true, readOnlyReason: evil, problems: 0 },
      settings: { ...snapshot.settings, warning: evil },
      transcript: {
        items: [
          { id: 'u', kind: 'user', text: evil },
          { id: 't', kind: 'tool', name: evil, argsSummary: evil, status: 'error', resultPreview: evil },
          { id: 'e', kind: 'error', text: evil },
          { id: 'i', kind: 'info', text: evil },
          { id: 'c', kind: 'checkpoint', checkpointId: 'ck_x', checkpointKind: 'user', note: evil },
        ],
        hasMore: false,
      },
      queue: [{ id: 'q', text: evil }],
      models: [{ ...snapshot.models[0], label: evil, id: 'm' } as (typeof snapshot.models)[number]],
    });
    await h.send({ type: 'notice', level: 'error', text: evil });
    await h.send({ type: 'barrier', phase: 'end', operationId: 'o', trigger: 'user', percent: 100, line: evil });
    await assertInert(h);
    assert.equal(await h.value('document.querySelector(\'[data-id="u"] .user-text\').textContent'), evil);
    await h.page.locator('[data-id="c"] button[data-action="rewind"]').click();
    await h.send({
      type: 'itemsAppended',
      items: [
        {
          id: 'k',
          kind: 'compaction',
          card: { ...snapshot.transcript.items.flatMap((it) => (it.kind === 'compaction' ? [it.card] : []))[0], fallbackReason: evil },
        },
      ],
    } as never);
    await h.page.locator('[data-id="k"] button[data-action="view-capsule"]').click();
    await h.send({
      type: 'capsule',
      capsule: {
        ...capsule,
        title: evil,
        sections: [{ name: evil, body: PAYLOADS }],
        ledger: PAYLOADS,
        text: evil,
        previous: { checkpointId: 'ck_p', text: PAYLOADS },
      },
    });
    for (const tab of ['#tab-sections', '#tab-ledger', '#tab-diff']) {
      await h.page.locator(tab).click();
      await assertInert(h);
    }
  });
});
