// The "Checkpoints & Capsules" tree: chats titled by their first request (current first), each as the moments of its conversation.
import * as vscode from 'vscode';
import { spanSinceCapsule } from '../../engine/compaction/cut.js';
import { distinctTitles, momentsOf, type Moment, type MomentChild } from '../../engine/transcript/moments.js';
import type { Entry } from '../../engine/transcript/schema.js';
import { loadSessionFile } from '../../node/sessionLoad.js';
import type { SessionSummary } from '../../node/sessions.js';
import { bytes } from '../../protocol/format.js';
import { errorMessage } from '../base/log.js';
import type { ChatService } from '../services/chatService.js';
import type { SessionService } from '../services/sessionService.js';
import { checkpointItem, compactionItem, messageItem } from './checkpointItems.js';

export type CheckpointNode =
  | { readonly kind: 'session'; readonly summary: SessionSummary; readonly current: boolean; readonly title: string }
  | { readonly kind: 'message'; readonly sessionId: string; readonly moment: Moment; readonly onBranch: boolean; readonly summarized?: boolean }
  | { readonly kind: 'entry'; readonly sessionId: string; readonly child: MomentChild; readonly onBranch: boolean }
  | { readonly kind: 'branches'; readonly sessionId: string; readonly moments: readonly Moment[] }
  | { readonly kind: 'info'; readonly key: string; readonly text: string; readonly icon: string };

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The children a moment's row opens to; children of other branches are dimmed like their row. */
function childNodes(sessionId: string, m: Moment, onBranch: boolean): CheckpointNode[] {
  return m.children.map((child) => ({ kind: 'entry', sessionId, child, onBranch }));
}

export class CheckpointsTreeProvider implements vscode.TreeDataProvider<CheckpointNode>, vscode.Disposable {
  readonly #emitter = new vscode.EventEmitter<CheckpointNode | undefined>();
  readonly #listener: vscode.Disposable;
  readonly onDidChangeTreeData = this.#emitter.event;

  constructor(
    private readonly host: Pick<ChatService, 'store' | 'onDidChange'>,
    private readonly sessions: Pick<SessionService, 'directory'>,
  ) {
    this.#listener = host.onDidChange((change) => {
      if (change.kind === 'tree') this.refresh();
    });
  }

  refresh(): void {
    this.#emitter.fire(undefined);
  }

  async getChildren(node?: CheckpointNode): Promise<CheckpointNode[]> {
    if (!node) return this.#sessionNodes();
    switch (node.kind) {
      case 'session':
        return this.#sessionChildren(node);
      case 'message':
        return childNodes(node.sessionId, node.moment, node.onBranch);
      case 'branches':
        return node.moments.map((moment) => ({ kind: 'message', sessionId: node.sessionId, moment, onBranch: false }));
      case 'entry':
      case 'info':
        return [];
      default: {
        const _exhaustive: never = node;
        return _exhaustive;
      }
    }
  }

  async #sessionChildren(node: Extract<CheckpointNode, { kind: 'session' }>): Promise<CheckpointNode[]> {
    let data: { entries: readonly Entry[]; branch: readonly Entry[] } | undefined;
    try {
      data = await this.#entriesOf(node);
    } catch (err) {
      // A chat deleted since the list was read: drop its row instead of showing a broken one.
      if (!(await this.sessions.directory.list().catch(() => [])).some((s) => s.id === node.summary.id)) {
        this.refresh();
        return [];
      }
      return [{ kind: 'info', key: `${node.summary.id}/error`, text: `Cannot read this chat: ${errorMessage(err)}`, icon: 'error' }];
    }
    const { active, other } = momentsOf(data.entries, data.branch);
    // Messages the capsule in force already summarizes: "Compact Up to Here" has nothing to cut there, so it is not offered.
    const live = new Set(spanSinceCapsule(data.branch).span.map((e) => e.id));
    const out: CheckpointNode[] = [];
    for (const m of active) {
      if (m.message === undefined) out.push(...childNodes(node.summary.id, m, true));
      else out.push({ kind: 'message', sessionId: node.summary.id, moment: m, onBranch: true, summarized: !live.has(m.message.id) });
    }
    if (other.length > 0) out.push({ kind: 'branches', sessionId: node.summary.id, moments: other });
    if (out.length === 0) return [{ kind: 'info', key: `${node.summary.id}/none`, text: 'No messages yet', icon: 'info' }];
    return out;
  }

  async #sessionNodes(): Promise<CheckpointNode[]> {
    let list: SessionSummary[];
    try {
      list = await this.sessions.directory.list();
    } catch (err) {
      return [{ kind: 'info', key: 'list-error', text: `Cannot list chats: ${errorMessage(err)}`, icon: 'error' }];
    }
    if (list.length === 0) return [{ kind: 'info', key: 'empty', text: 'No chats yet', icon: 'info' }];
    const currentId = this.host.store?.header.id;
    const titles = distinctTitles(list, when);
    // The current chat first, then the most recently changed.
    const sorted = [...list].sort((a, b) => Number(b.id === currentId) - Number(a.id === currentId) || b.mtimeMs - a.mtimeMs);
    return sorted.map((summary) => ({ kind: 'session', summary, current: summary.id === currentId, title: titles.get(summary.id) ?? summary.id }));
  }

  /** The open chat is read from its live store; others from disk, without taking their writer lock. */
  async #entriesOf(node: Extract<CheckpointNode, { kind: 'session' }>): Promise<{ entries: readonly Entry[]; branch: readonly Entry[] }> {
    const store = this.host.store;
    // A subagent's checkpoints and capsules belong to its own branch, never a rewind point of the chat (docs/subagents.md).
    const own = (all: readonly Entry[]): readonly Entry[] => all.filter((e) => e.subagent === undefined);
    if (store && store.header.id === node.summary.id) return { entries: own(store.tree.entries()), branch: store.tree.branch() };
    const loaded = await loadSessionFile(node.summary.path);
    return { entries: own(loaded.tree.entries()), branch: loaded.tree.branch() };
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session':
        return sessionItem(node.summary, node.current, node.title);
      case 'message':
        return messageItem(node.sessionId, node.moment, node.onBranch, node.summarized === true);
      case 'entry':
        return node.child.kind === 'checkpoint' ? checkpointItem(node.sessionId, node.child.entry, node.onBranch) : compactionItem(node.sessionId, node.child, node.onBranch);
      case 'branches': {
        const item = new vscode.TreeItem('Other branches', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `branches/${node.sessionId}`;
        item.description = `${node.moments.length} message${node.moments.length === 1 ? '' : 's'} after a rewind or an edit`;
        item.tooltip = 'Messages that are not on the active branch. Nothing is ever deleted: rewind to one of them to continue there.';
        item.iconPath = new vscode.ThemeIcon('git-branch');
        return item;
      }
      case 'info': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = `info/${node.key}`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        return item;
      }
      default: {
        const _exhaustive: never = node;
        return _exhaustive;
      }
    }
  }

  dispose(): void {
    this.#listener.dispose();
    this.#emitter.dispose();
  }
}

function sessionItem(s: SessionSummary, current: boolean, title: string): vscode.TreeItem {
  const item = new vscode.TreeItem(title, current ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `session/${s.id}`;
  item.description = `${current ? 'current · ' : ''}${when(s.createdAt)} · ${bytes(s.bytes)}`;
  item.tooltip = `${title}\n${s.id}\nCreated ${s.createdAt}\n${s.entries} entries, ${bytes(s.bytes)}`;
  item.iconPath = new vscode.ThemeIcon(current ? 'comment-discussion' : 'comment', current ? new vscode.ThemeColor('charts.blue') : undefined);
  item.contextValue = current ? 'capsule.session.current' : 'capsule.session';
  return item;
}

