// Slash-command completion, in plain Node: what the popup offers for a draft, and when it steps aside.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SLASH_COMMANDS, completionsFor, isExact } from '../../webview/slashCommands.js';

const labels = (draft: string, cks: readonly string[] = []): string[] => completionsFor(draft, cks).map((c) => c.label);

test('every command of the spec is offered for a bare slash', () => {
  assert.deepEqual(
    labels('/'),
    SLASH_COMMANDS.map((c) => c.label),
  );
  for (const c of [
    '/compact [focus]',
    '/budget',
    '/auto-compact on',
    '/auto-compact off',
    '/capsule',
    '/capsule create "title"',
    '/capsule export ck_… path',
    '/capsule load path',
  ])
    assert.ok(labels('/').includes(c), c);
});

test('typing narrows the list, case-insensitively', () => {
  assert.deepEqual(labels('/au'), ['/auto-compact on', '/auto-compact off']);
  assert.deepEqual(labels('/AUTO-COMPACT OF'), ['/auto-compact off']);
  assert.deepEqual(labels('/bu'), ['/budget']);
  assert.deepEqual(labels('/nothing'), []);
});

test('an exact command comes first so Enter sends it; its longer forms still follow', () => {
  const c = completionsFor('/capsule');
  assert.equal(c[0]?.label, '/capsule');
  assert.ok(c[0] && isExact(c[0], '/capsule'));
  assert.deepEqual(
    c.slice(1).map((x) => x.label),
    ['/capsule create "title"', '/capsule export ck_… path', '/capsule load path'],
  );
});

test('plain text, multi-line drafts and drafts with arguments get no popup', () => {
  assert.deepEqual(labels('hello /compact'), []);
  assert.deepEqual(labels('/compact\nmore'), []);
  assert.deepEqual(labels('/compact focus on auth'), []);
  assert.deepEqual(labels(''), []);
});

test('/capsule export completes checkpoint ids of the chat, then steps aside for the path', () => {
  const cks = ['ck_new', 'ck_old', 'ck_nap'];
  assert.deepEqual(labels('/capsule export ', cks), ['/capsule export ck_new', '/capsule export ck_old', '/capsule export ck_nap']);
  assert.deepEqual(labels('/capsule export ck_n', cks), ['/capsule export ck_new', '/capsule export ck_nap']);
  assert.equal(completionsFor('/capsule export ck_n', cks)[0]?.insert, '/capsule export ck_new ');
  assert.deepEqual(labels('/capsule export ck_new ./x.capsule.md', cks), []);
});
