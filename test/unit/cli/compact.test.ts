// `capsule compact` and `capsule show` through main(): the same engine on a real session file, result line, verify afterwards.
import { test } from 'node:test';
import { tempDir } from '../../support/tempDir.js';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { archiveDirFor, flightLogFor } from '../../../src/cli/commands/compact.js';
import { main } from '../../../src/cli/main.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { readFlightRecords } from '../../../src/node/flightRecorder.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY, session } from '../compaction/harness.js';

async function writeSession(path: string, entries: readonly Entry[]): Promise<void> {
  const store = await JsonlSessionStore.open(path, { create: { id: 's_cli', cwd: '/w' } });
  try {
    for (const e of entries) await store.append(e);
  } finally {
    await store.close();
  }
}

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

async function rejectsWith(argv: readonly string[], message: RegExp, exitCode?: number): Promise<void> {
  await assert.rejects(cli(argv), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.match(e.message, message);
    assert.ok(!e.message.includes('\n'), 'one line');
    if (exitCode !== undefined) assert.equal(e.exitCode, exitCode);
    return true;
  });
}

test('compact --fallback --window 65000 on a session over the hard limit appends a capsule, prints the line, and verify/budget agree it fits', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'big.jsonl');
  await writeSession(path, session(30, 100));
  const before = JSON.parse((await cli(['budget', path, '--window', '65000', '--json'])).out) as { effectiveTokens: number; hardLimit: number };
  assert.ok(before.effectiveTokens > before.hardLimit, `${before.effectiveTokens} > ${before.hardLimit}`);

  const r = await cli(['compact', path, '--fallback', '--window', '65000']);
  console.log(r.out);
  assert.equal(r.code, 0);
  assert.match(
    r.out,
    /^Context compacted \(hard_limit\): [\d,]+ → [\d,]+ tokens, reclaimed \d+% · ck_[a-z0-9]+ · fallback capsule \(degraded\) · tokens (?:estimated|: before provider-reported, after estimated)$/,
  );

  const verify = await cli(['verify', path]);
  assert.equal(verify.code, 0, verify.out);
  assert.match(verify.out, /^OK: /m);
  const after = JSON.parse((await cli(['budget', path, '--window', '65000', '--json'])).out) as {
    effectiveTokens: number;
    hardLimit: number;
    capsules: number;
  };
  assert.equal(after.capsules, 1);
  assert.ok(after.effectiveTokens <= after.hardLimit, `${after.effectiveTokens} <= ${after.hardLimit}`);

  // Evidence next to the session, one flight record without capsule text.
  const snapshots = (await readdir(archiveDirFor(path))).filter((n) => n.endsWith('.json'));
  assert.equal(snapshots.length, 1);
  const flights = await readFlightRecords(flightLogFor(path));
  assert.equal(flights.length, 1);
  assert.equal(flights[0]?.outcome, 'completed');
  assert.ok(!(await readFile(flightLogFor(path), 'utf8')).includes('## Goal'));

  const shown = await cli(['show', path]);
  assert.equal(shown.code, 0);
  assert.match(shown.out, /^Capsule e_\w+ · ck_\w+ · hard_limit · degraded · [\d,]+ → [\d,]+ tokens/);
  assert.match(shown.out, /## Goal/);
  assert.match(shown.out, /## Ledger/);
  const ck = /· (ck_\w+) ·/.exec(shown.out)?.[1] ?? '';
  const byCheckpoint = JSON.parse((await cli(['show', path, '--checkpoint', ck, '--json'])).out) as Entry;
  assert.equal(byCheckpoint.type, 'capsule');
  assert.equal(byCheckpoint.type === 'capsule' && byCheckpoint.checkpointId, ck);
});

test('compact --json reports the outcome; a tiny session is a skipped no-op that leaves the file unchanged', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'tiny.jsonl');
  await writeSession(path, session(1, 5));
  const bytes = await readFile(path, 'utf8');
  const r = await cli(['compact', path, '--fallback', '--json']);
  assert.equal(r.code, 0);
  const j = JSON.parse(r.out) as { outcomes: { outcome: string; reason: string }[]; fits: boolean; lines: string[] };
  assert.equal(j.outcomes[0]?.outcome, 'skipped');
  assert.match(j.outcomes[0]?.reason ?? '', /nothing safe to compact/);
  assert.equal(j.fits, true);
  assert.equal(await readFile(path, 'utf8'), bytes);
  await rejectsWith(['show', path], /no capsule on the active branch/, 1);
});

test('a soft trigger on demand still passes the ROI gate: --trigger auto_threshold on a small session is skipped', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'small.jsonl');
  await writeSession(path, session(6, 100));
  const r = await cli(['compact', path, '--fallback', '--trigger', 'auto_threshold']);
  assert.equal(r.code, 0);
  assert.match(r.out, /^Context compaction skipped \(auto_threshold\): only \d+ tokens/);
});

test('compact --base-url uses an OpenAI-compatible endpoint for a full capsule', async (t) => {
  const server = await startFakeOpenAI({ window: 65000 });
  t.after(() => server.close());
  server.enqueue({ text: GOOD_SUMMARY });
  const dir = await tempDir(t);
  const path = join(dir, 'model.jsonl');
  await writeSession(path, session(30, 100));
  const r = await cli(['compact', path, '--base-url', server.url, '--model', 'gpt-4o', '--window', '65000', '--json']);
  const j = JSON.parse(r.out) as { outcomes: { outcome: string; quality: string }[]; fits: boolean };
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(
    j.outcomes.map((o) => [o.outcome, o.quality]),
    [['completed', 'full']],
  );
  assert.equal(j.fits, true);
  assert.equal(server.chatRequests.length, 1);
  assert.equal(server.chatRequests[0]?.status, 200, 'the summary request fitted the window');
});

test('compact and show errors are one line with a non-zero exit', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  await writeSession(path, session(2, 5));
  await rejectsWith(['compact', path], /choose --fallback/, 2);
  await rejectsWith(['compact', path, '--fallback', '--base-url', 'http://x/v1'], /exclude each other/, 2);
  await rejectsWith(['compact', path, '--base-url', 'http://127.0.0.1:1/v1'], /needs --model/, 2);
  await rejectsWith(['compact', path, '--fallback', '--trigger', 'sometimes'], /--trigger must be one of hard_limit/, 2);
  await rejectsWith(['compact', join(dir, 'missing.jsonl'), '--fallback'], /not found/, 1);
  await rejectsWith(['compact'], /missing session file/, 2);
  await rejectsWith(['show', path, '--checkpoint', 'ck_nope'], /no checkpoint ck_nope/, 1);
});
