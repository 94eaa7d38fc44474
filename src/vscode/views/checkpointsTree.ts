// The "Checkpoints & Capsules" tree: every chat of this workspace, and under it its checkpoints and capsules in order.
import * as vscode from 'vscode';
import type { CapsuleEntry, CheckpointEntry, Entry } from '../../engine/transcript/schema.js';
import { loadSessionFile } from '../../node/sessionLoad.js';
import type { SessionSummary } from '../../node/sessions.js';
import { bytes, fullTokens, shortTokens } from '../base/format.js';
import { errorMessage } from '../base/log.js';
import type { ChatService } from '../services/chatService.js';
import type { SessionService } from '../services/sessionService.js';

export type CheckpointNode =
  | { readonly kind: 'session'; readonly summary: SessionSummary; readonly current: boolean }
  | {
      readonly kind: 'entry';
      readonly sessionId: string;
      readonly entry: CheckpointEntry | CapsuleEntry;
      readonly onBranch: boolean;
      /** For a checkpoint: the capsule made at it, if any (its trigger, tokens and quality describe the checkpoint). */
      readonly capsule?: CapsuleEntry;
    }
  | { readonly kind: 'info'; readonly key: string; readonly text: string; readonly icon: string };

const CHECKPOINT_ICONS: Readonly<Record<CheckpointEntry['kind'], string>> = {
  auto: 'bookmark',
  milestone: 'milestone',
  plan_pivot: 'git-compare',
  user: 'pin',
};

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
    if (node.kind !== 'session') return [];
    try {
      return this.#entryNodes(node.summary.id, await this.#entriesOf(node));
    } catch (err) {
      return [{ kind: 'info', key: `${node.summary.id}/error`, text: `Cannot read this chat: ${errorMessage(err)}`, icon: 'error' }];
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
    const currentId = this.host.store?.header.id;
    return [...list].sort((a, b) => b.mtimeMs - a.mtimeMs).map((summary) => ({ kind: 'session', summary, current: summary.id === currentId }));
  }

  /** The open chat is read from its live store; others from disk, without taking their writer lock. */
  async #entriesOf(node: Extract<CheckpointNode, { kind: 'session' }>): Promise<{ entries: readonly Entry[]; branch: ReadonlySet<string> }> {
    const store = this.host.store;
    if (store && store.header.id === node.summary.id) {
      return { entries: store.tree.entries(), branch: new Set(store.tree.branch().map((e) => e.id)) };
    }
    const loaded = await loadSessionFile(node.summary.path);
    return { entries: loaded.tree.entries(), branch: new Set(loaded.tree.branch().map((e) => e.id)) };
  }

  #entryNodes(sessionId: string, data: { entries: readonly Entry[]; branch: ReadonlySet<string> }): CheckpointNode[] {
    const out: CheckpointNode[] = [];
    const capsules = new Map<string, CapsuleEntry>();
    for (const e of data.entries) if (e.type === 'capsule') capsules.set(e.checkpointId, e);
    for (const entry of data.entries) {
      if (entry.type === 'checkpoint') out.push({ kind: 'entry', sessionId, entry, onBranch: data.branch.has(entry.id), capsule: capsules.get(entry.checkpointId) });
      else if (entry.type === 'capsule') out.push({ kind: 'entry', sessionId, entry, onBranch: data.branch.has(entry.id) });
    }
    if (out.length === 0) return [{ kind: 'info', key: `${sessionId}/none`, text: 'No checkpoints or capsules yet', icon: 'info' }];
    return out;
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'session':
        return sessionItem(node.summary, node.current);
      case 'entry':
        return node.entry.type === 'checkpoint' ? checkpointItem(node.sessionId, node.entry, node.onBranch, node.capsule) : capsuleItem(node.sessionId, node.entry, node.onBranch);
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

function sessionItem(s: SessionSummary, current: boolean): vscode.TreeItem {
  const created = new Date(s.createdAt);
  const label = s.title && s.title.length > 0 ? s.title : `Chat ${Number.isNaN(created.getTime()) ? s.id : created.toLocaleString()}`;
  const item = new vscode.TreeItem(label, current ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `session/${s.id}`;
  item.description = `${current ? 'current · ' : ''}${s.entries} entries · ${bytes(s.bytes)}`;
  item.tooltip = `${s.id}\nCreated ${s.createdAt}\n${s.entries} entries, ${bytes(s.bytes)}`;
  item.iconPath = new vscode.ThemeIcon(current ? 'comment-discussion' : 'comment', current ? new vscode.ThemeColor('charts.blue') : undefined);
  item.contextValue = current ? 'capsule.session.current' : 'capsule.session';
  return item;
}

function branchNote(onBranch: boolean): string {
  return onBranch ? '' : ' · other branch';
}

function checkpointItem(sessionId: string, e: CheckpointEntry, onBranch: boolean, capsule: CapsuleEntry | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(`${e.checkpointId} · ${e.kind}`, vscode.TreeItemCollapsibleState.None);
  item.id = `entry/${sessionId}/${e.id}`;
  const made = capsule ? ` · ${capsule.trigger} · ${shortTokens(capsule.tokensBefore)} tokens · ${capsule.quality}` : '';
  item.description = `${new Date(e.timestamp).toLocaleTimeString()}${made}${e.note ? ` · ${e.note.split('\n')[0] ?? ''}` : ''}${branchNote(onBranch)}`;
  const tooltip = new vscode.MarkdownString();
  const capsuleLine = capsule ? `\nBefore the ${capsule.trigger} compaction: ${fullTokens(capsule.tokensBefore)} tokens (capsule ${capsule.quality})` : '';
  tooltip.appendText(`Checkpoint ${e.checkpointId} (${e.kind})\n${e.timestamp}${capsuleLine}${e.note ? `\n\n${e.note}` : ''}\n\nRewind here restores exactly the model input of this moment.`);
  item.tooltip = tooltip;
  item.iconPath = new vscode.ThemeIcon(CHECKPOINT_ICONS[e.kind], onBranch ? undefined : new vscode.ThemeColor('disabledForeground'));
  item.contextValue = capsule ? 'capsule.checkpoint.withCapsule' : 'capsule.checkpoint';
  return item;
}

function capsuleItem(sessionId: string, e: CapsuleEntry, onBranch: boolean): vscode.TreeItem {
  const item = new vscode.TreeItem(`Capsule · ${e.trigger}`, vscode.TreeItemCollapsibleState.None);
  item.id = `entry/${sessionId}/${e.id}`;
  item.description = `${shortTokens(e.tokensBefore)} → ${shortTokens(e.tokensAfter)} · ${e.quality} · ${e.checkpointId}${branchNote(onBranch)}`;
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(
    `Capsule (${e.trigger}, level ${e.level}, quality ${e.quality})\n${fullTokens(e.tokensBefore)} → ${fullTokens(e.tokensAfter)} tokens\nCheckpoint ${e.checkpointId}\n${e.timestamp}`,
  );
  item.tooltip = tooltip;
  const color = e.quality === 'degraded' ? new vscode.ThemeColor('list.warningForeground') : onBranch ? undefined : new vscode.ThemeColor('disabledForeground');
  item.iconPath = new vscode.ThemeIcon('package', color);
  item.contextValue = e.quality === 'degraded' ? 'capsule.capsule.degraded' : 'capsule.capsule';
  return item;
}
