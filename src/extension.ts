// Extension entry: composes the services, the projection, the views and the commands. Wiring only.
import * as vscode from 'vscode';
import { McpServers } from './vscode/services/mcpServers.js';
import { mcpTokenCount, showMcpServers } from './vscode/actions/mcpActions.js';
import { ProjectMemory } from './node/projectMemory.js';
import type { Services } from './vscode/actions/services.js';
import { createLogChannel, errorMessage, loggerFor } from './vscode/base/log.js';
import { registerCommands } from './vscode/commands/registerCommands.js';
import { IntentRouter } from './vscode/commands/router.js';
import { ChatProjection } from './vscode/projection/chatProjection.js';
import { ApprovalService } from './vscode/services/approvals.js';
import { CapsuleFolder } from './vscode/services/capsuleFolder.js';
import { ChatService } from './vscode/services/chatService.js';
import { Providers } from './vscode/services/providers.js';
import { LearnedWindows } from './vscode/services/learnedWindows.js';
import { ApiKeys } from './vscode/services/secrets.js';
import { SessionService } from './vscode/services/sessionService.js';
import { SettingsReader } from './vscode/services/settings.js';
import { SnapshotDocuments } from './vscode/services/snapshotDocuments.js';
import { WorkspaceFiles } from './vscode/services/workspaceFileSearch.js';
import { ChatViewProvider } from './vscode/views/chatViewProvider.js';
import { CheckpointsTreeProvider } from './vscode/views/checkpointsTree.js';
import { BudgetStatusBar } from './vscode/views/statusBar.js';

let chat: ChatService | undefined;

/** How often the idle trigger (off by default) is looked at; it fires only after `idleMinutes` anyway. */
const IDLE_CHECK_MS = 60_000;

export function activate(context: vscode.ExtensionContext): void {
  const own = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const log = own(createLogChannel());
  log.info(`Capsule ${String(context.extension.packageJSON.version ?? '')} activating`);
  const logger = loggerFor(log);

  // Services: each owns its state and announces changes.
  const settings = own(new SettingsReader(log));
  const keys = own(new ApiKeys(context.secrets));
  const sessions = own(new SessionService(context, logger));
  const providers = new Providers(keys, logger, new LearnedWindows(context.globalState));
  const memory = new ProjectMemory(sessions.storagePath);
  // Approvals are inline cards keyed to the open chat ("allow all edits" lasts for that chat only).
  let chatKey: () => string | undefined = () => undefined;
  const approvals = own(new ApprovalService(() => chatKey()));
  // MCP servers start with the first chat and serve every chat of the window; they stop with it.
  let mcpNotice: (level: 'info' | 'warn', message: string) => void = () => undefined;
  const mcpServers = own(new McpServers(context, logger, (level, message) => mcpNotice(level, message)));
  const service = own(
    new ChatService({
      sessions,
      settings,
      keys,
      providers,
      memory,
      logger,
      approve: approvals.request,
      legacyIntents: (id) => context.workspaceState.get<unknown>(`capsule.triggers:${id}`),
      userStorage: context.globalStorageUri.fsPath,
      mcp: () => mcpServers.forChat(),
    }),
  );
  chatKey = () => service.open?.path;
  chat = service;

  // The projection turns the service's events into what the webview shows; the view is transport.
  const view = own(new ChatViewProvider(context.extensionUri, log));
  own(vscode.window.registerWebviewViewProvider('capsule.chat', view, { webviewOptions: { retainContextWhenHidden: true } }));
  const files = own(new WorkspaceFiles());
  const snapshotDocs = own(new SnapshotDocuments());
  const mcpList = { views: () => mcpServers.views(mcpTokenCount(settings.current.modelId)), onDidChange: mcpServers.onDidChange };
  const projection = own(new ChatProjection({ chat: service, sessions, settings, transport: view, logger, approvals, files, mcp: mcpList }));
  mcpNotice = (level, message) => projection.notify(level === 'warn' ? 'warning' : 'info', message);
  own(vscode.commands.registerCommand('capsule.mcpServers', () => showMcpServers(mcpServers, settings.current.modelId)));

  // Actions: the chat's commands, the palette and the toolbar share them.
  const capsules = new CapsuleFolder(context.globalStorageUri.fsPath, context.globalState);
  const services: Services = { chat: service, out: projection, sessions, settings, providers, keys, memory, logger, view, approvals, capsules };
  const router = new IntentRouter({ ...services, projection, files, snapshotDocs, mcp: mcpServers });
  own(view.onIntent((i) => void router.handle(i).catch((err: unknown) => projection.notify('error', errorMessage(err)))));

  const tree = own(new CheckpointsTreeProvider(service, sessions));
  own(vscode.window.createTreeView('capsule.checkpoints', { treeDataProvider: tree, showCollapseAll: true }));
  own(new BudgetStatusBar(service, service.onDidChange));
  registerCommands(context, services);

  // VS Code's language models come and go (extensions load later, sign-in): the picker and setup follow.
  if (typeof vscode.lm?.onDidChangeChatModels === 'function') own(vscode.lm.onDidChangeChatModels(() => void service.scheduleReconcile()));
  // Restricted Mode keeps the agent closed; granting trust opens it (the view swaps in the chat by itself).
  if (typeof vscode.workspace.onDidGrantWorkspaceTrust === 'function') own(vscode.workspace.onDidGrantWorkspaceTrust(() => void service.scheduleReconcile()));
  const idle = setInterval(() => service.checkIdle(), IDLE_CHECK_MS);
  idle.unref();
  own({ dispose: () => clearInterval(idle) });

  // Opening the chat reads its file; do not hold activation on it. Failures surface in the view.
  sessions.start().catch((err: unknown) => log.error(`Could not open a chat: ${errorMessage(err)}`));
}

/** Stops the running turn, closes the agent and releases the session's writer lock so another window can take it. */
export async function deactivate(): Promise<void> {
  const c = chat;
  chat = undefined;
  await c?.close();
}
