// Code blocks in answers: Insert at Cursor, Apply to File and New File beside Copy, each asking the host with the block's code and language.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

test('a code block offers Insert at Cursor, Apply to File, New File and Copy; each posts the code', async () => {
  await scenario(
    browser,
    'code-block-actions',
    async (h) => {
      const markdown = 'Use this:\n\n```ts\nexport const ok = check(token);\n```\n';
      await h.send({ ...snapshot, transcript: { items: [{ id: 'a1', kind: 'assistant', markdown }], hasMore: false } });
      await h.until('!!document.querySelector(\'[data-id="a1"] .code-block\')', 'the code block');
      const bar = h.page.locator('[data-id="a1"] .code-bar');
      assert.deepEqual(await bar.locator('button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label'))), [
        'Insert at Cursor',
        'Apply to File (the selection, or the whole file)',
        'New File with this code',
        'Copy code',
      ]);
      await bar.getByRole('button', { name: 'Insert at Cursor' }).click();
      await bar.getByRole('button', { name: 'Apply to File (the selection, or the whole file)' }).click();
      await bar.getByRole('button', { name: 'New File with this code' }).click();
      assert.deepEqual(
        (await ofType(h, 'codeBlock')).map((m) => [m.action, m.code, m.language]),
        [
          ['insert', 'export const ok = check(token);\n', 'ts'],
          ['apply', 'export const ok = check(token);\n', 'ts'],
          ['newFile', 'export const ok = check(token);\n', 'ts'],
        ],
      );
      await h.screenshot('code-block-actions');
    },
    { width: 292, height: 400 },
  );
});
