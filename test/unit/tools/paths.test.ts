// Confinement (docs/behaviour.md#agent): ../, absolute paths outside, symlinks out of the workspace and prefix-sharing siblings are refused by every tool.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isInside, resolveWorkspacePath } from '../../../src/node/tools/paths.js';
import { files, makeHost, workspace } from './toolHelpers.js';

test('isInside compares path segments, not string prefixes', () => {
  assert.equal(isInside('/ws', '/ws'), true);
  assert.equal(isInside('/ws', '/ws/a/b'), true);
  assert.equal(isInside('/ws', '/ws/..foo'), true, 'a name starting with two dots is still inside');
  assert.equal(isInside('/ws', '/ws-evil/secret.txt'), false);
  assert.equal(isInside('/ws', '/'), false);
  assert.equal(isInside('/ws', '/ws/../etc'), false);
});

test('../ traversal is refused by read, list, search, write, edit and run_command', async (t) => {
  const { ws, outside } = await workspace(t);
  await files(ws, { 'a.txt': 'hello\n' });
  const { call, asked } = makeHost(ws);
  const attempts = [
    call('read_file', { path: '../ws-evil/secret.txt' }),
    call('read_file', { path: 'sub/../../ws-evil/secret.txt' }),
    call('list_files', { path: '..' }),
    call('search', { query: 'SECRET', path: '../ws-evil' }),
    call('write_file', { path: '../ws-evil/new.txt', content: 'x' }),
    call('edit_file', { path: '../ws-evil/secret.txt', oldText: 'TOP', newText: 'NO' }),
    call('run_command', { command: 'echo hi', cwd: '..' }),
  ];
  for (const r of await Promise.all(attempts)) {
    assert.equal(r.isError, true, r.content);
    assert.match(r.content, /outside the workspace/);
    assert.doesNotMatch(r.content, /TOP SECRET/);
  }
  assert.equal(asked.length, 0, 'nothing outside was ever offered for approval');
  assert.equal(existsSync(join(outside, 'new.txt')), false);
  assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
});

test('absolute paths outside the workspace are refused; absolute paths inside it work', async (t) => {
  const { ws, outside } = await workspace(t);
  await files(ws, { 'a.txt': 'inside\n' });
  const { call } = makeHost(ws);
  for (const p of [join(outside, 'secret.txt'), '/etc/passwd', '/']) {
    const r = await call('read_file', { path: p });
    assert.equal(r.isError, true);
    assert.match(r.content, /outside the workspace/);
  }
  const w = await call('write_file', { path: join(outside, 'x.txt'), content: 'x' });
  assert.equal(w.isError, true);
  assert.equal(existsSync(join(outside, 'x.txt')), false);
  const ok = await call('read_file', { path: join(ws, 'a.txt') });
  assert.deepEqual(ok, { isError: false, content: '1\tinside' });
});

test('a sibling folder that shares the workspace name as a prefix is outside', async (t) => {
  const { ws, outside } = await workspace(t);
  assert.ok(outside.startsWith(ws), 'the fixture really shares the prefix');
  const { call } = makeHost(ws);
  for (const r of [
    await call('read_file', { path: outside + '/secret.txt' }),
    await call('list_files', { path: outside }),
    await call('search', { query: 'SECRET', path: outside }),
    await call('write_file', { path: outside + '/w.txt', content: 'x' }),
  ]) {
    assert.equal(r.isError, true);
    assert.match(r.content, /outside the workspace/);
  }
});

test('a symlink inside the workspace that points outside cannot be read, listed, searched or written through', async (t) => {
  const { ws, outside } = await workspace(t);
  await symlink(join(outside, 'secret.txt'), join(ws, 'leak.txt'));
  await symlink(outside, join(ws, 'leakdir'));
  const { call, asked } = makeHost(ws);
  const results = [
    await call('read_file', { path: 'leak.txt' }),
    await call('read_file', { path: 'leakdir/secret.txt' }),
    await call('list_files', { path: 'leakdir' }),
    await call('search', { query: 'SECRET', path: 'leakdir' }),
    await call('write_file', { path: 'leak.txt', content: 'overwritten' }),
    await call('write_file', { path: 'leakdir/planted.txt', content: 'x' }),
    await call('edit_file', { path: 'leak.txt', oldText: 'TOP', newText: 'NO' }),
    await call('run_command', { command: 'pwd', cwd: 'leakdir' }),
  ];
  for (const r of results) {
    assert.equal(r.isError, true, r.content);
    assert.match(r.content, /symbolic link to a location outside the workspace/);
    assert.doesNotMatch(r.content, /TOP SECRET/);
  }
  assert.equal(asked.length, 0);
  assert.equal(await readFile(join(outside, 'secret.txt'), 'utf8'), 'TOP SECRET\n');
  assert.equal(existsSync(join(outside, 'planted.txt')), false);
  // Listing the workspace shows the link but never walks through it.
  const list = await call('list_files', { recursive: true });
  assert.equal(list.isError, false);
  assert.doesNotMatch(list.content, /secret\.txt/);
  const search = await call('search', { query: 'SECRET' });
  assert.match(search.content, /No matches/);
});

test('a dangling symlink pointing outside cannot be used to create its target', async (t) => {
  const { ws, outside } = await workspace(t);
  await symlink(join(outside, 'created-by-agent.txt'), join(ws, 'dangling.txt'));
  await symlink(join(outside, 'newdir'), join(ws, 'danglingdir'));
  const { call } = makeHost(ws);
  const a = await call('write_file', { path: 'dangling.txt', content: 'x' });
  const b = await call('write_file', { path: 'danglingdir/f.txt', content: 'x' });
  for (const r of [a, b]) {
    assert.equal(r.isError, true);
    assert.match(r.content, /outside the workspace/);
  }
  assert.equal(existsSync(join(outside, 'created-by-agent.txt')), false);
  assert.equal(existsSync(join(outside, 'newdir')), false);
});

test('symlinks that stay inside the workspace are followed; writes land on the real file', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'real/target.txt': 'one\n' });
  await symlink(join(ws, 'real', 'target.txt'), join(ws, 'alias.txt'));
  const { call } = makeHost(ws);
  assert.deepEqual(await call('read_file', { path: 'alias.txt' }), { isError: false, content: '1\tone' });
  const w = await call('edit_file', { path: 'alias.txt', oldText: 'one', newText: 'two' });
  assert.equal(w.isError, false, w.content);
  assert.equal(await readFile(join(ws, 'real', 'target.txt'), 'utf8'), 'two\n');
  assert.equal(await readFile(join(ws, 'alias.txt'), 'utf8'), 'two\n', 'the link itself is still a link to the file');
});

test('a workspace reached through a symlinked root still confines correctly', async (t) => {
  const { ws, base } = await workspace(t);
  await files(ws, { 'a.txt': 'x\n' });
  const viaLink = join(base, 'link-to-ws');
  await symlink(ws, viaLink);
  const r = await resolveWorkspacePath([viaLink], 'a.txt');
  assert.equal(r.display, 'a.txt');
  assert.equal(r.exists, true);
  await assert.rejects(resolveWorkspacePath([viaLink], '../ws-evil/secret.txt'), /outside the workspace/);
});

test('multi-root: an absolute path inside the second root is allowed; relative paths use the first root', async (t) => {
  const { ws, base } = await workspace(t);
  const second = join(base, 'second');
  await mkdir(second);
  await files(second, { 'b.txt': 'bee\n' });
  await files(ws, { 'b.txt': 'first root\n' });
  const { call } = makeHost(ws, { roots: [ws, second] });
  assert.equal((await call('read_file', { path: 'b.txt' })).content, '1\tfirst root');
  assert.equal((await call('read_file', { path: join(second, 'b.txt') })).content, '1\tbee');
  const rel = await call('read_file', { path: '../second/b.txt' });
  assert.equal(rel.isError, false, 'a relative path that lands in another root is inside the workspace');
});

test('an empty path is a clear tool error', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws);
  const r = await call('read_file', { path: '   ' });
  assert.equal(r.isError, true);
  assert.match(r.content, /path is empty/);
});
