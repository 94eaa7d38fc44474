// Extension-host tests: Capsule reads `capsule.*` settings live, reports invalid ones without breaking, and toggles auto-compact.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostTest } from './runner.js';
import { capsuleExtension, logsDir, nextConfigChange, waitForLogCount } from './host.js';

const KEEP_RECENT = 'capsule.compaction.keepRecentTokens';
const AUTO = 'capsule.compaction.auto';
/** Generous: the log channel flushes to disk on its own schedule. Not a speed assertion. */
const LOG_WAIT_MS = 20_000;

async function setGlobal(key: string, value: unknown): Promise<void> {
  // No change event comes when the value is already there; waiting for one would hang.
  if (vscode.workspace.getConfiguration().inspect(key)?.globalValue === value) return;
  const changed = nextConfigChange(key);
  await vscode.workspace.getConfiguration().update(key, value, vscode.ConfigurationTarget.Global);
  await changed;
}

/** After a bad value the extension must still be up and serving its commands. */
async function assertStillServing(): Promise<void> {
  assert.equal(capsuleExtension().isActive, true);
  await vscode.commands.executeCommand('capsule.showBudget');
}

/** The target capsule.toggleAutoCompact writes to: the workspace when a folder is open, else the user settings. */
function toggleTarget(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

function autoAtTarget(): unknown {
  const i = vscode.workspace.getConfiguration().inspect<unknown>(AUTO);
  return toggleTarget() === vscode.ConfigurationTarget.Workspace ? i?.workspaceValue : i?.globalValue;
}

export const settingsTests: readonly HostTest[] = [
  {
    name: 'an invalid keepRecentTokens is warned about (in the Capsule log) and does not break the extension',
    fn: async () => {
      const logs = logsDir();
      const cases: readonly { readonly value: unknown; readonly logged: string }[] = [
        // In the schema's range but above gpt-4o's hard limit: the cross-field check must catch it.
        { value: 5_000_000, logged: 'keepRecentTokens (5000000) must be < hard limit' },
        // Not a number at all: the per-field check must catch it and fall back to the default.
        { value: 'lots', logged: 'keepRecentTokens ("lots") is invalid' },
      ];
      await capsuleExtension().activate();
      try {
        for (const c of cases) {
          await setGlobal(KEEP_RECENT, c.value);
          assert.deepEqual(vscode.workspace.getConfiguration().inspect(KEEP_RECENT)?.globalValue, c.value);
          const seen = await waitForLogCount(logs, c.logged, 1, LOG_WAIT_MS);
          assert.ok(seen >= 1, `no "${c.logged}" warning in any log under ${logs}`);
          await assertStillServing();
        }
      } finally {
        await setGlobal(KEEP_RECENT, undefined);
      }
      assert.equal(vscode.workspace.getConfiguration().inspect(KEEP_RECENT)?.globalValue, undefined);
      await assertStillServing();
    },
  },
  {
    name: 'capsule.toggleAutoCompact flips capsule.compaction.auto and back',
    fn: async () => {
      try {
        assert.equal(vscode.workspace.getConfiguration().get(AUTO), true, 'default must be on');
        await vscode.commands.executeCommand('capsule.toggleAutoCompact');
        assert.equal(autoAtTarget(), false);
        await vscode.commands.executeCommand('capsule.toggleAutoCompact');
        assert.equal(autoAtTarget(), true);
      } finally {
        await vscode.workspace.getConfiguration().update(AUTO, undefined, toggleTarget());
      }
    },
  },
];
