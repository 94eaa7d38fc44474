// Ids from the pooled random source stay unique and well formed across many refills of the pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeIds } from '../../../src/node/nodeClock.js';

test('20,000 ids drawn through many pool refills are all distinct and 12 characters of [0-9a-z] after the prefix', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const id = nodeIds.next('e_');
    assert.match(id, /^e_[0-9a-z]{12}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 20_000);
});
