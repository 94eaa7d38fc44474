// Finds *.test.ts files under the given folders and runs them with node's test runner through tsx.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
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
// Windows learned from errors and stated by servers are remembered per user; tests keep theirs out of the user's config.
const env = { ...process.env, CAPSULE_LIMITS_FILE: process.env.CAPSULE_LIMITS_FILE ?? join(tmpdir(), `capsule-test-limits-${process.pid}.json`) };
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
