// The executable prints the overview help without loading the engine's chunks, and says which file is missing when a chunk is gone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../support/tempDir.js';
import { buildCliInto } from './cliBundle.js';

const run = (cli: string, ...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, CAPSULE_DEBUG: '' } });

test('--help, help and no arguments need only the launcher; a command needs the entry chunk and names it when it is missing', async (t) => {
  const dir = await tempDir(t, 'capsule-launcher-');
  const cli = buildCliInto(dir);
  const chunks = readdirSync(dir).filter((f) => /^cli-.*\.mjs$/.test(f));
  assert.ok(chunks.includes('cli-main.mjs') && chunks.length > 3, `the CLI is split into chunks: ${chunks.join(', ')}`);
  // Commands load their own chunks on demand: with every chunk present a command runs.
  const verify = run(cli, 'verify', join(dir, 'missing.jsonl'));
  assert.equal(verify.status, 1);
  assert.match(verify.stderr, /^capsule: Session file not found/);

  for (const f of chunks) rmSync(join(dir, f));
  for (const [args, status] of [
    [['--help'], 0],
    [['help'], 0],
    [[], 2],
  ] as const) {
    const r = run(cli, ...args);
    assert.equal(r.status, status, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^capsule — context-capsule sessions from the command line\n/);
    assert.match(r.stdout, /capsule verify <session\.jsonl> \[--json\]/);
  }
  const broken = run(cli, 'verify', 'x.jsonl');
  assert.equal(broken.status, 1);
  assert.match(broken.stderr, /^capsule: cannot load \.\/cli-main\.mjs beside .*cli\.js .*; rebuild with npm run build\n$/);
});
