// `npm start` (scripts/start.mjs) opens the folder named, else the folder npm was started in (npm runs scripts from the repository root), and says which.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../support/tempDir.js';

const REPO = join(__dirname, '..', '..', '..');

function start(args: readonly string[], initCwd: string): { status: number | null; out: string; err: string } {
  // npm sets INIT_CWD to where `npm start` was typed and runs the script with the repository as its cwd.
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'start.mjs'), ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, INIT_CWD: initCwd, CAPSULE_START_DRY_RUN: '1' },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('without an argument it opens the folder npm start was run in, not the repository, and says so', async (t) => {
  const here = await tempDir(t, 'capsule-start-');
  const r = start([], here);
  assert.equal(r.status, 0, r.err);
  assert.match(r.out, new RegExp(`will open ${here.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(the folder you ran npm start in`));
});

test('a relative folder is taken from where npm start was run; a missing one is a clear error', async (t) => {
  const here = await tempDir(t, 'capsule-start-');
  mkdirSync(join(here, 'proj'));
  const r = start(['proj'], here);
  assert.equal(r.status, 0, r.err);
  assert.ok(r.out.includes(`will open ${join(here, 'proj')} (the folder you named)`), r.out);
  const bad = start(['nope'], here);
  assert.equal(bad.status, 1);
  assert.match(bad.err, /nope is not a folder; usage: npm start \[-- <folder>\]/);
});
