// The flat front-matter subset of .capsule.md: what it reads, what it rejects (with line numbers), and render → parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderFrontMatter, splitFrontMatter } from '../../../src/engine/portable/capsuleFrontMatter.js';

function fields(text: string): Readonly<Record<string, string | number>> {
  const r = splitFrontMatter(text);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.fields;
}

function problem(text: string): string {
  const r = splitFrontMatter(text);
  assert.ok(!r.ok, 'expected a rejection');
  return r.message;
}

test('plain words, numbers, double and single quoted strings, comments and blank lines', () => {
  const text = [
    '---',
    'capsule: 1                      # format version',
    'id: cap_abc',
    'title: "handoff \\"auth\\" work"',
    "note: 'it''s here' # trailing comment",
    '',
    '# a whole-line comment',
    'created: 2026-11-29T12:00:00Z',
    'tokens: 2840',
    'ratio: 0.5',
    'hash: sha256:ab#cd',
    '---',
    '## Goal',
  ].join('\n');
  assert.deepEqual(fields(text), {
    capsule: 1,
    id: 'cap_abc',
    title: 'handoff "auth" work',
    note: "it's here",
    created: '2026-11-29T12:00:00Z',
    tokens: 2840,
    ratio: 0.5,
    hash: 'sha256:ab#cd',
  });
});

test('the body is every byte after the closing delimiter line, CRLF front matter included', () => {
  const r = splitFrontMatter('---\r\nid: x\r\n---\r\n## Goal\r\nbody\r\n');
  assert.ok(r.ok);
  assert.equal(r.body, '## Goal\r\nbody\r\n');
  assert.equal(r.fields.id, 'x');
  const empty = splitFrontMatter('---\nid: x\n---');
  assert.ok(empty.ok);
  assert.equal(empty.body, '');
});

test('a file without front matter, or with an unclosed block, is not a capsule file', () => {
  assert.match(problem('## Goal\nship it\n'), /does not start with a `---` front matter block/);
  assert.match(problem('---\nid: x\n## Goal\nship it\n'), /front matter line 4: expected `key: value`/);
  assert.match(problem('---\nid: x\n'), /not closed/);
});

test('anything outside the flat subset is rejected with its line number', () => {
  assert.match(problem('---\nid: x\nid: y\n---\n'), /line 3: duplicate key 'id'/);
  assert.match(problem('---\nmeta:\n  nested: 1\n---\n'), /line 2: 'meta' has no value/);
  assert.match(problem('---\nid: x\n  nested: 1\n---\n'), /line 3: indented/);
  assert.match(problem('---\ntags: [a, b]\n---\n'), /line 2: 'tags': lists, maps and block values are not supported/);
  assert.match(problem('---\ntitle: |\n---\n'), /block values/);
  assert.match(problem('---\ntitle: "open\n---\n'), /unterminated double-quoted/);
  assert.match(problem('---\ntitle: "bad \\q escape"\n---\n'), /unsupported escape/);
  assert.match(problem('---\n- item\n---\n'), /expected `key: value`/);
});

test('render then split gives back every value, whatever characters a title holds', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), fc.integer({ min: 0, max: 1_000_000 }), (title, tokens) => {
      const text = `${renderFrontMatter([
        ['title', title],
        ['tokens', tokens],
        ['skipped', undefined],
      ])}body`;
      const r = splitFrontMatter(text);
      if (title === '') {
        // An empty value is written as "" and read back as the empty string.
        assert.ok(r.ok);
        assert.equal(r.fields.title, '');
        return;
      }
      assert.ok(r.ok, r.ok ? '' : r.message);
      assert.deepEqual(r.fields, { title, tokens });
      assert.equal(r.body, 'body');
    }),
    { numRuns: 300 },
  );
});

test('strings that look like numbers or YAML keywords are quoted, so they stay strings', () => {
  const text = renderFrontMatter([
    ['a', '42'],
    ['b', 'true'],
    ['c', 'null'],
    ['d', 'key: value'],
    ['e', 'ck_ok-1'],
  ]);
  assert.match(text, /^a: "42"$/m);
  assert.match(text, /^b: "true"$/m);
  assert.match(text, /^e: ck_ok-1$/m);
  const r = splitFrontMatter(text);
  assert.ok(r.ok);
  assert.deepEqual(r.fields, { a: '42', b: 'true', c: 'null', d: 'key: value', e: 'ck_ok-1' });
});
