// Child of the activation benchmark: loads dist/extension.js against the fake `vscode` and activates it, once, and prints the figures as JSON. The benchmark bundles it and runs it with plain `node`, so the bundle loads as the extension host loads it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeExtensionContext } from '../test/support/extensionContext.js';

interface Extension {
  activate(context: unknown): void;
  deactivate(): Promise<void>;
}

async function main(): Promise<void> {
  const [bundle, mode] = process.argv.slice(2);
  if (bundle === undefined) throw new Error('usage: activationChild <dist/extension.js> [eager]');
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-activation-'));
  const { context, dispose } = fakeExtensionContext(tmp, { extensionPath: join(bundle, '..', '..'), version: 'bench' });
  const load = createRequire(__filename);
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const ext = load(bundle) as Extension;
  // The eager baseline builds both BPE tables at load, as the bundle did when it inlined them.
  if (mode === 'eager') for (const name of ['o200k_base', 'cl100k_base']) load(join(bundle, '..', 'encodings', `${name}.js`));
  const t1 = performance.now();
  ext.activate(context);
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
  process.stdout.write(`${JSON.stringify({ loadMs: t1 - t0, activateMs: t2 - t1, totalMs: t2 - t0, cpuMs: (cpu.user + cpu.system) / 1000, heapMb })}\n`);
  await ext.deactivate();
  dispose();
  rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
