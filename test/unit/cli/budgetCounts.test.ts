// `capsule budget` on a session that has its counts builds no tokenizer table (docs/behaviour.md#counted-once): the bundled CLI in a child process, its table file instrumented.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { countsSidecarPath } from '../../../src/node/countsFile.js';
import { buildCliInto } from './cliBundle.js';

const fixtures = resolve(__dirname, '..', '..', 'fixtures', 'sessions');
let dir = '';
let cli = '';
let tableLog = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'capsule-cli-counts-'));
  cli = buildCliInto(join(dir, 'bundle'));
  // The table file writes a line each time a process loads it: the proof that a run built the tokenizer.
  const table = join(dir, 'bundle', 'encodings', 'o200k_base.js');
  renameSync(table, join(dir, 'bundle', 'encodings', 'o200k_base.real.js'));
  writeFileSync(
    table,
    "require('node:fs').appendFileSync(process.env.CAPSULE_TEST_TABLE_LOG, 'o200k_base\\n');\nmodule.exports = require('./o200k_base.real.js');\n",
  );
  tableLog = join(dir, 'tables.log');
});

after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));

/** Runs `capsule budget --json` and returns its figures and whether the run built the table. */
function budget(session: string): { readonly figures: Record<string, unknown>; readonly builtTable: boolean } {
  rmSync(tableLog, { force: true });
  const r = spawnSync(process.execPath, [cli, 'budget', session, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, CAPSULE_DEBUG: '', CAPSULE_TEST_TABLE_LOG: tableLog },
  });
  assert.equal(r.status, 0, r.stderr);
  const figures = JSON.parse(r.stdout) as Record<string, unknown> & { lastCapsule?: { ageMs?: number } };
  // The capsule's age is the one figure that moves between runs.
  if (figures.lastCapsule !== undefined) delete figures.lastCapsule.ageMs;
  return { figures, builtTable: existsSync(tableLog) };
}

test('the first budget counts and keeps the counts; the next one builds no tokenizer and shows the same figures', () => {
  const session = join(dir, 'basic.jsonl');
  copyFileSync(join(fixtures, 'basic.jsonl'), session);
  const first = budget(session);
  assert.equal(first.builtTable, true, 'without counts the history is tokenized');
  assert.ok(existsSync(countsSidecarPath(session)), 'the counts are kept next to the session');
  const second = budget(session);
  assert.equal(second.builtTable, false, 'with its counts no table is built');
  assert.deepEqual(second.figures, first.figures);
});

test('a damaged counts file is ignored: the budget counts again, the same figures, and repairs it', () => {
  const session = join(dir, 'damaged-counts.jsonl');
  copyFileSync(join(fixtures, 'basic.jsonl'), session);
  const exact = budget(session).figures;
  writeFileSync(countsSidecarPath(session), Buffer.from([0x00, 0xff, 0x0a, 0x5b, 0x22, 0x6f]));
  const repaired = budget(session);
  assert.equal(repaired.builtTable, true);
  assert.deepEqual(repaired.figures, exact);
  assert.match(readFileSync(countsSidecarPath(session), 'utf8'), /^\{"capsuleCounts":1,"session":"s_fixture_basic"\}\n/);
  assert.equal(budget(session).builtTable, false);
});

test('a damaged or missing BPE table stops the count with one line that says to reinstall, and keeps no counts', (t) => {
  const bin = join(dir, 'bundle', 'encodings', 'o200k_base.bin');
  const good = readFileSync(bin);
  t.after(() => writeFileSync(bin, good));
  const session = join(dir, 'damaged-table.jsonl');
  for (const damage of [() => writeFileSync(bin, good.subarray(0, good.length - 100)), () => rmSync(bin)]) {
    copyFileSync(join(fixtures, 'basic.jsonl'), session);
    rmSync(countsSidecarPath(session), { force: true });
    damage();
    const r = spawnSync(process.execPath, [cli, 'budget', session, '--json'], {
      encoding: 'utf8',
      env: { ...process.env, CAPSULE_DEBUG: '', CAPSULE_TEST_TABLE_LOG: tableLog },
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /The o200k_base tokenizer files are damaged or missing \(.+\); reinstall Capsule\./);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.equal(existsSync(countsSidecarPath(session)), false, 'no counts made by a broken table are kept');
  }
});
