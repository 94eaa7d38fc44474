// The unified diff shown for approval: exact format for small edits, and applying it always reproduces the new text (checked with patch(1) and a property test).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { splitLines, unifiedDiff } from '../../../src/node/tools/diff.js';

/** Applies a unified diff produced by unifiedDiff to `old`; throws if a context or removed line does not match. */
function applyDiff(old: string, diff: string): string {
  if (diff === '') return old;
  const a = splitLines(old);
  const out: string[] = [];
  let i = 0;
  const lines = diff.split('\n').slice(2, -1);
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] ?? '';
    const noNl = lines[k + 1] === '\\ No newline at end of file';
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(line);
    if (h) {
      const count = h[2] === undefined ? 1 : Number(h[2]);
      const start = count === 0 ? Number(h[1]) : Number(h[1]) - 1;
      while (i < start) out.push(a[i++] ?? '');
      continue;
    }
    if (line === '\\ No newline at end of file') continue;
    const text = line.slice(1) + (noNl ? '' : '\n');
    if (line.startsWith('+')) out.push(text);
    else {
      assert.equal(a[i], text, `diff line ${k} does not match the old text`);
      if (line.startsWith(' ')) out.push(text);
      i++;
    }
  }
  while (i < a.length) out.push(a[i++] ?? '');
  return out.join('');
}

test('a one-line change has three lines of context and a correct hunk header', () => {
  const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].join('\n') + '\n';
  const next = old.replace('e\n', 'E\n');
  const { text, stats } = unifiedDiff(old, next, 'a/f.txt', 'b/f.txt');
  assert.equal(text, ['--- a/f.txt', '+++ b/f.txt', '@@ -2,7 +2,7 @@', ' b', ' c', ' d', '-e', '+E', ' f', ' g', ' h', ''].join('\n'));
  assert.deepEqual(stats, { added: 1, removed: 1 });
});

test('a new file diffs from /dev/null; equal texts give no diff; a missing final newline is marked', () => {
  assert.equal(unifiedDiff('', 'x\ny\n', '/dev/null', 'b/n.txt').text, '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n');
  assert.equal(unifiedDiff('same\n', 'same\n', 'a', 'b').text, '');
  assert.equal(unifiedDiff('a\n', 'a', 'a/f', 'b/f').text, '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n');
});

test('far-apart changes make separate hunks; near ones merge', () => {
  const old = Array.from({ length: 40 }, (_, i) => `l${i}`).join('\n') + '\n';
  const twoHunks = old.replace('l2\n', 'L2\n').replace('l30\n', 'L30\n');
  assert.equal((unifiedDiff(old, twoHunks, 'a', 'b').text.match(/^@@/gm) ?? []).length, 2);
  const oneHunk = old.replace('l2\n', 'L2\n').replace('l9\n', 'L9\n');
  assert.equal((unifiedDiff(old, oneHunk, 'a', 'b').text.match(/^@@/gm) ?? []).length, 1);
});

test('GNU patch applies the diff and reproduces the new file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-diff-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const old = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const next = old.replace('line 3\n', '').replace('line 20\n', 'line 20\ninserted\n').replace('line 59\n', 'last');
  await writeFile(join(dir, 'f.txt'), old);
  await writeFile(join(dir, 'f.diff'), unifiedDiff(old, next, 'a/f.txt', 'b/f.txt').text);
  execFileSync('patch', ['-s', '-p1', '-i', 'f.diff'], { cwd: dir });
  assert.equal(await readFile(join(dir, 'f.txt'), 'utf8'), next);
});

test('property: applying the diff to the old text gives the new text', () => {
  const line = fc.constantFrom('a', 'b', 'c', '', 'd d');
  const text = fc.tuple(fc.array(line, { maxLength: 30 }), fc.boolean()).map(([ls, nl]) => (ls.length === 0 ? '' : ls.join('\n') + (nl ? '\n' : '')));
  fc.assert(
    fc.property(text, text, (a, b) => {
      const { text: d, stats } = unifiedDiff(a, b, 'a/x', 'b/x');
      assert.equal(applyDiff(a, d), b);
      assert.equal(d === '', a === b);
      assert.ok(stats.added <= splitLines(b).length && stats.removed <= splitLines(a).length);
    }),
    { numRuns: 500 },
  );
});

test('a wholly different large file falls back to remove-all/add-all and stays correct', () => {
  const a = Array.from({ length: 3_000 }, (_, i) => `old ${i}`).join('\n') + '\n';
  const b = Array.from({ length: 3_000 }, (_, i) => `new ${i}`).join('\n') + '\n';
  const { text, stats } = unifiedDiff(a, b, 'a/x', 'b/x');
  assert.deepEqual(stats, { added: 3_000, removed: 3_000 });
  assert.equal(applyDiff(a, text), b);
});

test('past the edit limit the unchanged head and tail stay context around one replaced middle, and patch(1) applies it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-diff-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const head = Array.from({ length: 10 }, (_, i) => `head ${i}`);
  const tail = Array.from({ length: 10 }, (_, i) => `tail ${i}`);
  const a = [...head, ...Array.from({ length: 2_000 }, (_, i) => `old ${i}`), ...tail].join('\n');
  const b = [...head, ...Array.from({ length: 2_000 }, (_, i) => `new ${i}`), ...tail].join('\n') + '\n';
  const { text, stats } = unifiedDiff(a, b, 'a/f.txt', 'b/f.txt');
  assert.deepEqual(stats, { added: 2_010, removed: 2_010 }, 'the last tail line differs by its newline, so it joins the middle');
  const lines = text.split('\n');
  assert.equal(lines[2], '@@ -8,2013 +8,2013 @@');
  assert.deepEqual(lines.slice(3, 7), [' head 7', ' head 8', ' head 9', '-old 0']);
  assert.equal(applyDiff(a, text), b);
  await writeFile(join(dir, 'f.txt'), a);
  await writeFile(join(dir, 'f.diff'), text);
  execFileSync('patch', ['-s', '-p1', '-i', 'f.diff'], { cwd: dir });
  assert.equal(await readFile(join(dir, 'f.txt'), 'utf8'), b);
});
