// The capsule viewer's line diff (the `diff` package), in plain Node: minimal, order-preserving, and reconstructs both sides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_EDIT_LENGTH, diffStats, lineDiff, splitLines, type DiffLine } from '../../webview/lineDiff.js';

const side = (lines: readonly DiffLine[], keep: 'add' | 'del'): string[] => lines.filter((l) => l.op !== keep).map((l) => l.text);

test('a changed capsule shows removed and added lines between the unchanged ones', () => {
  const before = '## Goal\nFix login\n## Progress\n- In progress: reproduce\n## Next Steps\n1. Reproduce\n';
  const after = '## Goal\nFix login\n## Progress\n- Done: reproduced\n- In progress: patch\n## Next Steps\n1. Run tests\n';
  const d = lineDiff(before, after);
  assert.deepEqual(
    d.map((l) => `${l.op === 'add' ? '+' : l.op === 'del' ? '-' : ' '}${l.text}`),
    [
      ' ## Goal',
      ' Fix login',
      ' ## Progress',
      '-- In progress: reproduce',
      '+- Done: reproduced',
      '+- In progress: patch',
      ' ## Next Steps',
      '-1. Reproduce',
      '+1. Run tests',
    ],
  );
  assert.deepEqual(diffStats(d), { added: 3, removed: 2, same: 4 });
});

test('identical texts are all unchanged; from or to nothing is all added or all removed', () => {
  assert.deepEqual(diffStats(lineDiff('a\nb', 'a\nb')), { added: 0, removed: 0, same: 2 });
  assert.deepEqual(lineDiff('', 'x\ny'), [
    { op: 'add', text: 'x' },
    { op: 'add', text: 'y' },
  ]);
  assert.deepEqual(lineDiff('x', ''), [{ op: 'del', text: 'x' }]);
  assert.deepEqual(lineDiff('', ''), []);
});

test('line endings do not count as changes', () => {
  assert.deepEqual(splitLines('a\r\nb\rc\n'), ['a', 'b', 'c']);
  assert.deepEqual(diffStats(lineDiff('a\r\nb\r\n', 'a\nb')), { added: 0, removed: 0, same: 2 });
});

test('both sides can be rebuilt from the diff and the kept lines are a longest common subsequence', () => {
  const lcsLength = (a: readonly string[], b: readonly string[]): number => {
    const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        const row = dp[i] ?? [];
        row[j] = a[i - 1] === b[j - 1] ? (dp[i - 1]?.[j - 1] ?? 0) + 1 : Math.max(dp[i - 1]?.[j] ?? 0, row[j - 1] ?? 0);
      }
    return dp[a.length]?.[b.length] ?? 0;
  };
  const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 25 });
  fc.assert(
    fc.property(lines, lines, (a, b) => {
      const d = lineDiff(a.join('\n'), b.join('\n'));
      const aa = splitLines(a.join('\n'));
      const bb = splitLines(b.join('\n'));
      assert.deepEqual(side(d, 'add'), aa);
      assert.deepEqual(side(d, 'del'), bb);
      assert.equal(diffStats(d).same, lcsLength(aa, bb));
    }),
    { numRuns: 300 },
  );
});

test('a diff too large for the table still shows every line, removed then added', () => {
  const n = MAX_EDIT_LENGTH + 10;
  const a = Array.from({ length: n }, (_, i) => `a${i}`).join('\n');
  const b = Array.from({ length: n }, (_, i) => `b${i}`).join('\n');
  const d = lineDiff(`same\n${a}\nend`, `same\n${b}\nend`);
  assert.deepEqual(diffStats(d), { added: n, removed: n, same: 2 });
  assert.equal(d[1]?.op, 'del');
  assert.equal(d[n + 1]?.op, 'add');
});
