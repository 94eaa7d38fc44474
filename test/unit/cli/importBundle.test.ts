// `capsule import` runs from its own CommonJS bundle (dist/cli-import.js) without the ES-module entry, prints and writes what the entry does, and starts from a code cache made by an import run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { codeCachePath, compileBundle, WRITE_CACHE_VAR } from '../../../src/cli/codeCache.js';
import { tempDir } from '../../support/tempDir.js';
import { buildCliInto } from './cliBundle.js';

const fixtures = resolve(__dirname, '..', '..', 'fixtures', 'import');

function run(file: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
  return spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', env: { ...process.env, CAPSULE_DEBUG: '', ...env } });
}

/** When these tests started: a later time in a session is the import's own (its header, entries of formats without times). */
const STARTED = new Date().toISOString();

/** An imported session with its run's own values (new ids, the times of the run) made alike, ids in order of appearance. */
function steadySession(text: string): string {
  const seen = new Map<string, string>();
  return text
    .replace(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/g, (all, time: string) => (time >= STARTED ? '"now"' : all))
    .replace(/\be_[a-z0-9]{12}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, (id) => {
      if (!seen.has(id)) seen.set(id, `id${seen.size}`);
      return seen.get(id) ?? id;
    });
}

test('import runs from the CommonJS bundle with every ES-module chunk gone, and prints and writes what the ES-module entry does', async (t) => {
  const dir = await tempDir(t, 'capsule-import-bundle-');
  const cli = buildCliInto(join(dir, 'bundle'));
  const entry = join(dir, 'bundle', 'cli-main.mjs');
  const inputs = ['claude-code.jsonl', 'claude-code-parallel.jsonl', 'codex.jsonl', 'anthropic.json', 'swe-agent.traj'];
  const cases: (readonly string[])[] = [
    ...inputs.map((f) => [join(fixtures, f), '-o', `OUT/${f}.jsonl`]),
    [join(fixtures, 'codex.jsonl'), '-o', 'OUT/from.jsonl', '--from', 'claude-code'],
    [join(fixtures, 'codex.jsonl'), '-o', 'OUT/bad.jsonl', '--from', 'nope'],
    [join(fixtures, 'missing.jsonl'), '-o', 'OUT/missing.jsonl'],
    [join(fixtures, 'codex.jsonl')],
    ['--help'],
  ];
  const outputs = (side: string) => {
    const out = join(dir, side);
    return cases.map((args) => {
      const r = run(side === 'entry' ? entry : cli, ['import', ...args.map((a) => a.replace('OUT', out))]);
      const file = args[2]?.replace('OUT', out);
      let session: string | undefined;
      try {
        session = file === undefined ? undefined : steadySession(readFileSync(file, 'utf8'));
      } catch {
        session = undefined;
      }
      return { status: r.status, stdout: r.stdout.replaceAll(out, 'OUT'), stderr: r.stderr.replaceAll(out, 'OUT'), session };
    });
  };
  const viaEntry = outputs('entry');
  assert.equal(viaEntry[0]?.status, 0, viaEntry[0]?.stderr);
  assert.ok(viaEntry.filter((r) => r.session !== undefined).length >= inputs.length);
  assert.ok(viaEntry.some((r) => r.status !== 0 && r.stderr.startsWith('capsule: ')));

  for (const f of readdirSync(join(dir, 'bundle')).filter((f) => /^cli-.*\.mjs$/.test(f))) rmSync(join(dir, 'bundle', f));
  const viaBundle = outputs('bundle');
  viaBundle.forEach((r, i) => assert.deepEqual(r, viaEntry[i], cases[i]?.join(' ')));

  rmSync(join(dir, 'bundle', 'cli-import.js'));
  const missing = run(cli, ['import', join(fixtures, 'codex.jsonl'), '-o', join(dir, 'x.jsonl')]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^capsule: cannot load \.\/cli-import\.js beside .*cli\.js .*; rebuild with npm run build\n$/);
});

test('an import run writes the code cache a later import starts from, and both write the same session', async (t) => {
  const dir = await tempDir(t, 'capsule-import-cache-');
  const cli = buildCliInto(join(dir, 'bundle'));
  const bundle = join(dir, 'bundle', 'cli-import.js');
  assert.equal(compileBundle(bundle).used, false);
  const input = join(fixtures, 'claude-code.jsonl');
  const first = run(cli, ['import', input, '-o', join(dir, 'first.jsonl')], { [WRITE_CACHE_VAR]: '1' });
  assert.equal(first.status, 0, first.stderr);
  assert.ok(readFileSync(codeCachePath(bundle)).length > 0);
  assert.equal(compileBundle(bundle).used, true);
  const cached = run(cli, ['import', input, '-o', join(dir, 'cached.jsonl')]);
  assert.equal(cached.status, 0, cached.stderr);
  assert.equal(cached.stdout.replace('cached.jsonl', 'first.jsonl'), first.stdout);
  assert.deepEqual(steadySession(readFileSync(join(dir, 'cached.jsonl'), 'utf8')), steadySession(readFileSync(join(dir, 'first.jsonl'), 'utf8')));
});

test('without WebAssembly (node --jitless) an import passes nothing through and writes the same session', async (t) => {
  const dir = await tempDir(t, 'capsule-import-jitless-');
  const cli = buildCliInto(join(dir, 'bundle'));
  // The fixture written as Claude Code writes it (compact JSON), each result long enough to pass through.
  const output = (i: number): string => Array.from({ length: 40 }, (_, k) => `line ${k} of result ${i}: "quoted"\tand é\n`).join('');
  let n = 0;
  const lines = readFileSync(join(fixtures, 'claude-code.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const v = JSON.parse(line) as { message?: { content?: unknown } };
      const blocks = v.message?.content;
      if (Array.isArray(blocks)) for (const b of blocks as Record<string, unknown>[]) if (b['type'] === 'tool_result') b['content'] = output(n++);
      return JSON.stringify(v);
    });
  assert.ok(n >= 2);
  const input = join(dir, 'compact.jsonl');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const usual = run(cli, ['import', input, '-o', join(dir, 'usual.jsonl')]);
  assert.equal(usual.status, 0, usual.stderr);
  const jitless = spawnSync(process.execPath, ['--jitless', cli, 'import', input, '-o', join(dir, 'jitless.jsonl')], { encoding: 'utf8' });
  assert.equal(jitless.status, 0, jitless.stderr);
  assert.equal(jitless.stdout.replace('jitless.jsonl', 'usual.jsonl'), usual.stdout);
  const written = readFileSync(join(dir, 'usual.jsonl'), 'utf8');
  assert.ok(written.includes(JSON.stringify(output(0)).slice(1, -1)));
  assert.equal(steadySession(readFileSync(join(dir, 'jitless.jsonl'), 'utf8')), steadySession(written));
});
