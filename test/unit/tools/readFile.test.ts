// read_file: numbered 1-based inclusive ranges, per-call caps with a message saying how to read on, binary and folder refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { files, makeHost, workspace } from './toolHelpers.js';

const numbered = (n: number, from = 1): string => Array.from({ length: n }, (_, i) => `line ${from + i}`).join('\n') + '\n';

test('reads a whole small file as numbered lines', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'src/a.ts': 'const a = 1;\r\nexport { a };\n' });
  const { call } = makeHost(ws);
  const r = await call('read_file', { path: 'src/a.ts' });
  assert.deepEqual(r, { isError: false, content: '1\tconst a = 1;\n2\texport { a };' });
});

test('startLine and endLine are 1-based and inclusive; a partial range says where it is', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'f.txt': numbered(10) });
  const { call } = makeHost(ws);
  const r = await call('read_file', { path: 'f.txt', startLine: 3, endLine: 5 });
  assert.equal(r.isError, false);
  assert.equal(r.content, '3\tline 3\n4\tline 4\n5\tline 5\n[Lines 3-5 of 10.]');
  const tail = await call('read_file', { path: 'f.txt', startLine: '9' });
  assert.equal(tail.content, '9\tline 9\n10\tline 10\n[Lines 9-10 of 10.]', 'numeric strings are accepted');
  const beyond = await call('read_file', { path: 'f.txt', startLine: 8, endLine: 500 });
  assert.equal(beyond.content, '8\tline 8\n9\tline 9\n10\tline 10\n[Lines 8-10 of 10.]');
});

test('a file without a trailing newline keeps its last line', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'f.txt': 'a\nb' });
  const { call } = makeHost(ws);
  assert.equal((await call('read_file', { path: 'f.txt' })).content, '1\ta\n2\tb');
  assert.equal((await call('read_file', { path: 'f.txt', startLine: 2 })).content, '2\tb\n[Lines 2-2 of 2.]');
});

test('the line cap stops a call and says exactly how to read the rest; following it reads everything once', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'big.log': numbered(25) });
  const { call } = makeHost(ws, { limits: { readMaxLines: 10 } });
  const seen: string[] = [];
  let args: Record<string, unknown> = { path: 'big.log' };
  for (let i = 0; i < 5; i++) {
    const r = await call('read_file', args);
    assert.equal(r.isError, false);
    const body = r.content.split('\n').filter((l) => /^\d+\t/.test(l));
    seen.push(...body);
    const next = /call read_file with (\{.*\})\.\]$/.exec(r.content);
    if (next?.[1] === undefined) break;
    assert.match(r.content, /read_file returns at most 10 lines/);
    args = JSON.parse(next[1]) as Record<string, unknown>;
  }
  assert.equal(seen.length, 25);
  assert.deepEqual(
    seen,
    numbered(25)
      .trimEnd()
      .split('\n')
      .map((l, i) => `${i + 1}\t${l}`),
  );
});

test('the byte cap stops a call before a line that would not fit', async (t) => {
  const { ws } = await workspace(t);
  const line = 'x'.repeat(99);
  await files(ws, { 'wide.txt': `${line}\n`.repeat(20) });
  const { call } = makeHost(ws, { limits: { readMaxBytes: 450 } });
  const r = await call('read_file', { path: 'wide.txt' });
  assert.equal(r.isError, false);
  const shown = r.content.split('\n').filter((l) => /^\d+\t/.test(l));
  assert.equal(shown.length, 4, '4 lines of 99 bytes fit in 450, the fifth does not');
  // The closing note: the range shown, the cap, and the call that reads on (its arguments as JSON the model can copy).
  assert.match(r.content, /\[Showing lines 1-4 of 20\b.*\b450 bytes\b.*\{"path": "wide.txt", "startLine": 5\}.*\]$/);
});

test('a single line longer than the cap is cut with a message', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'min.js': 'y'.repeat(5_000) + '\nsecond\n' });
  const { call } = makeHost(ws, { limits: { readMaxBytes: 1_000 } });
  const r = await call('read_file', { path: 'min.js' });
  assert.equal(r.isError, false);
  const first = r.content.split('\n')[0] ?? '';
  assert.equal(first, `1\t${'y'.repeat(1_000)}`);
  assert.match(r.content, /Line 1 is too long to show whole: its last 4000 bytes were cut/);
  assert.match(r.content, /"startLine": 2/);
});

test('binary files are refused with a message', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]) });
  const { call } = makeHost(ws);
  const r = await call('read_file', { path: 'img.png' });
  assert.equal(r.isError, true);
  assert.match(r.content, /binary file \(7 bytes\); read_file only shows text/);
});

test('missing files, folders, bad ranges and empty files get clear answers', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'dir/x.txt': 'x\n', 'empty.txt': '', 'three.txt': 'a\nb\nc\n' });
  const { call } = makeHost(ws);
  const missing = await call('read_file', { path: 'nope.txt' });
  assert.equal(missing.isError, true);
  assert.match(missing.content, /File not found: "nope.txt"/);
  assert.match((await call('read_file', { path: 'dir' })).content, /is a folder, not a file; use list_files/);
  const past = await call('read_file', { path: 'three.txt', startLine: 9 });
  assert.equal(past.isError, true);
  assert.match(past.content, /startLine 9 is past the end of "three.txt", which has 3 lines/);
  const backwards = await call('read_file', { path: 'three.txt', startLine: 3, endLine: 2 });
  assert.equal(backwards.isError, true);
  assert.match(backwards.content, /endLine \(2\) is before startLine \(3\)/);
  const zero = await call('read_file', { path: 'three.txt', startLine: 0 });
  assert.equal(zero.isError, true);
  assert.match(zero.content, /"startLine": a line number of at least 1/);
  const empty = await call('read_file', { path: 'empty.txt' });
  assert.deepEqual(empty, { isError: false, content: '(empty file: "empty.txt" has no content)' });
});

test('a range at the start of a huge file is read without scanning it all, and says the file size', async (t) => {
  const { ws } = await workspace(t);
  const size = 70 * 1024 * 1024; // above the size up to which lines are counted to the end
  await files(ws, { 'huge.log': Buffer.alloc(size, 'ab\n') });
  const { call } = makeHost(ws);
  const r = await call('read_file', { path: 'huge.log', endLine: 2 });
  assert.equal(r.isError, false);
  assert.equal(r.content, `1\tab\n2\tab\n[Lines 1-2 of a ${size}-byte file.]`);
  const capped = await call('read_file', { path: 'huge.log' });
  assert.equal(capped.content.split('\n').filter((l) => /^\d+\t/.test(l)).length, 2_000);
  assert.match(
    capped.content,
    new RegExp(`\\[Showing lines 1-2000 of a ${size}-byte file\\b.*\\b2000 lines\\b.*\\{"path": "huge.log", "startLine": 2001\\}.*\\]$`),
  );
});
