// Finds *.test.ts files under the given folders and runs them with node's test runner through tsx.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const roots = args.filter((a) => !a.startsWith('--'));
const files = roots.flatMap(find).sort();
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ')}`);
  process.exit(1);
}
// The tests sign change logs with a key of their own, not the user's (~/.config/capsule/snapshot.key); windows learned
// from errors and stated by servers are remembered per user, so tests keep theirs out of the user's config too.
const keyDir = process.env.CAPSULE_KEY_FILE ? undefined : mkdtempSync(join(tmpdir(), 'capsule-test-key-'));
const env = {
  ...process.env,
  ...(keyDir === undefined ? {} : { CAPSULE_KEY_FILE: join(keyDir, 'snapshot.key') }),
  CAPSULE_LIMITS_FILE: process.env.CAPSULE_LIMITS_FILE ?? join(tmpdir(), `capsule-test-limits-${process.pid}.json`),
};
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env });
if (keyDir !== undefined) rmSync(keyDir, { recursive: true, force: true, maxRetries: 10 });
process.exit(r.status ?? 1);
