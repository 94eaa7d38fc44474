// `@` file completion and file links in Chromium: the popup's keyboard (arrows, Enter/Tab, Escape), its listbox roles, attachments on send, links only for known paths, Show diff.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { WebviewToHost } from '../../src/protocol/messages.js';
import { capsule, snapshot } from '../unit/protocol/samples.js';
import { ensureBundle, launchBrowser, scenario, type Harness } from './harness.js';

let browser: Browser;
before(async () => {
  await ensureBundle();
  browser = await launchBrowser();
});
after(async () => browser?.close());

const ofType = async <T extends WebviewToHost['type']>(h: Harness, type: T): Promise<Extract<WebviewToHost, { type: T }>[]> =>
  (await h.posted()).filter((m): m is Extract<WebviewToHost, { type: T }> => m.type === type);

/** Answers the webview's search for `query` (once its debounce has passed) with `files`. */
async function answer(h: Harness, query: string, files: readonly string[]): Promise<void> {
  await h.until(`window.__posted.some((m) => m.type === 'findFiles' && m.query === ${JSON.stringify(query)})`, `a file search for ${query}`);
  const asked = (await ofType(h, 'findFiles')).filter((m) => m.query === query).pop();
  assert.ok(asked);
  await h.send({ type: 'fileMatches', requestId: asked.requestId, query: asked.query, files: [...files] });
}

test('@ opens a listbox of files; arrows move the active option, Enter picks it, the file goes with the message', async () => {
  await scenario(browser, 'at-file-keyboard', async (h) => {
    await h.send(snapshot);
    const box = h.page.locator('.composer textarea');
    await box.click();
    await box.pressSequentially('explain @ap');
    await answer(h, 'ap', ['src/app.ts', 'src/lib/apply.ts', 'test/app.test.ts']);
    await h.until("!document.querySelector('.slash-popup').classList.contains('hidden')", 'the popup');
    assert.equal(await h.value("document.querySelector('.slash-popup').getAttribute('role')"), 'listbox');
    assert.equal(await h.value("document.querySelector('.slash-popup').getAttribute('aria-label')"), 'Workspace files');
    assert.equal(await h.value("document.querySelectorAll('.slash-popup [role=option]').length"), 3);
    assert.equal((await ofType(h, 'findFiles')).pop()?.query, 'ap', 'the query is what follows the @');
    assert.equal(await box.getAttribute('aria-activedescendant'), 'slash-opt-0');
    await box.press('ArrowDown');
    assert.equal(await box.getAttribute('aria-activedescendant'), 'slash-opt-1');
    assert.equal(await h.value("document.getElementById('slash-opt-1').getAttribute('aria-selected')"), 'true');
    await box.press('ArrowUp');
    await box.press('ArrowUp');
    assert.equal(await box.getAttribute('aria-activedescendant'), 'slash-opt-2', 'wraps around');
    await box.press('Enter');
    assert.equal(await box.inputValue(), 'explain @test/app.test.ts ', 'Enter picks, it does not send');
    assert.equal((await ofType(h, 'send')).length, 0);
    assert.equal(await h.value("document.querySelector('.slash-popup').classList.contains('hidden')"), true);
    assert.match((await h.page.getByRole('list', { name: 'Attached files' }).textContent()) ?? '', /test\/app\.test\.ts/, 'shown as an attachment chip');
    await h.screenshot('at-file-picked');
    await box.press('Enter');
    const sent = (await ofType(h, 'send')).pop();
    assert.deepEqual(sent && { text: sent.text, attachments: sent.attachments }, {
      text: 'explain @test/app.test.ts ',
      attachments: [{ path: 'test/app.test.ts' }],
    });
    assert.equal(await h.value("document.querySelector('.attached:not(.images)').classList.contains('hidden')"), true, 'the chips go with the message');
  });
});

test('Tab picks too; Escape closes the list without sending; an edited mention no longer attaches; a stale answer is ignored', async () => {
  await scenario(browser, 'at-file-escape', async (h) => {
    await h.send(snapshot);
    const box = h.page.locator('.composer textarea');
    await box.click();
    await box.pressSequentially('@rea');
    await answer(h, 'rea', ['README.md']);
    await h.until("!document.querySelector('.slash-popup').classList.contains('hidden')", 'the popup');
    await box.press('Tab');
    assert.equal(await box.inputValue(), '@README.md ');
    await box.pressSequentially('and @x');
    await answer(h, 'x', ['x.ts']);
    await h.until("!document.querySelector('.slash-popup').classList.contains('hidden')", 'the popup again');
    await box.press('Escape');
    assert.equal(await h.value("document.querySelector('.slash-popup').classList.contains('hidden')"), true);
    assert.equal((await ofType(h, 'cancel')).length, 0, 'Escape closed the list, it did not stop anything');
    // An answer to an older search must not reopen the list.
    await h.send({ type: 'fileMatches', requestId: 0, query: 'x', files: ['x.ts'] });
    assert.equal(await h.value("document.querySelector('.slash-popup').classList.contains('hidden')"), true);
    await box.fill('@README.mdx please');
    await box.press('Enter');
    const sent = (await ofType(h, 'send')).pop();
    assert.equal(sent?.attachments, undefined, 'the mention was edited away');
  });
});

test('Add Selection inserts a mention at the caret; its range goes with the message', async () => {
  await scenario(browser, 'at-file-mention', async (h) => {
    await h.send(snapshot);
    const box = h.page.locator('.composer textarea');
    await box.fill('Look at');
    await h.send({ type: 'mention', mention: '@src/a.ts:3-9', attachment: { path: 'src/a.ts', startLine: 3, endLine: 9 } });
    await h.until("document.querySelector('.composer textarea').value === 'Look at @src/a.ts:3-9 '", 'the mention');
    await box.press('End');
    await box.pressSequentially('please');
    await box.press('Enter');
    assert.deepEqual((await ofType(h, 'send')).pop()?.attachments, [{ path: 'src/a.ts', startLine: 3, endLine: 9 }]);
  });
});

test('known paths in answers and tool rows are links that ask the host to open them; unknown ones and URLs stay text; Show diff asks for the diff', async () => {
  await scenario(browser, 'file-links', async (h) => {
    await h.send({
      ...snapshot,
      transcript: {
        hasMore: false,
        items: [
          {
            id: 'e_1',
            kind: 'assistant',
            markdown:
              'Fix `src/app.ts:12:3`, see src/lib/apply.ts, [the notes](docs/notes.md#L4) and src/gone.ts, not https://x.org/src/app.ts. <img src=x onerror=alert(1)>',
            links: ['src/app.ts', 'src/lib/apply.ts', 'docs/notes.md'],
          },
          {
            id: 'e_2/c1',
            kind: 'tool',
            name: 'edit_file',
            argsSummary: 'path: src/app.ts · oldText: a · newText: b',
            status: 'ok',
            resultPreview: 'Edited src/app.ts',
            links: ['src/app.ts'],
            diff: true,
          },
        ],
      },
    });
    await h.until("document.querySelectorAll('a.file-link').length >= 4", 'the links');
    const links = await h.value<[string, string | undefined][]>(
      'Array.from(document.querySelectorAll(\'[data-id="e_1"] a.file-link\')).map((a) => [a.dataset.path, a.dataset.line])',
    );
    assert.deepEqual(links, [
      ['src/app.ts', '12'],
      ['src/lib/apply.ts', undefined],
      ['docs/notes.md', '4'],
    ]);
    assert.equal(await h.value("document.querySelector('[data-id=\"e_1\"]').textContent.includes('src/gone.ts')"), true);
    assert.equal(
      await h.value("Array.from(document.querySelectorAll('a.file-link')).some((a) => a.dataset.path === 'src/gone.ts')"),
      false,
      'an unknown path is not a link',
    );
    assert.equal(await h.value("document.querySelectorAll('img, [onerror]').length"), 0, 'still sanitized');
    await h.page.locator('[data-id="e_1"] a.file-link', { hasText: 'src/app.ts:12:3' }).click();
    await h.page.locator('[data-id="e_2/c1"] .tool-args a.file-link').click();
    assert.deepEqual(
      (await ofType(h, 'openFile')).map((m) => [m.path, m.line, m.column]),
      [
        ['src/app.ts', 12, 3],
        ['src/app.ts', undefined, undefined],
      ],
    );
    assert.equal(await h.value('document.querySelector(\'[data-id="e_2/c1"] details\').open'), false, 'clicking the path does not toggle the row');
    assert.equal((await ofType(h, 'openLink')).length, 0);
    assert.deepEqual(await h.frameOpened(), [], "nothing for VS Code's frame to open itself");
    await h.page.locator('[data-id="e_2/c1"] button.show-diff').click();
    assert.deepEqual(
      (await ofType(h, 'showDiff')).map((m) => m.itemId),
      ['e_2/c1'],
    );
    await h.screenshot('file-links');
  });
});

test('the capsule viewer links the known paths of its sections and ledger', async () => {
  await scenario(browser, 'file-links-viewer', async (h) => {
    await h.send(snapshot);
    await h.send({ type: 'capsule', capsule: { ...capsule, links: ['src/auth.ts'] } });
    await h.until("document.querySelector('[role=dialog] .panel-sections a.file-link')", 'a link in the sections');
    await h.page.locator('[role=dialog] .panel-sections a.file-link').first().click();
    await h.page.locator('#tab-ledger').click();
    await h.until("document.querySelector('[role=dialog] .panel-ledger a.file-link')", 'a link in the ledger');
    await h.page.locator('[role=dialog] .panel-ledger a.file-link').first().click();
    await h.page.locator('[role=dialog] .panel-ledger a.file-link').first().focus();
    await h.page.keyboard.press('Enter');
    assert.deepEqual(
      (await ofType(h, 'openFile')).map((m) => m.path),
      ['src/auth.ts', 'src/auth.ts', 'src/auth.ts'],
      'click and Enter open the file through the host',
    );
    assert.deepEqual(await h.frameOpened(), [], 'VS Code\'s frame had no href to open beside the file (the stray "Not found" tab)');
    assert.equal(await h.value("document.querySelectorAll('#root a[href]').length"), 0, 'no link carries an href');
    await h.screenshot('path-link-viewer');
    assert.equal(
      await h.value("Array.from(document.querySelectorAll('[role=dialog] a.file-link')).some((a) => a.textContent.includes('npm test'))"),
      false,
      'a command is not a path',
    );
  });
});
