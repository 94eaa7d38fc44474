// list_files: sorted entries with folders marked, .git and node_modules not expanded, a cap with a message, files and missing folders refused.
import assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { files, makeHost, workspace } from './toolHelpers.js';

test('lists one level by default, sorted, folders ending in "/"', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'b.txt': '', 'a.txt': '', 'src/index.ts': '', 'Z.md': '' });
  const { call } = makeHost(ws);
  const r = await call('list_files', {});
  assert.deepEqual(r, { isError: false, content: ['Z.md', 'a.txt', 'b.txt', 'src/'].join('\n') });
});

test('recursive listing gives workspace-relative paths and does not expand .git or node_modules', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, {
    'src/a.ts': '',
    'src/lib/b.ts': '',
    '.git/HEAD': 'ref: x',
    'node_modules/pkg/index.js': '',
    'README.md': '',
  });
  const { call } = makeHost(ws);
  const r = await call('list_files', { recursive: true });
  assert.equal(r.isError, false);
  assert.deepEqual(r.content.split('\n'), [
    '.git/',
    'README.md',
    'node_modules/',
    'src/',
    'src/a.ts',
    'src/lib/',
    'src/lib/b.ts',
    '[Not expanded: .git, node_modules; list such a folder by its path to see inside.]',
  ]);
  const sub = await call('list_files', { path: 'src', recursive: 'true' });
  assert.equal(sub.content, 'src/a.ts\nsrc/lib/\nsrc/lib/b.ts');
  const inside = await call('list_files', { path: 'node_modules/pkg' });
  assert.equal(inside.content, 'node_modules/pkg/index.js', 'asked for by path, a skipped folder is listed');
});

test('the entry cap stops the listing and says how to see more', async (t) => {
  const { ws } = await workspace(t);
  const many: Record<string, string> = {};
  for (let i = 0; i < 30; i++) many[`f${String(i).padStart(2, '0')}.txt`] = '';
  await files(ws, many);
  const { call } = makeHost(ws, { limits: { listDefaultEntries: 10, listMaxEntries: 20 } });
  const r = await call('list_files', {});
  const lines = r.content.split('\n');
  assert.equal(lines.length, 11);
  assert.equal(lines[9], 'f09.txt');
  // The last line is a bracketed note with the count, and the argument (with its ceiling) that lists more.
  assert.match(lines[10] ?? '', /^\[Stopped at 10 entries\b.*\bmaxEntries\b.*\b20\b.*\]$/);
  const exact = await call('list_files', { maxEntries: 20 });
  const last = exact.content.split('\n').at(-1) ?? '';
  assert.match(last, /^\[Stopped at 20 entries\b.*\]$/);
  assert.doesNotMatch(last, /maxEntries/, 'at the ceiling, a larger maxEntries is not offered');
  const tooMany = await call('list_files', { maxEntries: 21 });
  assert.equal(tooMany.isError, true);
  assert.match(tooMany.content, /"maxEntries": an integer from 1 to 20/);
  const all = await call('list_files', { maxEntries: 20, path: '.' });
  assert.equal(all.content.split('\n').length, 21);
});

test('a listing that exactly fills the cap has no "more" message', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { a: '', b: '', c: '' });
  const { call } = makeHost(ws);
  assert.equal((await call('list_files', { maxEntries: 3 })).content, 'a\nb\nc');
});

test('symlinked folders inside the workspace are shown but not walked (no loops)', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'd/x.txt': '' });
  await symlink(ws, join(ws, 'd', 'loop'));
  const { call } = makeHost(ws);
  const r = await call('list_files', { recursive: true });
  assert.deepEqual(r.content.split('\n'), ['d/', 'd/loop/', 'd/x.txt']);
});

test('files, missing folders and empty folders get clear answers', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.txt': 'x', 'empty/.keep': '' });
  const { call } = makeHost(ws);
  const file = await call('list_files', { path: 'a.txt' });
  assert.equal(file.isError, true);
  assert.match(file.content, /is a file, not a folder; use read_file/);
  const missing = await call('list_files', { path: 'nope' });
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Folder not found: "nope"/);
  assert.equal((await call('list_files', { path: 'empty' })).content, 'empty/.keep');
  await mkdir(join(ws, 'void'));
  assert.deepEqual(await call('list_files', { path: 'void' }), { isError: false, content: '(empty folder: "void" has no entries)' });
});
