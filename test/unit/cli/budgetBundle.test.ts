// `capsule budget` runs from its own CommonJS bundle (dist/cli-budget.js) without the ES-module entry, prints what the entry prints, and uses its V8 code cache only for the exact bytes it was made from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { codeCachePath, compileBundle, WRITE_CACHE_VAR } from '../../../src/cli/codeCache.js';
import { countsSidecarPath } from '../../../src/node/countsFile.js';
import { tempDir } from '../../support/tempDir.js';
import { buildCliInto } from './cliBundle.js';

const fixtures = resolve(__dirname, '..', '..', 'fixtures', 'sessions');

function run(file: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
  return spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', env: { ...process.env, CAPSULE_DEBUG: '', ...env } });
}

/** The capsule's age moves between runs (Date.now()); everything else is compared byte for byte. */
const steady = (out: string): string => out.replace(/"ageMs": \d+/g, '"ageMs": 0');

test('budget runs from the CommonJS bundle with every ES-module chunk gone, and prints what the ES-module entry prints', async (t) => {
  const dir = await tempDir(t, 'capsule-budget-bundle-');
  const cli = buildCliInto(join(dir, 'bundle'));
  const session = join(dir, 'basic.jsonl');
  copyFileSync(join(fixtures, 'basic.jsonl'), session);
  const entry = join(dir, 'bundle', 'cli-main.mjs');
  const cases = [[], ['--json'], ['--window', '65000', '--max-output', '8000', '--json'], ['--model', 'gpt-4.1'], ['--help'], ['--window', 'abc']];
  // The first run counts the session and writes its counts, so every compared run reads the same sidecar.
  assert.equal(run(entry, ['budget', session]).status, 0);
  const viaEntry = cases.map((args) => run(entry, ['budget', session, ...args]));
  assert.ok(viaEntry[1]?.stdout.startsWith('{'), viaEntry[1]?.stderr);

  const chunks = readdirSync(join(dir, 'bundle')).filter((f) => /^cli-.*\.mjs$/.test(f));
  assert.ok(chunks.includes('cli-main.mjs'));
  for (const f of chunks) rmSync(join(dir, 'bundle', f));
  cases.forEach((args, i) => {
    const r = run(cli, ['budget', session, ...args]);
    const e = viaEntry[i];
    assert.equal(r.status, e?.status, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(steady(r.stdout), steady(e?.stdout ?? ''), args.join(' '));
    assert.equal(r.stderr, e?.stderr, args.join(' '));
  });
  // Any other command still needs the entry, and says so.
  assert.match(run(cli, ['verify', session]).stderr, /^capsule: cannot load \.\/cli-main\.mjs beside /);

  rmSync(join(dir, 'bundle', 'cli-budget.js'));
  const missing = run(cli, ['budget', session]);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /^capsule: cannot load \.\/cli-budget\.js beside .*cli\.js .*; rebuild with npm run build\n$/);
});

test('the code cache is used for the bytes it was made from, and a changed bundle or a damaged cache is compiled as usual', async (t) => {
  const dir = await tempDir(t, 'capsule-code-cache-');
  const cli = buildCliInto(join(dir, 'bundle'));
  const bundle = join(dir, 'bundle', 'cli-budget.js');
  const session = join(dir, 'basic.jsonl');
  copyFileSync(join(fixtures, 'basic.jsonl'), session);
  assert.equal(existsSync(codeCachePath(bundle)), false);
  assert.equal(compileBundle(bundle)?.used, false);

  const first = run(cli, ['budget', session, '--json'], { [WRITE_CACHE_VAR]: '1' });
  assert.equal(first.status, 0, first.stderr);
  assert.equal(compileBundle(bundle)?.used, true);
  const cached = run(cli, ['budget', session, '--json']);
  assert.equal(steady(cached.stdout), steady(first.stdout));
  assert.equal(cached.stderr, '');
  // A run from the cache writes the counts it made (the sidecar's write imports node:crypto, which Node 20 refuses a
  // cached script's import(): the build makes it a require), and prints nothing else.
  rmSync(countsSidecarPath(session));
  const counting = run(cli, ['budget', session, '--json']);
  assert.equal(counting.stderr, '');
  assert.equal(steady(counting.stdout), steady(first.stdout));
  assert.ok(existsSync(countsSidecarPath(session)), 'the counts sidecar is written');

  // A rebuild that changed the bundle (here: one more line) never runs the previous build's code.
  const original = readFileSync(bundle);
  appendFileSync(bundle, 'process.stdout.write("changed\\n");\n');
  assert.equal(compileBundle(bundle)?.used, false);
  // (the added line runs as the bundle loads, before the budget's asynchronous work prints)
  assert.match(run(cli, ['budget', session, '--json']).stdout, /^changed\n\{/);
  writeFileSync(bundle, original);
  assert.equal(compileBundle(bundle)?.used, true);

  // The same length with other bytes (V8 itself compares only the length) is another build too.
  const flipped = Buffer.from(original);
  const at = flipped.indexOf('Context Stats');
  flipped.write('Kontext', at);
  writeFileSync(bundle, flipped);
  assert.equal(compileBundle(bundle)?.used, false);
  assert.match(run(cli, ['budget', session]).stdout, /^Kontext Stats:/);
  writeFileSync(bundle, original);

  const cache = readFileSync(codeCachePath(bundle));
  writeFileSync(codeCachePath(bundle), cache.subarray(0, cache.length - 1000));
  const damaged = run(cli, ['budget', session, '--json']);
  assert.equal(damaged.status, 0, damaged.stderr);
  assert.equal(steady(damaged.stdout), steady(first.stdout));
});
