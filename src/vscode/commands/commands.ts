// The palette commands (category "Capsule"); each id is contributed in package.json (a unit test checks both ways).
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { latestCapsule } from '../../engine/transcript/modelInput.js';
import { showBudget, showCapsule } from '../actions/chatActions.js';
import type { ChatHost } from '../services/chatService.js';
import { loadCapsuleAsNewChat, newChat, reloadChat, rewind, selectModel, setApiKey } from '../actions/sessionActions.js';
import type { CheckpointsTreeProvider } from '../views/checkpointsTree.js';
import { registerTreeCommands } from './treeCommands.js';
import { endpointOf } from '../services/secrets.js';
import { shortTokens } from '../base/format.js';

export interface CommandDeps {
  readonly host: ChatHost;
  readonly tree: CheckpointsTreeProvider;
}

/** Registers every command into context.subscriptions as it is created. */
export function registerCommands(context: vscode.ExtensionContext, d: CommandDeps): void {
  const add = (disposable: vscode.Disposable): void => {
    context.subscriptions.push(disposable);
  };
  const host = d.host;
  const view = host.d.view;

  add(
    vscode.commands.registerCommand('capsule.compactContext', async () => {
      await view.reveal();
      // Through the chat's input queue: it waits for a running turn, shows as queued, and Stop cancels it.
      host.send('/compact');
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.showBudget', async () => {
      await view.reveal();
      showBudget(host);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.toggleAutoCompact', async () => {
      const cfg = vscode.workspace.getConfiguration('capsule');
      const next = !(cfg.get<boolean>('compaction.auto') ?? true);
      const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      await cfg.update('compaction.auto', next, target);
      const envOff = (process.env.CAPSULE_AUTO_COMPACT ?? '').trim().toLowerCase() === 'false';
      const suffix = next ? (envOff ? ' (CAPSULE_AUTO_COMPACT=false still keeps it off)' : '') : '; hard-limit protection stays on';
      void vscode.window.showInformationMessage(`Capsule: auto-compact ${next ? 'on' : 'off'}${suffix}.`);
    }),
  );

  add(vscode.commands.registerCommand('capsule.newChat', () => newChat(host)));

  add(
    vscode.commands.registerCommand('capsule.showLatestCapsule', async () => {
      const found = host.store ? latestCapsule(host.store.tree.branch()) : undefined;
      if (!found) {
        void vscode.window.showInformationMessage('Capsule: this chat has no capsule yet.');
        return;
      }
      await view.reveal();
      showCapsule(host, found.capsule.checkpointId);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.refresh', async () => {
      await reloadChat(host);
      d.tree.refresh();
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.rewindToCheckpoint', async () => {
      const store = host.store;
      const onBranch = new Set(store?.tree.branch().map((e) => e.id));
      const picks = (store?.entries() ?? []).flatMap((e) =>
        e.type === 'checkpoint'
          ? [{ label: e.checkpointId, description: `${e.kind} · ${new Date(e.timestamp).toLocaleString()}${onBranch.has(e.id) ? '' : ' · other branch'}`, detail: e.note?.split('\n')[0], id: e.checkpointId }]
          : [],
      );
      if (picks.length === 0) {
        void vscode.window.showInformationMessage('Capsule: this chat has no checkpoints yet.');
        return;
      }
      const pick = await vscode.window.showQuickPick(picks.reverse(), { title: 'Rewind to Checkpoint', placeHolder: 'The chat continues from the chosen moment on a new branch' });
      if (pick) await rewind(host, pick.id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.selectModel', async () => {
      const current = host.currentModelId();
      const picks = host.models.map((m) => ({
        label: m.label,
        description: `${m.provider === 'lm' ? 'VS Code' : 'endpoint'}${m.id === current ? ' · current' : ''}`,
        detail: `window ${shortTokens(m.contextWindow)} · compacts from ${shortTokens(m.softLimit)} · hard limit ${shortTokens(m.hardLimit)}`,
        id: m.id,
      }));
      if (picks.length === 0) {
        void vscode.window.showInformationMessage('Capsule: no models are available yet; set up a provider in the chat view.');
        return;
      }
      const pick = await vscode.window.showQuickPick(picks, { title: 'Select Model', matchOnDescription: true, matchOnDetail: true });
      if (pick) await selectModel(host, pick.id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.setApiKey', async () => {
      const baseUrl = host.d.settings.current.baseUrl;
      const key = await vscode.window.showInputBox({
        title: 'Set API Key',
        prompt: `API key for ${endpointOf(baseUrl)} (kept in VS Code's secret storage; empty removes it)`,
        password: true,
        ignoreFocusOut: true,
      });
      if (key !== undefined) await setApiKey(host, key);
    }),
  );

  add(vscode.commands.registerCommand('capsule.loadCapsule', () => loadCapsuleAsNewChat(host)));

  add(
    vscode.commands.registerCommand('capsule.showProjectMemory', async () => {
      const path = host.d.memory.path;
      if (!existsSync(path)) {
        void vscode.window.showInformationMessage('Capsule: there is no Project Memory yet. An explicit /compact whose capsule validates writes it.');
        return;
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
  );

  registerTreeCommands(add, host);
}
