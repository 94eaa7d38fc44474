// Tree items of the checkpoints view: a message ("read the files… · 7:29 · 16.2k tokens"), its checkpoints and its compactions.
import * as vscode from 'vscode';
import type { Moment, MomentChild } from '../../engine/transcript/moments.js';
import type { CheckpointEntry } from '../../engine/transcript/schema.js';
import { fullTokens, shortTokens, TRIGGER_WORDS } from '../../protocol/format.js';

const CHECKPOINT_ICONS: Readonly<Record<CheckpointEntry['kind'], string>> = {
  auto: 'bookmark',
  milestone: 'milestone',
  plan_pivot: 'git-compare',
  user: 'pin',
};
const CHECKPOINT_NAMES: Readonly<Record<CheckpointEntry['kind'], string>> = {
  auto: 'Checkpoint',
  milestone: 'Milestone',
  plan_pivot: 'Plan pivot',
  user: 'Checkpoint',
};

function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

function firstLine(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function dim(onBranch: boolean): vscode.ThemeColor | undefined {
  return onBranch ? undefined : new vscode.ThemeColor('disabledForeground');
}

export function messageItem(sessionId: string, m: Moment, onBranch: boolean, summarized = false): vscode.TreeItem {
  const text = m.message?.content ?? '';
  // The message's own words are the label: a "Task N:" prefix read as "Task 1: Task 1: …" when the user numbered them.
  const item = new vscode.TreeItem(
    firstLine(text, 60) || `Message ${m.index}`,
    m.children.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
  );
  // VS Code keeps a row's collapse state by id: a row that had no children yet ("None") would stay shut when its
  // first compaction or checkpoint arrives, so the id changes once with that, and the new row opens as Expanded.
  item.id = `message/${sessionId}/${m.message?.id ?? 'start'}${m.children.length > 0 ? '/open' : ''}`;
  const tokens = m.tokens === undefined ? '' : ` · ${shortTokens(m.tokens)} tokens`;
  item.description = `${m.message ? time(m.message.timestamp) : ''}${tokens}${onBranch ? (summarized ? ' · summarized' : '') : ' · other branch'}`;
  const tip = new vscode.MarkdownString();
  tip.appendText(
    `${firstLine(text, 400)}\n\n${m.message?.timestamp ?? ''}${m.tokens === undefined ? '' : `\nModel input before it: ${fullTokens(m.tokens)} tokens (provider-reported)`}\n\nRewind Here goes back to just before this message (conversation and files) and puts it back in the composer.${summarized ? '\n\nThe latest compaction already summarizes this message, so Compact Up to Here is offered only on later messages.' : ''}`,
  );
  item.tooltip = tip;
  item.iconPath = new vscode.ThemeIcon('account', dim(onBranch));
  item.contextValue = onBranch ? (summarized ? 'capsule.message.summarized' : 'capsule.message') : 'capsule.message.otherBranch';
  return item;
}

export function checkpointItem(sessionId: string, e: CheckpointEntry, onBranch: boolean): vscode.TreeItem {
  const label = `${CHECKPOINT_NAMES[e.kind]}${e.note ? `: ${firstLine(e.note, 60)}` : ''}`;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `entry/${sessionId}/${e.id}`;
  item.description = `${time(e.timestamp)}${onBranch ? '' : ' · other branch'}`;
  const tip = new vscode.MarkdownString();
  tip.appendText(
    `${CHECKPOINT_NAMES[e.kind]} ${e.checkpointId}\n${e.timestamp}${e.note ? `\n\n${e.note}` : ''}\n\nRewind Here restores exactly the model input of this moment.`,
  );
  item.tooltip = tip;
  item.iconPath = new vscode.ThemeIcon(CHECKPOINT_ICONS[e.kind], dim(onBranch));
  item.contextValue = 'capsule.checkpoint';
  return item;
}

export function compactionItem(sessionId: string, c: Extract<MomentChild, { kind: 'compaction' }>, onBranch: boolean): vscode.TreeItem {
  const e = c.entry;
  const loaded = e.details['imported'] !== undefined;
  const item = new vscode.TreeItem(
    loaded ? 'Capsule loaded' : `Compaction · ${TRIGGER_WORDS[e.trigger] ?? e.trigger}${c.undone ? ' · undone' : ''}`,
    vscode.TreeItemCollapsibleState.None,
  );
  item.id = `entry/${sessionId}/${e.id}`;
  const figures = loaded
    ? `adds ${shortTokens(Math.max(0, e.tokensAfter - e.tokensBefore))}`
    : `${shortTokens(e.tokensBefore)} → ${shortTokens(e.tokensAfter)}`;
  item.description = `${figures}${e.quality === 'degraded' ? ' · simpler summary' : ''} · ${time(e.timestamp)}${onBranch ? '' : ' · other branch'}`;
  const history = c.events.map((u) => `${u.action === 'undo' ? 'Undone' : 'Redone'} ${u.timestamp}`).join('\n');
  const tip = new vscode.MarkdownString();
  tip.appendText(
    `Compaction ${e.checkpointId} (${e.trigger}, level ${e.level}, quality ${e.quality})\n${fullTokens(e.tokensBefore)} → ${fullTokens(e.tokensAfter)} tokens\n${e.timestamp}${history ? `\n\n${history}` : ''}`,
  );
  item.tooltip = tip;
  const color = e.quality === 'degraded' ? new vscode.ThemeColor('list.warningForeground') : dim(onBranch && !c.undone);
  item.iconPath = new vscode.ThemeIcon('package', color);
  item.contextValue = `capsule.capsule${c.undone ? '.undone' : ''}${e.quality === 'degraded' ? '.degraded' : ''}`;
  return item;
}
