// write_file and edit_file: diffs shown for approval, refusal when declined or untrusted, unique-match edits, atomic writes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, readFile, readdir, realpath, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { files, makeHost, workspace } from './toolHelpers.js';

test('write_file creates a file (and its folders) after approval, showing a /dev/null diff', async (t) => {
  const { ws } = await workspace(t);
  const { call, asked } = makeHost(ws);
  const r = await call('write_file', { path: 'src/new/mod.ts', content: 'export const x = 1;\n' });
  assert.deepEqual(r, { isError: false, content: 'Created src/new/mod.ts (1 lines).' });
  assert.equal(await readFile(join(ws, 'src/new/mod.ts'), 'utf8'), 'export const x = 1;\n');
  assert.deepEqual(asked, [
    {
      kind: 'write',
      title: 'Create src/new/mod.ts',
      detail: '--- /dev/null\n+++ b/src/new/mod.ts\n@@ -0,0 +1 @@\n+export const x = 1;\n',
      path: 'src/new/mod.ts',
      absolutePath: join(await realpath(ws), 'src/new/mod.ts'),
      after: 'export const x = 1;\n',
    },
  ]);
});

test('write_file over an existing file shows the real diff, keeps the file mode and leaves no temp files', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'run.sh': '#!/bin/sh\necho one\n' });
  await chmod(join(ws, 'run.sh'), 0o755);
  const { call, run, asked } = makeHost(ws);
  const r = await call('write_file', { path: 'run.sh', content: '#!/bin/sh\necho two\n' });
  assert.equal(r.isError, false);
  assert.equal(r.content, 'Wrote run.sh (2 lines; +1 -1).');
  assert.equal(asked[0]?.title, 'Overwrite run.sh');
  assert.equal(asked[0]?.detail, '--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo one\n+echo two\n');
  assert.equal((await stat(join(ws, 'run.sh'))).mode & 0o777, 0o755);
  assert.deepEqual(await readdir(ws), ['run.sh']);
  const same = await run('write_file', { path: 'run.sh', content: '#!/bin/sh\necho two\n' });
  assert.equal(same.content, 'No change: run.sh already has exactly this content.');
  assert.equal(asked.length, 1, 'no approval is asked for a write that changes nothing');
  assert.deepEqual(
    [same.effects?.source, same.effects?.modified ?? [], same.effects?.created ?? []],
    ['measured', [], []],
    'a no-op with measured effects: the chat offers no "Show diff" for it',
  );
});

test('a declined write or edit changes nothing and tells the model the user declined', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.txt': 'keep\n' });
  const { call, asked } = makeHost(ws, { approve: false });
  for (const r of [
    await call('write_file', { path: 'a.txt', content: 'gone\n' }),
    await call('write_file', { path: 'b.txt', content: 'new\n' }),
    await call('edit_file', { path: 'a.txt', oldText: 'keep', newText: 'lose' }),
  ]) {
    assert.equal(r.isError, true);
    assert.match(r.content, /^The user declined the change to (a|b)\.txt; nothing was written\./);
  }
  assert.equal(asked.length, 3);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'keep\n');
  assert.equal(existsSync(join(ws, 'b.txt')), false);
});

test('in an untrusted workspace writes and edits are refused without asking', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.txt': 'keep\n' });
  const { call, asked } = makeHost(ws, { trusted: false });
  const w = await call('write_file', { path: 'a.txt', content: 'x' });
  const e = await call('edit_file', { path: 'a.txt', oldText: 'keep', newText: 'x' });
  for (const r of [w, e]) {
    assert.equal(r.isError, true);
    assert.match(r.content, /disabled because this workspace is not trusted/);
  }
  assert.equal(asked.length, 0);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'keep\n');
  const read = await call('read_file', { path: 'a.txt' });
  assert.equal(read.isError, false, 'reading stays allowed');
});

test('edit_file replaces exactly one match and shows its diff', async (t) => {
  const { ws } = await workspace(t);
  const src = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n';
  await files(ws, { 'm.js': src });
  const { call, asked } = makeHost(ws);
  const r = await call('edit_file', { path: 'm.js', oldText: 'function b() {\n  return 2;', newText: 'function b() {\n  return 3;' });
  assert.deepEqual(r, { isError: false, content: 'Edited m.js at line 5 (+1 -1).' });
  assert.equal(await readFile(join(ws, 'm.js'), 'utf8'), src.replace('return 2', 'return 3'));
  assert.equal(asked[0]?.title, 'Edit m.js');
  assert.equal(asked[0]?.detail, '--- a/m.js\n+++ b/m.js\n@@ -3,5 +3,5 @@\n }\n \n function b() {\n-  return 2;\n+  return 3;\n }\n');
});

test('edit_file with no match or several matches is refused with guidance and line numbers', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'm.js': 'x = 1;\ny = 2;\nx = 1;\n', 'o.txt': 'aaa\n' });
  const { call, asked } = makeHost(ws);
  const none = await call('edit_file', { path: 'm.js', oldText: 'x = 2;', newText: 'x = 3;' });
  assert.equal(none.isError, true);
  assert.match(none.content, /oldText was not found in m\.js\. It must match the file exactly/);
  const two = await call('edit_file', { path: 'm.js', oldText: 'x = 1;', newText: 'x = 3;' });
  assert.equal(two.isError, true);
  assert.match(two.content, /oldText matches 2 places in m\.js \(starting on lines 1, 3\)\. Include more surrounding lines/);
  const overlapping = await call('edit_file', { path: 'o.txt', oldText: 'aa', newText: 'b' });
  assert.match(overlapping.content, /matches 2 places/, 'overlapping matches are ambiguous too');
  const noop = await call('edit_file', { path: 'm.js', oldText: 'y = 2;', newText: 'y = 2;' });
  assert.match(noop.content, /nothing to change/);
  const missing = await call('edit_file', { path: 'nope.js', oldText: 'a', newText: 'b' });
  assert.match(missing.content, /File not found: "nope.js"\. Use write_file to create/);
  const empty = await call('edit_file', { path: 'm.js', oldText: '', newText: 'b' });
  assert.equal(empty.isError, true);
  assert.match(empty.content, /"oldText": a non-empty string/);
  assert.equal(asked.length, 0);
  assert.equal(await readFile(join(ws, 'm.js'), 'utf8'), 'x = 1;\ny = 2;\nx = 1;\n');
});

test('edit_file matches a CRLF file with LF text and keeps its line endings', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
  const { call } = makeHost(ws);
  const r = await call('edit_file', { path: 'w.txt', oldText: 'one\ntwo', newText: 'one\n2' });
  assert.equal(r.isError, false, r.content);
  assert.equal(await readFile(join(ws, 'w.txt'), 'utf8'), 'one\r\n2\r\nthree\r\n');
});

test('a file changed while approval was pending is not overwritten', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.txt': 'v1\n' });
  const { call } = makeHost(ws, {
    approve: async () => {
      await writeFile(join(ws, 'a.txt'), 'edited by the user\n');
      return true;
    },
  });
  const r = await call('edit_file', { path: 'a.txt', oldText: 'v1', newText: 'v2' });
  assert.equal(r.isError, true);
  assert.match(r.content, /changed while waiting for approval, so nothing was written/);
  assert.equal(await readFile(join(ws, 'a.txt'), 'utf8'), 'edited by the user\n');
});

test('binary or non-UTF-8 files are not edited', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), 'bin.dat': Buffer.from([1, 0, 2]) });
  const { call } = makeHost(ws);
  for (const path of ['latin1.txt', 'bin.dat']) {
    const r = await call('edit_file', { path, oldText: 'caf', newText: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.content, /binary or not UTF-8 text/);
  }
});

test('writing to a folder is refused', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'd/x': '' });
  const r = await makeHost(ws).call('write_file', { path: 'd', content: 'x' });
  assert.equal(r.isError, true);
  assert.match(r.content, /"d" is a folder, not a file/);
});

test("an edit denied with feedback writes nothing and gives the model the user's words; the request carries both texts for a diff editor", async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'a.ts': 'const a = 1;\n' });
  const { call, asked } = makeHost(ws, { approve: async () => ({ approved: false, feedback: 'Use a constant named ONE instead.' }) });
  const r = await call('edit_file', { path: 'a.ts', oldText: 'const a = 1;', newText: 'const a = 2;' });
  assert.deepEqual(r, {
    isError: true,
    content: 'The user declined the change to a.ts; nothing was written. The user said: "Use a constant named ONE instead."',
  });
  assert.equal(await readFile(join(ws, 'a.ts'), 'utf8'), 'const a = 1;\n');
  assert.equal(asked[0]?.before, 'const a = 1;\n');
  assert.equal(asked[0]?.after, 'const a = 2;\n');
});
