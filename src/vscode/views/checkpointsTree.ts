// The "Checkpoints & Capsules" tree: chats titled by their first request (current first), each as the moments of its conversation.
import * as vscode from 'vscode';
import { MomentIndex, momentIndexOf } from '../../engine/transcript/momentIndex.js';
import { distinctTitles, type Moment, type MomentChild } from '../../engine/transcript/moments.js';
import { loadSessionFile } from '../../node/sessionLoad.js';
import type { SessionSummary } from '../../node/sessions.js';
import { bytes } from '../../protocol/format.js';
import { errorMessage } from '../base/log.js';
import type { ChatService } from '../services/chatService.js';
import type { SessionService } from '../services/sessionService.js';
import { checkpointItem, compactionItem, messageItem } from './checkpointItems.js';
import { momentPage, newestPage, newestPageStart, TREE_PAGE } from './treePages.js';

export type CheckpointNode =
  | { readonly kind: 'session'; readonly summary: SessionSummary; readonly current: boolean; readonly title: string }
  | { readonly kind: 'message'; readonly sessionId: string; readonly moment: Moment; readonly onBranch: boolean; readonly summarized?: boolean }
  | { readonly kind: 'entry'; readonly sessionId: string; readonly child: MomentChild; readonly onBranch: boolean }
  | { readonly kind: 'branches'; readonly summary: SessionSummary; readonly count: number }
  /** The page of moments before `end` (of the active branch, or of other branches), opened on demand. */
  | { readonly kind: 'older'; readonly summary: SessionSummary; readonly list: 'active' | 'other'; readonly end: number }
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
  /** The last other chat whose moments were read (key: its path, time and size). */
  #closed: { readonly key: string; readonly index: MomentIndex } | undefined;

  constructor(
    private readonly host: Pick<ChatService, 'open' | 'onDidChange'>,
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
        return this.#page(node.summary, 'other', node.count);
      case 'older':
        return this.#page(node.summary, node.list, node.end);
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
    const index = await this.#read(node.summary);
    if (!(index instanceof MomentIndex)) return index;
    const page = newestPage(index);
    const out = this.#rows(node.summary, 'active', page.start, page);
    if (page.others > 0) out.push({ kind: 'branches', summary: node.summary, count: page.others });
    if (out.length === 0) return [{ kind: 'info', key: `${node.summary.id}/none`, text: 'No messages yet', icon: 'info' }];
    return out;
  }

  /** The page of `list` ending at `end`: the moments of [end - TREE_PAGE, end), or the newest page of other branches. */
  async #page(summary: SessionSummary, list: 'active' | 'other', end: number): Promise<CheckpointNode[]> {
    const index = await this.#read(summary);
    if (!(index instanceof MomentIndex)) return index;
    // Other branches open on their newest page; the active branch's pages before the newest are whole pages.
    const start = list === 'other' && end === index.otherCount ? newestPageStart(end) : Math.max(0, end - TREE_PAGE);
    return this.#rows(summary, list, start, momentPage(index, list, start, end));
  }

  /** Rows of one page of moments starting at `start`, after an "Older messages" row when earlier ones exist. */
  #rows(summary: SessionSummary, list: 'active' | 'other', start: number, page: ReturnType<typeof momentPage>): CheckpointNode[] {
    const sessionId = summary.id;
    const out: CheckpointNode[] = start > 0 ? [{ kind: 'older', summary, list, end: start }] : [];
    for (const m of page.moments) {
      if (list === 'other') out.push({ kind: 'message', sessionId, moment: m, onBranch: false });
      else if (m.message === undefined) out.push(...childNodes(sessionId, m, true));
      // Messages the capsule in force already summarizes: "Compact Up to Here" has nothing to cut there, so it is not offered.
      else out.push({ kind: 'message', sessionId, moment: m, onBranch: true, summarized: page.summarized(m.message.id) });
    }
    return out;
  }

  /** The moments of a chat, or the row that says why they cannot be read. */
  async #read(summary: SessionSummary): Promise<MomentIndex | CheckpointNode[]> {
    try {
      return await this.#indexOf(summary);
    } catch (err) {
      // A chat deleted since the list was read: drop its row instead of showing a broken one.
      if (!(await this.sessions.directory.list().catch(() => [])).some((s) => s.id === summary.id)) {
        this.refresh();
        return [];
      }
      return [{ kind: 'info', key: `${summary.id}/error`, text: `Cannot read this chat: ${errorMessage(err)}`, icon: 'error' }];
    }
  }

  async #sessionNodes(): Promise<CheckpointNode[]> {
    let list: SessionSummary[];
    try {
      list = await this.sessions.directory.list();
    } catch (err) {
      return [{ kind: 'info', key: 'list-error', text: `Cannot list chats: ${errorMessage(err)}`, icon: 'error' }];
    }
    if (list.length === 0) return [{ kind: 'info', key: 'empty', text: 'No chats yet', icon: 'info' }];
    const currentId = this.host.open?.header.id;
    const titles = distinctTitles(list, when);
    // The current chat first, then the most recently changed.
    const sorted = [...list].sort((a, b) => Number(b.id === currentId) - Number(a.id === currentId) || b.mtimeMs - a.mtimeMs);
    return sorted.map((summary) => ({ kind: 'session', summary, current: summary.id === currentId, title: titles.get(summary.id) ?? summary.id }));
  }

  /**
   * The open chat's moments come from its live tree, kept up to date as entries arrive; another chat is read from
   * disk without taking its writer lock, and kept while its file is unchanged (opening its older pages reads it once).
   */
  async #indexOf(summary: SessionSummary): Promise<MomentIndex> {
    const chat = this.host.open;
    if (chat && chat.header.id === summary.id) return momentIndexOf(chat.tree);
    const key = `${summary.path}|${summary.mtimeMs}|${summary.bytes}`;
    if (this.#closed?.key === key) return this.#closed.index;
    const loaded = await loadSessionFile(summary.path);
    const index = new MomentIndex(loaded.tree);
    this.#closed = { key, index };
    return index;
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session':
        return sessionItem(node.summary, node.current, node.title);
      case 'message':
        return messageItem(node.sessionId, node.moment, node.onBranch, node.summarized === true);
      case 'entry':
        return node.child.kind === 'checkpoint'
          ? checkpointItem(node.sessionId, node.child.entry, node.onBranch)
          : compactionItem(node.sessionId, node.child, node.onBranch);
      case 'branches': {
        const item = new vscode.TreeItem('Other branches', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `branches/${node.summary.id}`;
        item.description = `${node.count} message${node.count === 1 ? '' : 's'} after a rewind or an edit`;
        item.tooltip = 'Messages that are not on the active branch. Nothing is ever deleted: rewind to one of them to continue there.';
        item.iconPath = new vscode.ThemeIcon('git-branch');
        return item;
      }
      case 'older': {
        const item = new vscode.TreeItem('Older messages', vscode.TreeItemCollapsibleState.Collapsed);
        // By where the page ends: the row keeps its id, and whether it is open, while new messages arrive.
        item.id = `older/${node.summary.id}/${node.list}/${node.end}`;
        item.description = `${node.end} earlier`;
        item.tooltip = 'Open to list the previous messages, a page at a time. Their actions (Rewind Here, Compact Up to Here, …) work as on the newest ones.';
        item.iconPath = new vscode.ThemeIcon('history');
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
