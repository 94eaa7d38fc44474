// The compact part's ids as bytes: every id reads back and compares as the string it was, wide characters, long and empty ids included, through growth.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IdBytes } from '../../../src/engine/transcript/idBytes.js';

test('ids read back and compare exactly as the strings pushed, whatever size was expected', () => {
  const id = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('', 'e_0a1b2c3d4e5f', 'é', 'ÿ', 'Ā', 'e_😀', '\u0000', 'x'.repeat(9000)),
  );
  fc.assert(
    fc.property(fc.array(id, { maxLength: 2500 }), fc.nat(3000), (ids, expected) => {
      const bytes = new IdBytes(expected);
      for (const s of ids) bytes.push(s);
      assert.equal(bytes.length, ids.length);
      ids.forEach((s, i) => {
        assert.equal(bytes.at(i), s);
        assert.ok(bytes.equals(i, s));
        assert.ok(!bytes.equals(i, `${s}x`));
        if (s.length > 0) assert.ok(!bytes.equals(i, s.slice(1)));
      });
      assert.equal(bytes.at(ids.length), '');
      assert.equal(bytes.equals(ids.length, ''), false);
      assert.equal(bytes.equals(-1, ''), false);
    }),
    { numRuns: 80 },
  );
});

test('a wide id (a character above U+00FF) next to narrow ones of the same bytes stays told apart', () => {
  const bytes = new IdBytes();
  // 'Ā' is U+0100: its low byte is that of '\u0000'; a byte store that truncated it would read it as '\u0000'.
  for (const s of ['\u0000', 'Ā', 'a', 'aĀ', 'a\u0000']) bytes.push(s);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((i) => bytes.at(i)),
    ['\u0000', 'Ā', 'a', 'aĀ', 'a\u0000'],
  );
  assert.ok(!bytes.equals(0, 'Ā') && !bytes.equals(1, '\u0000') && !bytes.equals(4, 'aĀ') && !bytes.equals(3, 'a\u0000'));
});
