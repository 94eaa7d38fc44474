// Extension entry: builds the services and registers views, status bar and commands. Wiring only.
import * as vscode from 'vscode';
import { ProjectMemory } from './node/projectMemory.js';
import { ChatHost } from './vscode/chatHost.js';
import { ChatViewProvider } from './vscode/chatViewProvider.js';
import { CheckpointsTreeProvider } from './vscode/checkpointsTree.js';
import { registerCommands } from './vscode/commands.js';
import { registerImportCommand } from './vscode/importConversation.js';
import { createLogChannel, errorMessage, loggerFor } from './vscode/log.js';
import { Providers } from './vscode/providers.js';
import { ApiKeys } from './vscode/secrets.js';
import { SessionService } from './vscode/sessionService.js';
import { SettingsReader } from './vscode/settings.js';
import { BudgetStatusBar } from './vscode/statusBar.js';

let host: ChatHost | undefined;

/** How often the idle trigger (off by default) is looked at; it fires only after `idleMinutes` anyway. */
const IDLE_CHECK_MS = 60_000;

export function activate(context: vscode.ExtensionContext): void {
  const log = createLogChannel();
  context.subscriptions.push(log);
  log.info(`Capsule ${String(context.extension.packageJSON.version ?? '')} activating`);
  const logger = loggerFor(log);

  const settings = new SettingsReader(log);
  context.subscriptions.push(settings);
  const keys = new ApiKeys(context.secrets);
  context.subscriptions.push(keys);
  const sessions = new SessionService(context, logger);
  context.subscriptions.push(sessions);
  const view = new ChatViewProvider(context.extensionUri, log);
  context.subscriptions.push(view);
  context.subscriptions.push(vscode.window.registerWebviewViewProvider('capsule.chat', view, { webviewOptions: { retainContextWhenHidden: true } }));

  const chat = new ChatHost({ context, sessions, settings, keys, providers: new Providers(keys, logger), view, log, memory: new ProjectMemory(sessions.storagePath) });
  host = chat;
  context.subscriptions.push(chat);

  const tree = new CheckpointsTreeProvider(chat);
  context.subscriptions.push(tree);
  context.subscriptions.push(vscode.window.createTreeView('capsule.checkpoints', { treeDataProvider: tree, showCollapseAll: true }));
  context.subscriptions.push(new BudgetStatusBar(chat));
  registerCommands(context, { host: chat, tree });
  registerImportCommand(context, chat);

  // VS Code's language models come and go (extensions load later, sign-in): the picker and setup follow.
  if (typeof vscode.lm?.onDidChangeChatModels === 'function') context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void chat.scheduleReconcile()));
  const idle = setInterval(() => chat.checkIdle(), IDLE_CHECK_MS);
  idle.unref();
  context.subscriptions.push({ dispose: () => clearInterval(idle) });

  // Opening the chat reads its file; do not hold activation on it. Failures surface in the view.
  sessions.start().catch((err: unknown) => log.error(`Could not open a chat: ${errorMessage(err)}`));
}

/** Stops the running turn, closes the agent and releases the session's writer lock so another window can take it. */
export async function deactivate(): Promise<void> {
  const h = host;
  host = undefined;
  await h?.close();
}
