// Extension-host tests: Capsule activates in desktop VS Code, registers every contributed command, shows its views.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostTest } from './runner.js';
import { capsuleExtension, contributedCommands, contributedViews, EXTENSION_ID, VIEW_CONTAINER } from './host.js';

export const extensionTests: readonly HostTest[] = [
  {
    name: `${EXTENSION_ID} is installed from the repo and activates`,
    fn: async () => {
      const ext = capsuleExtension();
      await ext.activate();
      assert.equal(ext.isActive, true);
    },
  },
  {
    name: 'every command contributed in package.json is registered',
    fn: async () => {
      const contributed = contributedCommands(capsuleExtension());
      // Guards against reading the manifest wrongly and then comparing nothing.
      assert.ok(contributed.includes('capsule.showBudget'), `manifest commands: ${contributed.join(', ')}`);
      const registered = new Set(await vscode.commands.getCommands(true));
      assert.deepEqual(
        contributed.filter((c) => !registered.has(c)),
        [],
        'contributed but not registered by activate()',
      );
    },
  },
  {
    name: 'the Capsule container and its views open',
    fn: async () => {
      // Rejects with "command not found" when the container is not contributed.
      await vscode.commands.executeCommand(`workbench.view.extension.${VIEW_CONTAINER}`);
      const views = contributedViews(capsuleExtension());
      assert.deepEqual([...views].sort(), ['capsule.chat', 'capsule.checkpoints']);
      // VS Code registers `<viewId>.focus` for every view it knows; focusing resolves the webview / tree.
      for (const id of views) await vscode.commands.executeCommand(`${id}.focus`);
    },
  },
  {
    name: 'capsule.showBudget runs without throwing',
    fn: async () => {
      await vscode.commands.executeCommand('capsule.showBudget');
    },
  },
];
