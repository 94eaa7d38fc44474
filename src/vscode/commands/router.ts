// The one switch over what the chat webview asks for: typed intents and toolbar buttons, each mapped to the action the palette uses too.
import * as vscode from 'vscode';
import { codeBlockAction } from '../actions/codeBlockActions.js';
import type { ChatIntent, WebviewCommand } from '../../protocol/messages.js';
import { exportWithDialog } from '../actions/capsuleActions.js';
import { attachable, openWorkspaceFile, showEditDiff } from '../actions/contextActions.js';
import { messageImages } from '../actions/imageActions.js';
import type { McpServers } from '../services/mcpServers.js';
import type { SnapshotDocuments } from '../services/snapshotDocuments.js';
import type { WorkspaceFiles } from '../services/workspaceFileSearch.js';
import { PALETTE_ACTIONS } from '../actions/paletteActions.js';
import { sendText } from '../actions/chatActions.js';
import type { Services } from '../actions/services.js';
import { compactUpTo, retry, rewind, switchBranch, undoCompaction } from '../actions/rewindActions.js';
import { checkProvider, selectModel, setApiKey, setupProvider } from '../actions/sessionActions.js';
import { openSettings, retryTurn } from '../actions/turnErrorActions.js';
import { Sequencer } from '../base/sequencer.js';
import type { ChatProjection } from '../projection/chatProjection.js';

/** Links from model output open outside VS Code only for these schemes; `command:`, `file:`, `javascript:`… never. */
const OPEN_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

function allowedLink(href: string): boolean {
  try {
    return OPEN_SCHEMES.has(new URL(href).protocol);
  } catch {
    return false;
  }
}

export interface RouterDeps extends Services {
  readonly projection: ChatProjection;
  /** The `@` completion's file search. */
  readonly files: Pick<WorkspaceFiles, 'find'>;
  /** The documents "Show diff" opens. */
  readonly snapshotDocs: SnapshotDocuments;
  /** The setup panel's Restart / Disable / Enable of an MCP server. */
  readonly mcp?: Pick<McpServers, 'act'>;
}

export class IntentRouter {
  /** Provider setup and the key arrive as two messages; they must apply in that order (the key belongs to the new URL). */
  readonly #setup = new Sequencer();

  constructor(private readonly d: RouterDeps) {}

  async handle(i: ChatIntent): Promise<void> {
    const d = this.d;
    switch (i.type) {
      case 'send': {
        // Checked before the message is queued: what cannot be attached is said now, and the message goes without it.
        const media = await messageImages(d, i.text, i.images, i.attachments);
        if (media.ok) sendText(d, i.text, i.clientId, await attachable(d, media.attachments), media.images);
        return;
      }
      case 'findFiles': {
        const files = await d.files.find(i.query).catch((err: unknown) => {
          d.logger.log('warn', `File search for @ completion failed: ${err instanceof Error ? err.message : String(err)}`);
          return [];
        });
        d.projection.fileMatches(i.requestId, i.query, files);
        return;
      }
      case 'openFile':
        return openWorkspaceFile(d, i.path, i.line, i.column);
      case 'showDiff':
        return showEditDiff(d, i.itemId);
      case 'command':
        return this.#toolbar(i.command);
      case 'cancel':
        d.chat.cancel();
        return;
      case 'retryTurn':
        retryTurn(d, i.turnId);
        return;
      case 'openSettings':
        return openSettings(i.target);
      case 'selectModel':
        return selectModel(d, i.id);
      case 'setupProvider':
        return this.#setup.queue(() => setupProvider(d, i.provider));
      case 'setApiKey':
        return this.#setup.queue(() => setApiKey(d, i.key));
      case 'checkProvider':
        return this.#setup.queue(() => checkProvider(d));
      case 'loadOlder':
        d.projection.postOlder(i.beforeId);
        return;
      case 'subagentTranscript':
        d.projection.postSubagentTranscript(i.itemId, i.page);
        return;
      case 'viewCapsule':
        d.out.showCapsule(i.checkpointId);
        return;
      case 'rewind':
        await rewind(d, i.checkpointId);
        return;
      case 'messageAction':
        // Edit and rewind both go back to before the message with its text in the composer; sending it makes the branch.
        if (i.action === 'retry') return retry(d, i.entryId);
        if (i.action === 'compactUpTo') return compactUpTo(d, i.entryId);
        await rewind(d, i.entryId);
        return;
      case 'switchBranch':
        return switchBranch(d, i.entryId);
      case 'compactionAction':
        return undoCompaction(d, i.checkpointId, i.action);
      case 'exportCapsule':
        await exportWithDialog(d, i.checkpointId);
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(i.text);
        return;
      case 'codeBlock':
        await codeBlockAction(d, i.action, i.code, i.language);
        return;
      case 'approval':
        await d.approvals.answer(i.id, i.choice, i.feedback, i.rule === undefined ? undefined : { rule: i.rule, scope: i.scope ?? 'user' });
        return;
      case 'removeAllowRule':
        await d.approvals.removeRule(i.rule);
        return;
      case 'mcpServer':
        if (d.mcp === undefined) d.out.notify('info', 'No MCP server runs in this window.');
        else await d.mcp.act(i.name, i.action);
        return;
      case 'openLink':
        if (allowedLink(i.href)) await vscode.env.openExternal(vscode.Uri.parse(i.href, true));
        else {
          d.logger.log('warn', 'Refused to open a link from the chat (only http, https and mailto links open)', {
            scheme: i.href.split(':')[0]?.slice(0, 20) ?? '',
          });
          d.out.notify('warning', 'That link was not opened: only http, https and mailto links open from the chat.');
        }
        return;
      default: {
        const _exhaustive: never = i;
        return _exhaustive;
      }
    }
  }

  /** The view's buttons run the palette's actions directly (no command ids, no slash strings parsed again). */
  #toolbar(c: WebviewCommand): Promise<void> {
    return PALETTE_ACTIONS[c](this.d);
  }
}
