// What each validated user intent from the chat webview does on the host.
import * as vscode from 'vscode';
import type { ChatIntent } from '../../protocol/messages.js';
import { exportWithDialog, showCapsule } from '../actions/chatActions.js';
import type { ChatHost } from '../services/chatService.js';
import { rewind, selectModel, setApiKey, setupProvider } from '../actions/sessionActions.js';
import { capsuleView } from '../projection/compactionViews.js';
import { pageOf } from '../projection/transcriptItems.js';

/** Links from model output open outside VS Code only for these schemes; `command:`, `file:`, `javascript:`… never. */
const OPEN_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

export function allowedLink(href: string): boolean {
  try {
    return OPEN_SCHEMES.has(new URL(href).protocol);
  } catch {
    return false;
  }
}

// Provider setup and the key arrive as two messages; they must apply in that order (the key belongs to the new URL).
let setupChain: Promise<void> = Promise.resolve();
function inOrder(op: () => Promise<void>): Promise<void> {
  const next = setupChain.then(op, op);
  setupChain = next.catch(() => undefined);
  return next;
}

export async function handleIntent(host: ChatHost, i: ChatIntent): Promise<void> {
  switch (i.type) {
    case 'send':
      host.send(i.text, i.clientId);
      return;
    case 'cancel':
      host.jobs.cancel();
      return;
    case 'selectModel':
      return selectModel(host, i.id);
    case 'setupProvider':
      return inOrder(() => setupProvider(host, i.provider));
    case 'setApiKey':
      return inOrder(() => setApiKey(host, i.key));
    case 'loadOlder': {
      const page = pageOf(host.items(), host.resolveItemId(i.beforeId));
      host.post({ type: 'olderItems', beforeId: i.beforeId, items: page.items, hasMore: page.hasMore });
      return;
    }
    case 'viewCapsule': {
      const store = host.store;
      const view = store ? capsuleView(store.tree, i.checkpointId, host.meter, host.basis().model.model) : undefined;
      if (view) host.post({ type: 'capsule', capsule: view });
      else showCapsule(host, i.checkpointId); // says there is none
      return;
    }
    case 'rewind':
      await rewind(host, i.checkpointId);
      return;
    case 'exportCapsule':
      await exportWithDialog(host, i.checkpointId);
      return;
    case 'copy':
      await vscode.env.clipboard.writeText(i.text);
      return;
    case 'openLink':
      if (allowedLink(i.href)) await vscode.env.openExternal(vscode.Uri.parse(i.href, true));
      else {
        host.logger.log('warn', 'Refused to open a link from the chat (only http, https and mailto links open)', { scheme: i.href.split(':')[0]?.slice(0, 20) ?? '' });
        host.notify('warning', 'That link was not opened: only http, https and mailto links open from the chat.');
      }
      return;
    default: {
      const _exhaustive: never = i;
      return _exhaustive;
    }
  }
}
