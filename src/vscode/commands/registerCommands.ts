// The palette commands (category "Capsule"): the catalog's, and those with their own pickers; each id is contributed in package.json (a unit test checks both ways).
import * as vscode from 'vscode';
import { PALETTE_ACTIONS } from '../actions/paletteActions.js';
import { COMMANDS, PALETTE_COMMAND_IDS } from '../../protocol/commands.js';
import type { Services } from '../actions/services.js';
import type { ChatReads } from '../../node/chatReads.js';
import { rewind } from '../actions/rewindActions.js';
import { selectModel, setApiKey } from '../actions/sessionActions.js';
import { importConversation } from '../actions/importConversation.js';
import { showProjectMemory } from '../actions/memoryActions.js';
import { addSelectionToChat } from '../actions/contextActions.js';
import { modelDetail } from '../base/modelDetail.js';
import { endpointOf } from '../services/secrets.js';
import { registerTreeCommands } from './treeCommands.js';

/** The message a checkpoint was made before, on one line. */
function messageText(chat: ChatReads | undefined, id: string): string {
  const e = chat?.tree.get(id);
  const text = e?.type === 'user' ? e.content.replace(/\s+/g, ' ') : id;
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
}

/** Registers every command into context.subscriptions as it is created. */
export function registerCommands(context: vscode.ExtensionContext, d: Services): void {
  const add = (disposable: vscode.Disposable): void => {
    context.subscriptions.push(disposable);
  };
  // The catalog's palette commands (src/protocol/commands.ts), each with its action; the rest are registered below.
  for (const id of PALETTE_COMMAND_IDS) add(vscode.commands.registerCommand(COMMANDS[id].palette.id, () => PALETTE_ACTIONS[id](d)));
  // The diff editor's title buttons answer the approval of the edit it shows (the menu passes its resource).
  const editInView = (uri: unknown): string | undefined =>
    d.approvals.pendingFor(uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri);
  add(
    vscode.commands.registerCommand('capsule.acceptEdit', async (uri: unknown) => {
      const id = editInView(uri);
      if (id !== undefined) await d.approvals.answer(id, 'allow');
    }),
  );
  add(
    vscode.commands.registerCommand('capsule.rejectEdit', async (uri: unknown) => {
      const id = editInView(uri);
      if (id !== undefined) await d.approvals.answer(id, 'deny');
    }),
  );
  add(
    vscode.commands.registerCommand('capsule.rewindToCheckpoint', async () => {
      const chat = d.chat.open;
      const onBranch = new Set(chat?.branch().map((e) => e.id));
      const picks = (chat?.entries() ?? []).flatMap((e) =>
        e.type === 'checkpoint'
          ? [
              {
                label: e.forEntryId ? `Before: ${messageText(chat, e.forEntryId)}` : e.checkpointId,
                description: `${e.kind} · ${new Date(e.timestamp).toLocaleString()}${onBranch.has(e.id) ? '' : ' · other branch'}`,
                detail: e.note?.split('\n')[0],
                id: e.checkpointId,
              },
            ]
          : [],
      );
      if (picks.length === 0) {
        void vscode.window.showInformationMessage('Capsule: this chat has no checkpoints yet.');
        return;
      }
      const pick = await vscode.window.showQuickPick(picks.reverse(), {
        title: 'Rewind to Checkpoint',
        placeHolder: 'The chat continues from the chosen moment on a new branch',
      });
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

  add(vscode.commands.registerCommand('capsule.addSelectionToChat', () => addSelectionToChat(d)));
  add(vscode.commands.registerCommand('capsule.importConversation', () => importConversation(d)));

  add(vscode.commands.registerCommand('capsule.showProjectMemory', () => showProjectMemory(d)));
  registerTreeCommands(add, d);
}
