// Activation stays light: loading and activating the extension formats no number with Intl and loads no session lock library (both are paid for at first use instead).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..', '..', '..');

test('loading and activating the extension starts no Intl formatting and loads no proper-lockfile', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'activationProbe.ts')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const probe = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { localeCalls: number; packages: string[]; fsPatched: boolean };
  assert.equal(probe.localeCalls, 0, 'a module formats a number with toLocaleString while the extension loads or activates');
  for (const lazy of ['proper-lockfile', 'graceful-fs', 'signal-exit'])
    assert.ok(!probe.packages.includes(lazy), `${lazy} is loaded at activation: ${probe.packages.join(', ')}`);
  assert.equal(probe.fsPatched, false, 'graceful-fs patched fs during activation');
  // The probe sees what it should: zod is loaded at activation (the transcript schemas), so a broken probe cannot pass.
  assert.ok(probe.packages.includes('zod'), probe.packages.join(', '));
});
