// search: ripgrep with workspace-relative "path:line: text" results, plain text or regex, a result cap, and clear errors (bad regex, no rg).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { files, makeHost, workspace } from './toolHelpers.js';

test('finds plain text with workspace-relative paths and line numbers, sorted by path', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, {
    'src/b.ts': 'let x = 1;\nconst needle = "a.b";\n',
    'src/a.ts': 'needle here\n',
    'docs/x.md': 'no match\n',
  });
  const { call } = makeHost(ws);
  const r = await call('search', { query: 'needle' });
  assert.deepEqual(r, { isError: false, content: 'src/a.ts:1:needle here\nsrc/b.ts:2:const needle = "a.b";' });
});

test('plain text by default, regex on request; an invalid regex is a tool error', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'f.txt': 'a.b\naxb\n' });
  const { call } = makeHost(ws);
  assert.equal((await call('search', { query: 'a.b' })).content, 'f.txt:1:a.b');
  assert.equal((await call('search', { query: 'a.b', regex: true })).content, 'f.txt:1:a.b\nf.txt:2:axb');
  const bad = await call('search', { query: 'a(', regex: true });
  assert.equal(bad.isError, true);
  assert.match(bad.content, /search failed: .*regex parse error/s);
  const dash = await call('search', { query: '--help' });
  assert.equal(dash.isError, false, 'a query starting with dashes is a pattern, not an option');
  assert.match(dash.content, /No matches for "--help" in the workspace/);
});

test('the path argument narrows the search; node_modules and .git are skipped; hidden files are searched', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, {
    'src/a.ts': 'token\n',
    'test/a.test.ts': 'token\n',
    'node_modules/p/i.js': 'token\n',
    '.git/config': 'token\n',
    '.github/ci.yml': 'token\n',
    'weird:name.txt': 'token\n',
  });
  const { call } = makeHost(ws);
  assert.equal((await call('search', { query: 'token', path: 'src' })).content, 'src/a.ts:1:token');
  assert.equal((await call('search', { query: 'token', path: 'src/a.ts' })).content, 'src/a.ts:1:token');
  const all = await call('search', { query: 'token' });
  assert.deepEqual(all.content.split('\n'), ['.github/ci.yml:1:token', 'src/a.ts:1:token', 'test/a.test.ts:1:token', 'weird:name.txt:1:token']);
});

test('the result cap stops ripgrep and says how to narrow', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'many.txt': 'hit\n'.repeat(5_000) });
  const { call } = makeHost(ws, { limits: { searchDefaultResults: 5, searchMaxResults: 50 } });
  const r = await call('search', { query: 'hit' });
  const lines = r.content.split('\n');
  assert.equal(lines.length, 6);
  assert.equal(lines[4], 'many.txt:5:hit');
  assert.match(
    lines[5] ?? '',
    /^\[Stopped at 5 matches\b.*\bmaxResults\b.*\b50\b.*\]$/,
    'a bracketed note with the count, and the argument (with its ceiling) that shows more',
  );
  const exact = await call('search', { query: 'hit', path: 'many.txt', maxResults: 50 });
  assert.equal(exact.content.split('\n').length, 51);
});

test('very long matching lines are shortened', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'min.js': 'q'.repeat(10_000) + 'FIND' + 'q'.repeat(10_000) + '\n' });
  const { call } = makeHost(ws, { limits: { searchLineChars: 200 } });
  const r = await call('search', { query: 'FIND' });
  assert.equal(r.isError, false);
  assert.ok(r.content.length < 400, `got ${r.content.length} characters`);
  assert.match(r.content, /^min\.js:1:q+ \[\.\.\. omitted end of long line\]$/);
});

test('no matches is a normal answer; a missing ripgrep is a clear tool error', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.txt': 'x\n' });
  const none = await makeHost(ws).call('search', { query: 'absent', path: 'a.txt' });
  assert.deepEqual(none, { isError: false, content: 'No matches for "absent" in "a.txt".' });
  const noRg = await makeHost(ws, { ripgrepPath: '/nonexistent/rg' }).call('search', { query: 'x' });
  assert.equal(noRg.isError, true);
  assert.match(noRg.content, /ripgrep \("\/nonexistent\/rg"\) was not found/);
  const missing = await makeHost(ws).call('search', { query: 'x', path: 'gone' });
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Path not found: "gone"/);
});
