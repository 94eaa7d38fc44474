// Path detection in text: what becomes a candidate link (paths, path:line forms, backticked paths with spaces) and what never does (URLs, versions, emails).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { candidatePaths, findPathRefs, looksLikePath, parsePathRef } from '../../../src/protocol/pathRefs.js';

const paths = (text: string): string[] =>
  findPathRefs(text).map((r) => `${r.path}${r.line === undefined ? '' : `:${r.line}`}${r.column === undefined ? '' : `:${r.column}`}`);

test('paths in running text, with and without line and column', () => {
  assert.deepEqual(paths('See src/app.ts and README.md.'), ['src/app.ts', 'README.md']);
  assert.deepEqual(paths('The bug is at src/parser/lexer.ts:12:3, then file.ts:40.'), ['src/parser/lexer.ts:12:3', 'file.ts:40']);
  assert.deepEqual(paths('open ./lib/index.js#L7 now'), ['./lib/index.js:7']);
  assert.deepEqual(paths('lines src/a.ts:10-20 changed'), ['src/a.ts:10']);
  assert.deepEqual(paths('a folder path docs/user/chat'), ['docs/user/chat']);
  assert.deepEqual(paths('mention @src/a.ts here'), ['src/a.ts']);
  assert.deepEqual(paths('(see test/unit/x.test.ts)'), ['test/unit/x.test.ts']);
});

test('URLs, versions, numbers, emails and flags are not paths', () => {
  assert.deepEqual(paths('Visit https://example.com/docs/index.html or www.example.org/a.html'), []);
  assert.deepEqual(paths('Upgrade to 1.2.3, v2.0.1 or 1.2.3-beta.1; pi is 3.14'), []);
  assert.deepEqual(paths('write to ann@example.com'), []);
  assert.deepEqual(paths('ratio 1/2 and 10/20'), []);
  assert.deepEqual(paths('pass --out.file and -x'), []);
  assert.deepEqual(paths('file:///etc/passwd'), []);
});

test('a whole string as a path: backticked paths with spaces, suffixes, refusals', () => {
  assert.deepEqual(parsePathRef('docs/My Notes/plan.md'), { path: 'docs/My Notes/plan.md' });
  assert.deepEqual(parsePathRef('docs/My Notes/plan.md', false), undefined);
  assert.deepEqual(parsePathRef('file.ts:12:3'), { path: 'file.ts', line: 12, column: 3 });
  assert.deepEqual(parsePathRef('src/a.ts#L5-L9'), { path: 'src/a.ts', line: 5 });
  assert.equal(parsePathRef('npm test'), undefined);
  assert.equal(parsePathRef('const x = 1;'), undefined);
  assert.equal(parsePathRef('1.2.3'), undefined);
  assert.equal(parsePathRef('https://x.org/a.ts'), undefined);
  assert.equal(parsePathRef('file:///etc/passwd'), undefined);
  assert.equal(parsePathRef('a.ts:0'), undefined, 'line numbers start at 1');
  assert.equal(looksLikePath('../../etc/passwd'), true, 'shaped like a path: the host decides it is outside');
});

test('candidates for the host: running text plus backticked spans, deduplicated and bounded', () => {
  const c = candidatePaths('Edit `src/my file.ts` and src/b.ts, then src/b.ts:3');
  assert.ok(c.includes('src/my file.ts') && c.includes('src/b.ts'));
  assert.equal(c.filter((p) => p === 'src/b.ts').length, 1);
  assert.equal(candidatePaths(Array.from({ length: 500 }, (_, i) => `f${i}.ts`).join(' ')).length, 100);
});
