// A fake extension context for activating Capsule outside VS Code: the fake `vscode` installed, storage and workspace under `tmp`.
import { join } from 'node:path';
import { createFakeVscode, installFakeVscode } from './fakeVscode.js';
import { FakeSecrets } from './fakeVscodeParts.js';

export interface FakeExtensionContext {
  /** What `activate` is given. */
  readonly context: unknown;
  /** Disposes what the extension subscribed (after `deactivate`). */
  dispose(): void;
}

/** `extensionPath`: the extension's folder (its media); `version`: the one the extension reports. */
export function fakeExtensionContext(tmp: string, options: { readonly extensionPath?: string; readonly version?: string } = {}): FakeExtensionContext {
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
    extensionUri: uri(options.extensionPath ?? join(tmp, 'ext')),
    extension: { packageJSON: { version: options.version ?? 'test' } },
  };
  return {
    context,
    dispose: () => {
      for (const d of subscriptions.splice(0)) d.dispose();
    },
  };
}
