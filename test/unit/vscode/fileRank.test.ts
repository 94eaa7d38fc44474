// The `@` completion's ranking: the file name first, word starts and runs next, scattered letters last, non-matches out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rankPaths, scorePath } from '../../../src/vscode/base/fileRank.js';

const FILES = ['src/app.ts', 'src/approvals/appCard.ts', 'test/app.test.ts', 'docs/api.md', 'src/vscode/actions/paletteActions.ts', 'README.md'];

test('a name match beats a path match, which beats scattered letters', () => {
  assert.deepEqual(rankPaths('app', FILES, 3), ['src/app.ts', 'test/app.test.ts', 'src/approvals/appCard.ts']);
  assert.equal(rankPaths('pal', FILES, 1)[0], 'src/vscode/actions/paletteActions.ts');
  assert.equal(rankPaths('sapts', FILES, 1)[0], 'src/app.ts', 'letters in order across the path');
});

test('no match is left out; an empty query lists shorter paths first; the limit holds', () => {
  assert.equal(scorePath('zzz', 'src/app.ts'), undefined);
  assert.deepEqual(rankPaths('xyz', FILES, 10), []);
  assert.equal(rankPaths('', FILES, 2).length, 2);
  assert.equal(rankPaths('', FILES, 1)[0], 'README.md');
  assert.equal(
    rankPaths(
      'a',
      Array.from({ length: 500 }, (_, i) => `a${i}.ts`),
      50,
    ).length,
    50,
  );
});

test('case and spaces in the query do not matter', () => {
  assert.equal(rankPaths('README', FILES, 1)[0], 'README.md');
  assert.equal(rankPaths('src app', FILES, 1)[0], 'src/app.ts');
});
