// `@` mentions in plain Node: the query at the caret, what a pick inserts, and which attachments a draft still names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPick, attachmentsIn, mentionAt, mentionText } from '../../webview/mentions.js';

test('the query at the caret: after a space or at the start, never inside a word or an email', () => {
  assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
  assert.deepEqual(mentionAt('look at @src/ap', 15), { start: 8, query: 'src/ap' });
  assert.deepEqual(mentionAt('look at @"my fi', 15), { start: 8, query: 'my fi' });
  assert.equal(mentionAt('mail ann@example.com', 20), undefined);
  assert.equal(mentionAt('@src/a.ts done', 14), undefined, 'the caret left the mention');
  assert.equal(mentionAt('x @', 2), undefined, 'caret before the @');
});

test('a pick replaces the query with the mention and one space, keeping the rest', () => {
  const q = mentionAt('see @ap now', 7);
  assert.ok(q);
  assert.deepEqual(applyPick('see @ap now', q, 7, { path: 'src/app.ts' }), { value: 'see @src/app.ts now', caret: 16 });
  const q2 = mentionAt('@my', 3);
  assert.ok(q2);
  assert.equal(applyPick('@my', q2, 3, { path: 'docs/my notes.md' }).value, '@"docs/my notes.md" ');
  assert.equal(mentionText({ path: 'a.ts', startLine: 3, endLine: 9 }), '@a.ts:3-9');
  assert.equal(mentionText({ path: 'a.ts', startLine: 3, endLine: 3 }), '@a.ts:3');
});

test('only mentions still in the text attach, once each', () => {
  const picked = [{ path: 'a.ts' }, { path: 'b.ts' }, { path: 'a.ts' }, { path: 'c.ts', startLine: 2, endLine: 4 }];
  assert.deepEqual(attachmentsIn('explain @a.ts and @c.ts:2-4.', picked), [{ path: 'a.ts' }, { path: 'c.ts', startLine: 2, endLine: 4 }]);
  assert.deepEqual(attachmentsIn('explain @a.tsx', picked), [], 'an edited mention no longer attaches');
  assert.deepEqual(attachmentsIn('', picked), []);
});
