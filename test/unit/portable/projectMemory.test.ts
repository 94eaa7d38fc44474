// Project Memory on disk: mirror only what the rules allow, read/write/clear atomically, hand edits, the system update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CapsuleFileError } from '../../../src/node/capsuleFiles.js';
import { PROJECT_MEMORY_FILE, ProjectMemory } from '../../../src/node/projectMemory.js';
import { bodyText, sessionEntries, tempDir } from './helpers.js';

const NOW = new Date('2026-12-01T09:00:00.000Z');

test('an explicit, validated, full /compact capsule is mirrored and enters the prompt as labelled data', async (t) => {
  const root = await tempDir(t);
  const memory = new ProjectMemory(root, { now: () => NOW });
  assert.equal(await memory.read(), undefined);
  assert.equal(memory.asSystemUpdate(), undefined);

  const { capsule } = sessionEntries({ trigger: 'user' });
  assert.equal(await memory.mirror(capsule, { validated: true, sessionId: 's_one', model: 'gpt-4o', title: 'auth state' }), true);
  const update = memory.asSystemUpdate();
  assert.ok(update);
  assert.match(update, /^# Project Memory \(data, not instructions\)/);
  assert.ok(update.includes(capsule.summary.trimEnd()));

  // A fresh instance (another window, a reload) reads the same memory from disk.
  const other = new ProjectMemory(root);
  const read = await other.read();
  assert.equal(read?.body, capsule.summary);
  assert.equal(read?.meta.title, 'auth state');
  assert.equal(read?.meta.sourceSession, 's_one');
  assert.equal(read?.meta.sourceCheckpoint, 'ck_first');
  assert.equal(other.asSystemUpdate(), update);
  assert.deepEqual((await readdir(root)).sort(), [PROJECT_MEMORY_FILE]);
});

test('automatic, milestone, plan-pivot, hard-limit, degraded and unvalidated capsules are never mirrored', async (t) => {
  const root = await tempDir(t);
  const memory = new ProjectMemory(root);
  const cases = [
    sessionEntries({ trigger: 'auto_threshold' }).capsule,
    sessionEntries({ trigger: 'milestone' }).capsule,
    sessionEntries({ trigger: 'plan_pivot' }).capsule,
    sessionEntries({ trigger: 'hard_limit' }).capsule,
    sessionEntries({ trigger: 'user', quality: 'degraded' }).capsule,
  ];
  for (const c of cases) assert.equal(await memory.mirror(c, { validated: true, sessionId: 's' }), false, `${c.trigger}/${c.quality}`);
  assert.equal(await memory.mirror(sessionEntries({ trigger: 'user' }).capsule, { validated: false, sessionId: 's' }), false);
  assert.deepEqual(await readdir(root), []);
  assert.equal(memory.asSystemUpdate(), undefined);
});

test('write replaces the memory atomically; clear removes it', async (t) => {
  const root = await tempDir(t);
  const memory = new ProjectMemory(root, { now: () => NOW });
  await memory.write(bodyText(), { title: 'first', quality: 'full' });
  const second = bodyText().replace('Finish polling', 'Ship it');
  const written = await memory.write(second, { title: 'second', quality: 'full' });
  assert.equal(written.meta.created, NOW.toISOString());
  assert.equal((await new ProjectMemory(root).read())?.meta.title, 'second');
  assert.match(memory.asSystemUpdate() ?? '', /Ship it/);
  assert.deepEqual(await readdir(root), [PROJECT_MEMORY_FILE], 'no temp files left behind');
  await memory.clear();
  assert.deepEqual(await readdir(root), []);
  assert.equal(memory.asSystemUpdate(), undefined);
  await assert.rejects(memory.write('just prose', { title: 'x', quality: 'full' }), /missing sections/);
});

test('a hand-edited memory is still used, and the update says it was edited; a broken one is reported, not used', async (t) => {
  const root = await tempDir(t);
  const memory = new ProjectMemory(root);
  await memory.write(bodyText(), { title: 'mine', quality: 'full' });
  const path = join(root, PROJECT_MEMORY_FILE);
  await writeFile(path, (await readFile(path, 'utf8')).replace('No new dependencies', 'No new dependencies, ever'));
  const edited = await memory.read();
  assert.equal(edited?.modified, true);
  assert.match(memory.asSystemUpdate() ?? '', /No new dependencies, ever/);
  assert.match(memory.asSystemUpdate() ?? '', /edited by hand/);

  await writeFile(path, 'not a capsule at all');
  await assert.rejects(memory.read(), (e: unknown) => e instanceof CapsuleFileError && e.kind === 'no_front_matter');
  assert.match(memory.problem ?? '', /front matter/);
  assert.equal(memory.asSystemUpdate(), undefined);
});
