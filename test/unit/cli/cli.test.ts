// The capsule CLI as a user runs it: the built dist/cli.js in a child process, exit codes and one-line errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { buildCliInto } from './cliBundle.js';

const repo = resolve(__dirname, '..', '..', '..');
const fixtures = join(repo, 'test', 'fixtures', 'sessions');
let cli = '';
let dir = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'capsule-cli-'));
  // Build the CLI exactly as esbuild.mjs does, into the temp dir, so the test runs what users run.
  cli = buildCliInto(dir);
});

after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, CAPSULE_DEBUG: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('budget --json reproduces the docs/behaviour.md#tokens worked example: window 65000, max output 8000 → hard 48808, soft 39046', () => {
  const r = run('budget', '--window', '65000', '--max-output', '8000', join(fixtures, 'basic.jsonl'), '--json');
  assert.equal(r.status, 0, r.stderr);
  const b = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(b.hardLimit, 48808);
  assert.equal(b.softLimit, 39046);
  assert.equal(b.safetyReserveTokens, 8192);
  assert.equal(b.keepRecentTokens, 20000);
  assert.equal(b.capsules, 1);
  assert.ok(typeof b.effectiveTokens === 'number' && b.effectiveTokens > 0);
  assert.ok(b.source === 'estimated' || b.source === 'provider_usage');
});

test('budget prints every /budget field of docs/behaviour.md#observability in text form', () => {
  const r = run('budget', join(fixtures, 'basic.jsonl'), '--window', '65536', '--max-output', '8192');
  assert.equal(r.status, 0, r.stderr);
  for (const label of [
    'Effective tokens',
    'Measurement source',
    'Soft limit',
    'Hard limit',
    'Safety reserve',
    'Keep recent',
    'Capsules',
    'Messages',
    'Turns',
    'Last capsule',
    'Savings ratio',
    'Auto-compact',
    'Next trigger',
  ]) {
    assert.match(r.stdout, new RegExp(label), `missing ${label}`);
  }
  assert.match(r.stdout, /Hard limit:\s+49,152/);
});

test('CAPSULE_AUTO_COMPACT=false shows auto-compact off in the budget', () => {
  const r = spawnSync(process.execPath, [cli, 'budget', join(fixtures, 'basic.jsonl'), '--json'], {
    encoding: 'utf8',
    env: { ...process.env, CAPSULE_AUTO_COMPACT: 'false' },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as { autoCompact: boolean }).autoCompact, false);
});

test('verify passes a clean session and fails a damaged one, naming each problem, without touching the file', () => {
  const ok = run('verify', join(fixtures, 'basic.jsonl'));
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /^OK: /m);
  const damagedCopy = join(dir, 'damaged.jsonl');
  copyFileSync(join(fixtures, 'damaged.jsonl'), damagedCopy);
  const before = readFileSync(damagedCopy);
  const bad = run('verify', damagedCopy);
  assert.equal(bad.status, 1);
  for (const kind of ['invalid_json', 'duplicate_id', 'invalid_entry', 'torn_tail']) assert.match(bad.stdout, new RegExp(kind));
  assert.match(bad.stdout, /^INVALID: /m);
  assert.deepEqual(readFileSync(damagedCopy), before, 'verify must never modify the session');
});

test('verify reports a split tool pair and an unknown version', () => {
  const header = { type: 'session', version: 1, id: 's1', createdAt: '2026-01-01T00:00:00Z', cwd: '/w' };
  const t = '2026-01-01T00:00:01Z';
  const lines = [
    header,
    { id: 'u1', parentId: null, timestamp: t, type: 'user', content: 'go' },
    { id: 'a1', parentId: 'u1', timestamp: t, type: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] },
    { id: 'u2', parentId: 'a1', timestamp: t, type: 'user', content: 'next' },
  ];
  const split = join(dir, 'split.jsonl');
  writeFileSync(split, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = run('verify', split);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /split_tool_pair/);

  const future = join(dir, 'future.jsonl');
  writeFileSync(future, JSON.stringify({ ...header, version: 99 }) + '\n');
  const f = run('verify', future);
  assert.equal(f.status, 1);
  assert.match(f.stdout, /unknown_version/);
});

test('import turns OpenAI messages into a session that verifies and budgets, and refuses to overwrite', () => {
  const msgs = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: 'Fix src/a.ts' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
    { role: 'assistant', content: 'Done.' },
  ];
  const input = join(dir, 'msgs.json');
  writeFileSync(input, JSON.stringify(msgs));
  const out = join(dir, 'imported.jsonl');
  const r = run('import', input, '-o', out);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /imported 5 messages/);
  assert.equal(run('verify', out).status, 0);
  const b = JSON.parse(run('budget', out, '--json').stdout) as { messages: number; turns: number };
  assert.equal(b.messages, 4);
  assert.equal(b.turns, 1);
  const again = run('import', input, '-o', out);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /refusing to overwrite/);
});

test('errors are one line on stderr with a non-zero exit, never a stack trace', () => {
  const cases: [string[], RegExp][] = [
    [['budget', join(dir, 'missing.jsonl')], /Session file not found/],
    [['budget', join(fixtures, 'basic.jsonl'), '--window', 'abc'], /--window must be a positive integer/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['verify', '--bogus'], /unknown option '--bogus'/],
    [['import', join(dir, 'nope.json'), '-o', join(dir, 'x.jsonl')], /input file not found/],
  ];
  for (const [args, pattern] of cases) {
    const r = run(...args);
    assert.notEqual(r.status, 0, args.join(' '));
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split('\n').length, 1, `more than one line for ${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
  assert.equal(existsSync(join(dir, 'x.jsonl')), false);
});

test('import of malformed JSON names the line', () => {
  const input = join(dir, 'bad.jsonl');
  writeFileSync(input, '{"role":"user","content":"hi"}\n{"role":"assistant", oops}\n');
  const r = run('import', input, '-o', join(dir, 'bad-out.jsonl'));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /line 2/);
});

test('a closed pipe (`capsule budget … | head`) ends quietly: exit 0, no stack trace', async () => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [cli, 'budget', join(fixtures, 'basic.jsonl')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // the reader is gone before the first line is written
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
