// The bounded problem list: counts every problem, keeps the first of each kind, and ends with one "… and N more" per kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProblemList } from '../../../src/engine/transcript/problemList.js';
import { verifySession } from '../../../src/engine/transcript/verify.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { tempDir } from '../agent/agentHelpers.js';

test('keeps the first problems of each kind in order and summarizes the rest per kind', () => {
  const list = new ProblemList<{ kind: string; message: string }>(3);
  const more = (kind: string) => (n: number) => ({ kind, message: `${n} more ${kind}` });
  for (let i = 0; i < 10; i++) list.add({ kind: 'bad', message: `bad ${i}` }, more('bad'));
  list.add({ kind: 'odd', message: 'odd 0' }, more('odd'));
  assert.equal(list.total, 11);
  assert.equal(list.count('bad'), 10);
  assert.deepEqual(
    list.list().map((p) => p.message),
    ['bad 0', 'bad 1', 'bad 2', 'odd 0', '7 more bad'],
  );
});

test('a session file with 200,000 bad lines loads with a bounded problem list that still tells the whole count', async (t) => {
  const dir = await tempDir(t, 'capsule-problems-');
  const path = join(dir, 's.jsonl');
  const header = JSON.stringify({ type: 'session', version: 1, id: 's1', createdAt: '2025-01-01T00:00:00.000Z', cwd: '/w' });
  const bad = Array.from({ length: 100_000 }, (_, i) => `{not json ${i}\n{"type":"user","id":"u${i}"}`).join('\n');
  await writeFile(path, `${header}\n${bad}\n`);
  const load = await loadSessionFile(path);
  assert.ok(load.problems.length <= 2 * 100 + 5, `${load.problems.length} problems kept`);
  assert.ok(
    load.problems.some((p) => p.kind === 'invalid_json' && /… and 99,?900 more invalid json problems/.test(p.message)),
    JSON.stringify(load.problems.slice(-3)),
  );
  assert.ok(load.problems.some((p) => p.kind === 'invalid_entry' && /… and 99,?900 more invalid entry problems/.test(p.message)));
  const report = verifySession(load.tree, load.problems);
  assert.equal(report.ok, false);
  assert.ok(report.issues.length <= 2 * 100 + 5);
});
