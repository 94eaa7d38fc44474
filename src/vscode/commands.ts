// The palette commands of this stage; each id is contributed in package.json (a unit test checks both ways).
import * as vscode from 'vscode';
import { formatBudget } from '../engine/tokens/budget.js';
import { latestCapsule } from '../engine/transcript/modelInput.js';
import type { CheckpointsTreeProvider } from './checkpointsTree.js';
import type { ChatViewProvider } from './chatViewProvider.js';
import { fullTokens } from './format.js';
import type { SessionService } from './sessionService.js';

export interface CommandDeps {
  readonly sessions: SessionService;
  readonly chat: ChatViewProvider;
  readonly tree: CheckpointsTreeProvider;
  readonly log: vscode.LogOutputChannel;
}

/** Registers every command into context.subscriptions as it is created. */
export function registerCommands(context: vscode.ExtensionContext, d: CommandDeps): void {
  const add = (disposable: vscode.Disposable): void => {
    context.subscriptions.push(disposable);
  };

  add(
    vscode.commands.registerCommand('capsule.compactContext', async () => {
      // Honest until the compaction engine lands: say so rather than pretend something was compacted.
      const text = 'Compaction is not available yet in this version of Capsule; nothing was compacted.';
      d.chat.notify('info', text);
      await vscode.window.showInformationMessage(`Capsule: ${text}`);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.showBudget', () => {
      const b = d.sessions.budget;
      if (!b) {
        void vscode.window.showInformationMessage(`Capsule: ${d.sessions.error ?? 'no chat is open yet.'}`);
        return;
      }
      d.log.info(`Context budget\n${formatBudget(b)}`);
      d.log.show(true);
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

  add(vscode.commands.registerCommand('capsule.newChat', () => d.sessions.newChat()));

  add(
    vscode.commands.registerCommand('capsule.showLatestCapsule', async () => {
      const store = d.sessions.store;
      const found = store ? latestCapsule(store.tree.branch()) : undefined;
      if (!found) {
        void vscode.window.showInformationMessage('Capsule: this chat has no capsule yet.');
        return;
      }
      const c = found.capsule;
      const header = [
        `<!-- Capsule ${c.checkpointId} · ${c.trigger} · level ${c.level} · ${c.quality} · ${fullTokens(c.tokensBefore)} → ${fullTokens(c.tokensAfter)} tokens · ${c.timestamp} -->`,
        '',
      ].join('\n');
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: header + c.summary });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.refresh', async () => {
      await d.sessions.reload();
      d.tree.refresh();
    }),
  );
}
