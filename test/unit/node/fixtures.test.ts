// The checked-in session fixtures load as documented (other suites build on them, so pin what they contain).
import assert from 'node:assert/strict';
import { copyFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { tempDir, user } from './storeHelpers.js';

const FIXTURES = resolve(__dirname, '../../fixtures/sessions');

test('basic.jsonl: a clean session with a capsule, a rewind and a branch', async () => {
  const load = await loadSessionFile(join(FIXTURES, 'basic.jsonl'));
  assert.deepEqual(load.problems, []);
  assert.equal(load.header?.id, 's_fixture_basic');
  assert.equal(load.tree.size, 14);
  assert.equal(load.tree.leafId, 'e_u3');
  assert.deepEqual(
    load.tree
      .branch()
      .slice(-3)
      .map((e) => e.id),
    ['e_ck1', 'e_cap1', 'e_u3'],
  );
  assert.deepEqual(
    load.tree.children('e_cap1').map((e) => e.id),
    ['e_u2', 'e_u3'],
  );
});

test('damaged.jsonl: bad JSON, a duplicate, an unknown kind and a torn tail; a copy recovers on open', async (t) => {
  const original = join(FIXTURES, 'damaged.jsonl');
  const load = await loadSessionFile(original);
  assert.deepEqual(
    load.problems.map((p) => [p.kind, p.line]),
    [
      ['invalid_json', 5],
      ['duplicate_id', 10],
      ['invalid_entry', 11],
      ['torn_tail', 15],
    ],
  );
  assert.equal(load.tree.leafId, 'e_ck1');

  const copy = join(await tempDir(t), 'damaged.jsonl');
  await copyFile(original, copy);
  const store = await JsonlSessionStore.open(copy);
  assert.equal(store.readOnly, false);
  await store.append(user('e_new', 'e_ck1'));
  await store.close();
  const after = await loadSessionFile(copy);
  assert.deepEqual(
    after.problems.map((p) => p.kind),
    ['invalid_json', 'duplicate_id', 'invalid_entry'],
    'middle problems stay; the tail is gone',
  );
  assert.equal(after.tree.leafId, 'e_new');
  assert.match(await readFile(`${copy}.corrupt`, 'utf8'), /"id":"e_cap1"/);
});
