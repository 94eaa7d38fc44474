// Child of activationLoad.test.ts: activates the extension from source against the fake `vscode` and prints, as JSON, what loading and activating it touched.
import { mkdtempSync, rmSync } from 'node:fs';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeVscode, installFakeVscode } from '../../support/fakeVscode.js';
import { FakeSecrets } from '../../support/fakeVscodeParts.js';

interface Extension {
  activate(context: unknown): void;
  deactivate(): Promise<void>;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-activation-probe-'));
  const { api } = createFakeVscode(join(tmp, 'ws'));
  installFakeVscode(api);
  const uri = (p: string): unknown => (api.Uri as { file(p: string): unknown }).file(p);
  const memento = (): unknown => {
    const m = new Map<string, unknown>();
    return { get: (k: string) => m.get(k), update: async (k: string, v: unknown) => void m.set(k, v), keys: () => [...m.keys()] };
  };
  const subscriptions: { dispose(): unknown }[] = [];
  const context = {
    subscriptions,
    storageUri: uri(join(tmp, 'storage')),
    globalStorageUri: uri(join(tmp, 'global')),
    workspaceState: memento(),
    globalState: memento(),
    secrets: new FakeSecrets(),
    extensionUri: uri(join(tmp, 'ext')),
    extension: { packageJSON: { version: 'probe' } },
  };
  // Intl's first use starts ICU (tens of milliseconds): count locale formatting done while loading and activating.
  let localeCalls = 0;
  const original = Number.prototype.toLocaleString;
  Number.prototype.toLocaleString = function (this: number, ...args: Parameters<typeof original>): string {
    localeCalls++;
    return original.apply(this, args);
  };
  const ext = require('../../../src/extension.js') as Extension;
  ext.activate(context);
  Number.prototype.toLocaleString = original;
  const loaded = Object.keys(require.cache)
    .filter((k) => k.includes('node_modules'))
    .map((k) => k.slice(k.lastIndexOf('node_modules/') + 'node_modules/'.length).split('/')[0]);
  // graceful-fs (pulled in by proper-lockfile) marks the fs module it patched.
  const fsPatched = Object.getOwnPropertySymbols(fs).some((s) => s.description === 'graceful-fs.queue');
  process.stdout.write(`${JSON.stringify({ localeCalls, packages: [...new Set(loaded)].sort(), fsPatched })}\n`);
  await ext.deactivate();
  for (const d of subscriptions.splice(0)) d.dispose();
  rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  process.exit(0);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
