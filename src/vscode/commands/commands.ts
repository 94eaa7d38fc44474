// The palette commands (category "Capsule"); each id is contributed in package.json (a unit test checks both ways).
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { paletteActions } from '../actions/paletteActions.js';
import type { Services } from '../actions/services.js';
import type { CheckpointKind } from '../../engine/transcript/schema.js';
import type { JsonlSessionStore } from '../../node/jsonlStore.js';
import { createCheckpoint, rewind } from '../actions/rewindActions.js';
import { loadCapsuleAsNewChat, selectModel, setApiKey } from '../actions/sessionActions.js';
import { importConversation } from '../actions/importConversation.js';
import { shortTokens } from '../../protocol/format.js';
import { modelDetail } from '../base/modelDetail.js';
import { endpointOf } from '../services/secrets.js';
import { registerTreeCommands } from './treeCommands.js';

/** Registers every command into context.subscriptions as it is created. */
function messageText(store: JsonlSessionStore | undefined, id: string): string {
  const e = store?.tree.get(id);
  const text = e?.type === 'user' ? e.content.replace(/\s+/g, ' ') : id;
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

export function registerCommands(context: vscode.ExtensionContext, d: Services): void {
  const add = (disposable: vscode.Disposable): void => {
    context.subscriptions.push(disposable);
  };
  const a = paletteActions(d);
  add(vscode.commands.registerCommand('capsule.compactContext', () => a.compactContext()));
  add(vscode.commands.registerCommand('capsule.showBudget', () => a.showBudget()));
  add(vscode.commands.registerCommand('capsule.toggleAutoCompact', () => a.toggleAutoCompact()));
  add(vscode.commands.registerCommand('capsule.newChat', () => a.newChat()));
  add(vscode.commands.registerCommand('capsule.showLatestCapsule', () => a.showLatestCapsule()));
  add(vscode.commands.registerCommand('capsule.refresh', () => a.refresh()));
  const checkpointCommand = (kind: CheckpointKind, prompt: string) => async (): Promise<void> => {
    const note = await vscode.window.showInputBox({ title: prompt, prompt: 'Shown in the Checkpoints tree', ignoreFocusOut: true });
    if (note === undefined) return;
    await createCheckpoint(d, kind, note.trim() === '' ? undefined : note.trim());
  };
  add(vscode.commands.registerCommand('capsule.createCheckpoint', checkpointCommand('user', 'A note for this checkpoint (optional)')));
  add(vscode.commands.registerCommand('capsule.markMilestone', checkpointCommand('milestone', 'What was reached (optional)')));
  add(vscode.commands.registerCommand('capsule.markPivot', checkpointCommand('plan_pivot', 'What changes in the plan (optional)')));
  // The diff editor's title buttons answer the approval of the edit it shows (the menu passes its resource).
  const editInView = (uri: unknown): string | undefined => d.approvals.pendingFor(uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri);
  add(vscode.commands.registerCommand('capsule.acceptEdit', async (uri: unknown) => {
    const id = editInView(uri);
    if (id !== undefined) await d.approvals.answer(id, 'allow');
  }));
  add(vscode.commands.registerCommand('capsule.rejectEdit', async (uri: unknown) => {
    const id = editInView(uri);
    if (id !== undefined) await d.approvals.answer(id, 'deny');
  }));
  add(
    vscode.commands.registerCommand('capsule.rewindToCheckpoint', async () => {
      const store = d.chat.store;
      const onBranch = new Set(store?.tree.branch().map((e) => e.id));
      const picks = (store?.entries() ?? []).flatMap((e) =>
        e.type === 'checkpoint'
          ? [{ label: e.forEntryId ? `Before: ${messageText(store, e.forEntryId)}` : e.checkpointId, description: `${e.kind} · ${new Date(e.timestamp).toLocaleString()}${onBranch.has(e.id) ? '' : ' · other branch'}`, detail: e.note?.split('\n')[0], id: e.checkpointId }]
          : [],
      );
      if (picks.length === 0) {
        void vscode.window.showInformationMessage('Capsule: this chat has no checkpoints yet.');
        return;
      }
      const pick = await vscode.window.showQuickPick(picks.reverse(), { title: 'Rewind to Checkpoint', placeHolder: 'The chat continues from the chosen moment on a new branch' });
      if (pick) await rewind(d, pick.id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.selectModel', async () => {
      const current = d.chat.currentModelId();
      const picks = d.chat.models.map((m) => ({
        label: m.label,
        description: `${m.provider === 'lm' ? 'VS Code' : 'endpoint'}${m.id === current ? ' · current' : ''}`,
        detail: modelDetail(m),
        id: m.id,
      }));
      if (picks.length === 0) {
        void vscode.window.showInformationMessage('Capsule: no models are available yet; set up a provider in the chat view.');
        return;
      }
      const pick = await vscode.window.showQuickPick(picks, { title: 'Select Model', matchOnDescription: true, matchOnDetail: true });
      if (pick) await selectModel(d, pick.id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.setApiKey', async () => {
      const baseUrl = d.settings.current.baseUrl;
      const key = await vscode.window.showInputBox({
        title: 'Set API Key',
        prompt: `API key for ${endpointOf(baseUrl)} (kept in VS Code's secret storage; empty removes it)`,
        password: true,
        ignoreFocusOut: true,
      });
      if (key !== undefined) await setApiKey(d, key);
    }),
  );

  add(vscode.commands.registerCommand('capsule.loadCapsule', () => loadCapsuleAsNewChat(d)));
  add(vscode.commands.registerCommand('capsule.importConversation', () => importConversation(d)));

  add(
    vscode.commands.registerCommand('capsule.showProjectMemory', async () => {
      const path = d.memory.path;
      if (!existsSync(path)) {
        void vscode.window.showInformationMessage('Capsule: there is no Project Memory yet. An explicit /compact whose capsule validates writes it.');
        return;
      }
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
      await vscode.window.showTextDocument(doc, { preview: false });
    }),
  );

  registerTreeCommands(add, d);
}
