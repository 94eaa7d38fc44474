// The Chat webview view, transport only: strict CSP shell, ready handshake, zod-checked input handed on as intents, one guarded post chokepoint.
import { LIMITS } from '../../protocol/limits.js';
import * as vscode from 'vscode';
import { parseWebviewMessage, type ChatIntent, type HostToWebview, type WebviewToHost } from '../../protocol/messages.js';
import { Disposable } from '../base/disposable.js';
import type { ChatTransport } from '../projection/chatProjection.js';
import { MANAGE_TRUST_COMMAND, newNonce, restrictedHtml, webviewHtml } from './webviewHtml.js';

const CHAT_VIEW_ID = 'capsule.chat';

/** What survives in the queue until the view is ready: notices, and a mention the user asked to add (the snapshot covers the rest). */
function kept(m: HostToWebview): boolean {
  return m.type === 'notice' || m.type === 'mention';
}

export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider, ChatTransport {
  #view: vscode.WebviewView | undefined;
  /** The webview script has loaded and said `ready`; before that, posts are queued. */
  #ready = false;
  #queue: HostToWebview[] = [];
  readonly #intents = this._register(new vscode.EventEmitter<ChatIntent>());
  /** User intents from the chat (send, toolbar buttons, cancel, selectModel, setup, paging, capsule actions, copy, openLink), already validated. */
  readonly onIntent: vscode.Event<ChatIntent> = this.#intents.event;

  readonly #ready$ = this._register(new vscode.EventEmitter<void>());
  /** The webview said `ready`; the projection answers with a snapshot (posted before anything that was queued). */
  readonly onReady: vscode.Event<void> = this.#ready$.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  /** Shows the chat view (resolving it if it was never opened). */
  async reveal(): Promise<void> {
    const view = this.#view;
    if (view) view.show(true);
    else {
      // VS Code adds `<view id>.focus` for every view; showing is a courtesy, so a failure only goes to the log.
      await Promise.resolve(vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`)).catch((err: unknown) =>
        this.log.debug(`Could not reveal the chat view: ${String(err)}`),
      );
    }
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.#view = view;
    this.#render(view);
    // Restricted Mode shows what works and a trust button; once trust is granted the chat replaces it in place.
    if (!vscode.workspace.isTrusted && typeof vscode.workspace.onDidGrantWorkspaceTrust === 'function') {
      const granted = vscode.workspace.onDidGrantWorkspaceTrust(() => {
        granted.dispose();
        if (this.#view === view) this.#render(view);
      });
      this._register(granted);
    }
    this._register(view.webview.onDidReceiveMessage((data: unknown) => this.#receive(data)));
    this._register(
      view.onDidDispose(() => {
        if (this.#view === view) this.#view = undefined;
        this.#ready = false;
      }),
    );
  }

  /** The chat, or in an untrusted workspace the Restricted Mode page (no script; its one link manages trust). */
  #render(view: vscode.WebviewView): void {
    this.#ready = false;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const styleUri = view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'webview.css')).toString();
    if (!vscode.workspace.isTrusted) {
      view.webview.options = { enableScripts: false, enableCommandUris: [MANAGE_TRUST_COMMAND], localResourceRoots: [media] };
      view.webview.html = restrictedHtml({ cspSource: view.webview.cspSource, styleUri });
      return;
    }
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = webviewHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'webview.js')).toString(),
      styleUri,
      nonce: newNonce(),
    });
  }

  /** Shows a transient line in the view (and queues it if the view is not ready). */
  notify(level: 'info' | 'warning' | 'error', text: string): void {
    this.post({ type: 'notice', level, text: text.slice(0, LIMITS.notice) });
  }

  #receive(data: unknown): void {
    const parsed = parseWebviewMessage(data);
    if (!parsed.ok) {
      this.log.warn(`Ignored a malformed message from the chat view: ${parsed.error}`);
      return;
    }
    const msg: WebviewToHost = parsed.message;
    switch (msg.type) {
      case 'ready': {
        this.#ready = true;
        // The snapshot supersedes queued snapshots and budgets; only notices still need delivering.
        const pending = this.#queue.filter(kept);
        this.#queue = [];
        this.#ready$.fire();
        for (const m of pending) this.post(m);
        break;
      }
      case 'webviewError':
        this.log.error(`Chat view error: ${msg.message}${msg.stack ? `\n${msg.stack}` : ''}`);
        break;
      case 'command':
      case 'send':
      case 'cancel':
      case 'retryTurn':
      case 'openSettings':
      case 'selectModel':
      case 'setupProvider':
      case 'setApiKey':
      case 'checkProvider':
      case 'loadOlder':
      case 'viewCapsule':
      case 'rewind':
      case 'messageAction':
      case 'switchBranch':
      case 'compactionAction':
      case 'exportCapsule':
      case 'copy':
      case 'codeBlock':
      case 'openLink':
      case 'approval':
      case 'removeAllowRule':
      case 'mcpServer':
      case 'findFiles':
      case 'openFile':
      case 'showDiff':
      case 'subagentTranscript':
        this.#intents.fire(msg);
        break;
      default: {
        const _exhaustive: never = msg;
        return _exhaustive;
      }
    }
  }

  /** The only place that posts to the webview: queues until ready, never touches a disposed view. */
  post(message: HostToWebview): void {
    const view = this.#view;
    if (!view || !this.#ready) {
      // Keep the queue bounded: only the latest state matters, and the next `ready` sends a snapshot anyway.
      this.#queue = [...this.#queue.filter(kept).slice(-9), message];
      return;
    }
    try {
      view.webview.postMessage(message).then(
        (delivered) => {
          // Undelivered means the page is gone (a hidden view loses it); when it reloads it says `ready` again.
          if (!delivered) this.#ready = false;
        },
        (err: unknown) => this.#lost(err),
      );
    } catch (err) {
      this.#lost(err); // a disposed webview throws synchronously
    }
  }

  #lost(err: unknown): void {
    this.#ready = false;
    this.log.debug(`Chat view post failed (view gone): ${String(err)}`);
  }

  override dispose(): void {
    this.#view = undefined;
    this.#ready = false;
    super.dispose();
  }
}
