// The id table the compact index links by: every id finds the slot it was first added at, through growth and hash meetings, like a Map would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { hashOf, IdTable } from '../../../src/engine/transcript/idTable.js';

test('it answers as a Map that keeps the first slot of each id, through many growths, whatever size it expected', () => {
  fc.assert(
    // `expected` is only a sizing hint: too small (growth on the way), about right, or far too large.
    fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'b', 'e_1', '')), { maxLength: 3000 }), fc.nat(6000), (ids, expected) => {
      const stored: string[] = [];
      const table = new IdTable(
        (slot, id) => stored[slot] === id,
        (slot) => hashOf(stored[slot] ?? ''),
        expected,
      );
      const first = new Map<string, number>();
      for (const id of ids) {
        const had = table.add(id, stored.length);
        assert.equal(had, first.get(id) ?? -1);
        if (had === -1) {
          first.set(id, stored.length);
          stored.push(id);
        }
      }
      assert.equal(table.size, first.size);
      for (const [id, slot] of first) assert.equal(table.get(id), slot);
      assert.equal(table.get('\u0000never added'), undefined);
    }),
    { numRuns: 60 },
  );
});

test('ids whose hashes meet are told apart by their text, and replace moves an id to its new slot', () => {
  // Many short ids land in one small table's buckets, so probes pass over each other's hashes and slots.
  const stored = Array.from({ length: 5000 }, (_, i) => `e${i}`);
  const table = new IdTable(
    (slot, id) => stored[slot] === id,
    (slot) => hashOf(stored[slot] ?? ''),
  );
  for (let i = 0; i < stored.length; i++) assert.equal(table.add(stored[i] ?? '', i), -1);
  for (let i = 0; i < stored.length; i++) assert.equal(table.get(`e${i}`), i);
  assert.equal(table.get('e5000'), undefined);
  stored.push('e7');
  assert.equal(table.add('e7', 5000, true), 7);
  assert.equal(table.get('e7'), 5000);
  assert.equal(table.size, 5000);
});
