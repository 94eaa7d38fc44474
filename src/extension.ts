// Extension entry: builds the services and registers views, status bar and commands. Wiring only.
import * as vscode from 'vscode';
import { ChatViewProvider } from './vscode/chatViewProvider.js';
import { CheckpointsTreeProvider } from './vscode/checkpointsTree.js';
import { registerCommands } from './vscode/commands.js';
import { createLogChannel, errorMessage, loggerFor } from './vscode/log.js';
import { SessionService } from './vscode/sessionService.js';
import { SettingsReader } from './vscode/settings.js';
import { BudgetStatusBar } from './vscode/statusBar.js';

let sessions: SessionService | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = createLogChannel();
  context.subscriptions.push(log);
  log.info(`Capsule ${String(context.extension.packageJSON.version ?? '')} activating`);

  const settings = new SettingsReader(log);
  context.subscriptions.push(settings);

  const service = new SessionService(context, settings, loggerFor(log));
  sessions = service;
  context.subscriptions.push(service);

  const chat = new ChatViewProvider(context.extensionUri, service, log);
  context.subscriptions.push(chat);
  context.subscriptions.push(vscode.window.registerWebviewViewProvider('capsule.chat', chat));

  const tree = new CheckpointsTreeProvider(service);
  context.subscriptions.push(tree);
  context.subscriptions.push(vscode.window.createTreeView('capsule.checkpoints', { treeDataProvider: tree, showCollapseAll: true }));

  context.subscriptions.push(new BudgetStatusBar(service));

  registerCommands(context, { sessions: service, chat, tree, log });

  // Opening the chat reads its file; do not hold activation on it. Failures surface in the view.
  service.start().catch((err: unknown) => log.error(`Could not open a chat: ${errorMessage(err)}`));
}

/** Releases the session's writer lock so another window can take it. */
export async function deactivate(): Promise<void> {
  const s = sessions;
  sessions = undefined;
  await s?.close();
}
