// Learned windows are visible and reversible (`capsule limits`, budget's window source, chat's [window] line), and a FIFO in place of a state file never hangs the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { LearnedLimitsFile } from '../../../src/node/learnedLimits.js';
import { readIntents, writeIntents } from '../../../src/node/intentsFile.js';
import { chat, edgeRig } from './edgeRig.js';
import { cliBundle } from './cliBundle.js';

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

test("a FIFO as the learned-limits file (beside FIFOs as the session's flight log and intents file): chat warns once and completes instead of hanging", async (t) => {
  const rig = await edgeRig(t, { window: 65_536 });
  const session = join(rig.dir, 'fifo.jsonl');
  for (const p of [rig.limitsFile, join(rig.dir, 'fifo.flight.jsonl'), join(rig.dir, 'fifo.intents.json')]) execFileSync('mkfifo', [p]);
  rig.server.setFallback(() => ({ text: 'hello' }));
  const child = spawn(
    process.execPath,
    [await cliBundle(), 'chat', '--base-url', rig.server.url, '--model', 'fake-model', '--session', session, '--workspace', rig.ws, 'hi'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CAPSULE_LIMITS_FILE: rig.limitsFile },
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // A generous bound for a loaded machine: before the fix the open blocked forever, waiting for a writer.
  const bound = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(bound);
  assert.equal(code, 0, `chat hung or failed on a FIFO:\n${out}`);
  assert.match(out, /^\[warn\] learned-limits file .* is a named pipe \(FIFO\), not a regular file; ignoring it$/m);
  assert.match(out, /^hello$/m);
  // Nothing wrote over the FIFO either.
  await assert.rejects(
    new LearnedLimitsFile(rig.limitsFile).record(rig.server.url, 'fake-model', { contextWindow: 8_192 }),
    /not a regular file; not writing it/,
  );
  await assert.rejects(cli(['budget', join(rig.dir, 'fifo.flight.jsonl')]), (e: unknown) => e instanceof CliError && /named pipe \(FIFO\)/.test(e.message));
});

test('capsule limits lists learned windows with their date and forgets one or all; --json for scripts', async (t) => {
  const rig = await edgeRig(t, { window: 65_536 });
  assert.match((await cli(['limits'])).out, /^No learned windows in .*limits\.json\.$/);
  const file = new LearnedLimitsFile(rig.limitsFile);
  await file.record('http://a.example/v1/', 'model-a', { contextWindow: 16_384, maxOutputTokens: 2_048 }, new Date('2026-11-30T10:00:00Z'));
  await file.record('http://b.example/v1', 'model-b', { contextWindow: 8_192 }, new Date('2026-12-01T10:00:00Z'));
  const list = await cli(['limits']);
  assert.match(list.out, /^  http:\/\/a\.example\/v1  model-a  window 16,384 tokens, max output 2,048 · learned from an overflow error on 2026-11-30$/m);
  assert.match(list.out, /^  http:\/\/b\.example\/v1  model-b  window 8,192 tokens · learned from an overflow error on 2026-12-01$/m);
  const json = JSON.parse((await cli(['limits', '--json'])).out) as { limits: { endpoint: string; model: string; contextWindow: number; learnedAt: string }[] };
  assert.deepEqual(
    json.limits.map((l) => [l.endpoint, l.model, l.contextWindow, l.learnedAt.slice(0, 10)]),
    [
      ['http://a.example/v1', 'model-a', 16_384, '2026-11-30'],
      ['http://b.example/v1', 'model-b', 8_192, '2026-12-01'],
    ],
  );

  // A trailing slash names the same endpoint.
  const forgot = await cli(['limits', 'forget', 'http://a.example/v1/', 'model-a']);
  assert.match(forgot.out, /^Forgot http:\/\/a\.example\/v1  model-a  window 16,384/);
  assert.equal(await file.get('http://a.example/v1', 'model-a'), undefined);
  assert.deepEqual(await file.get('http://b.example/v1', 'model-b'), { contextWindow: 8_192 });
  await assert.rejects(
    cli(['limits', 'forget', 'http://a.example/v1', 'model-a']),
    (e: unknown) => e instanceof CliError && e.exitCode === 1 && /no window learned for model-a/.test(e.message),
  );
  await assert.rejects(cli(['limits', 'forget']), (e: unknown) => e instanceof CliError && /give an endpoint and a model, or --all/.test(e.message));
  await assert.rejects(cli(['limits', 'forget', 'http://b.example/v1']), (e: unknown) => e instanceof CliError && /missing model/.test(e.message));
  const all = JSON.parse((await cli(['limits', 'forget', '--all', '--json'])).out) as { forgotten: { model: string }[] };
  assert.deepEqual(
    all.forgotten.map((f) => f.model),
    ['model-b'],
  );
  assert.deepEqual(JSON.parse(await readFile(rig.limitsFile, 'utf8')), { version: 1, limits: {} });
});

test('a learned window is announced by chat and named by budget; an explicit --window wins and says so; after forget it is gone', async (t) => {
  const rig = await edgeRig(t, { window: 65_536 });
  rig.server.setFallback(() => ({ text: 'ok' }));
  const file = new LearnedLimitsFile(rig.limitsFile);
  await file.record(rig.server.url, 'fake-model', { contextWindow: 16_384, maxOutputTokens: 2_048 }, new Date('2026-11-30T10:00:00Z'));

  const first = await chat(rig, 'fake-model', 'hello');
  assert.equal(first.code, 0, first.lines.join('\n'));
  const forget = `'capsule limits forget ${rig.server.url} fake-model' drops it`;
  assert.ok(
    first.lines.includes(`[window] Using the window of 16,384 tokens learned from this endpoint's overflow error on 2026-11-30; ${forget}`),
    first.lines.join('\n'),
  );
  const budget = await cli(['budget', rig.session]);
  assert.ok(budget.out.includes(`  Window source:       learned from ${rig.server.url}'s overflow error on 2026-11-30; ${forget}`), budget.out);
  const json = JSON.parse((await cli(['budget', rig.session, '--json'])).out) as { contextWindow: number; windowSource: { kind: string } };
  assert.equal(json.contextWindow, 16_384);
  assert.equal(json.windowSource.kind, 'learned');

  const flagged = await chat(rig, 'fake-model', 'again', '--window', '65536');
  assert.ok(
    flagged.lines.includes("[window] --window 65,536 wins over the window of 16,384 tokens learned from this endpoint's overflow error on 2026-11-30"),
    flagged.lines.join('\n'),
  );
  const flagBudget = await cli(['budget', rig.session, '--window', '65536']);
  assert.match(flagBudget.out, /^  Window source:       --window, which wins over the 16,384 learned from .*'s overflow error on 2026-11-30$/m);

  await cli(['limits', 'forget', rig.server.url, 'fake-model']);
  const after = await chat(rig, 'fake-model', 'and again');
  assert.ok(!after.lines.some((l) => l.startsWith('[window]')), after.lines.join('\n'));
  assert.match(
    (await cli(['budget', rig.session])).out,
    /^  Window source:       set with --window \(or the model setting\) when the session last chose this model \(recorded in the session\)$/m,
  );
});

test('state files are replaced through a fresh, exclusively created temporary name: a FIFO planted at the old fixed name is never opened', async (t) => {
  const rig = await edgeRig(t, { window: 65_536 });
  const intents = join(rig.dir, 's.intents.json');
  execFileSync('mkfifo', [`${intents}.tmp`]);
  // Bounded generously for a loaded machine; before the fix the write waited for a reader forever.
  const bounded = <T>(p: Promise<T>): Promise<T | 'blocked'> =>
    Promise.race([p, new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 30_000).unref())]);
  assert.notEqual(await bounded(writeIntents(intents, { pending: [] })), 'blocked');
  assert.deepEqual(await readIntents(intents), { pending: [] });
  assert.deepEqual((await readdir(rig.dir)).filter((n) => n.includes('.tmp')).sort(), ['s.intents.json.tmp'], 'no temporary file left behind');
});
