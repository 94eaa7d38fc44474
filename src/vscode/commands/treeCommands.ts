// Commands of the Checkpoints tree (inline and context menu) that also work from the palette with a quick pick.
import * as vscode from 'vscode';
import type { SessionSummary } from '../../node/sessions.js';
import { exportWithDialog } from '../actions/capsuleActions.js';
import type { Services } from '../actions/services.js';
import { compactUpTo, rewind, undoCompaction } from '../actions/rewindActions.js';
import { deleteChat, switchChat } from '../actions/sessionActions.js';
import type { CheckpointNode } from '../views/checkpointsTree.js';

type EntryNode = Extract<CheckpointNode, { kind: 'entry' | 'message' }>;
type SessionNode = Extract<CheckpointNode, { kind: 'session' }>;

function isNode(v: unknown): v is CheckpointNode {
  return typeof v === 'object' && v !== null && 'kind' in v && typeof v.kind === 'string';
}

function entryNode(v: unknown): EntryNode | undefined {
  return isNode(v) && (v.kind === 'entry' || v.kind === 'message') ? v : undefined;
}

/** What a row rewinds to: a message's id (before it), a checkpoint's id, a compaction's capsule (just after it). */
function rewindRef(node: EntryNode): string | undefined {
  if (node.kind === 'message') return node.moment.message?.id;
  return node.child.kind === 'checkpoint' ? node.child.entry.checkpointId : node.child.entry.id;
}

/** The compaction checkpoint of a compaction row. */
function capsuleCheckpoint(node: EntryNode | undefined): string | undefined {
  return node?.kind === 'entry' && node.child.kind === 'compaction' ? node.child.entry.checkpointId : undefined;
}

function sessionNode(v: unknown): SessionNode | undefined {
  return isNode(v) && v.kind === 'session' ? v : undefined;
}

function chatLabel(s: SessionSummary): string {
  return s.title && s.title.length > 0 ? s.title : `Chat of ${new Date(s.createdAt).toLocaleString()}`;
}

/** Actions on another chat's entries first make that chat current: rewind and the viewer work on the open chat. */
async function openChatOf(host: Services, node: EntryNode): Promise<boolean> {
  if (host.chat.open?.header.id === node.sessionId) return true;
  await switchChat(host, node.sessionId);
  return host.chat.open?.header.id === node.sessionId;
}

async function pickChat(host: Services, title: string): Promise<SessionSummary | undefined> {
  const list = await host.sessions.directory.list();
  const current = host.chat.open?.header.id;
  const picks = list.map((s) => ({
    label: chatLabel(s),
    description: `${s.id === current ? 'current · ' : ''}${s.entries} entries`,
    detail: new Date(s.mtimeMs).toLocaleString(),
    summary: s,
  }));
  return (await vscode.window.showQuickPick(picks, { title, matchOnDescription: true }))?.summary;
}

async function pickCapsule(host: Services): Promise<string | undefined> {
  const picks = (host.chat.open?.entries() ?? []).flatMap((e) =>
    e.type === 'capsule'
      ? [
          {
            label: e.checkpointId,
            description: `${e.trigger} · ${e.quality} · ${e.tokensBefore} → ${e.tokensAfter} tokens`,
            detail: new Date(e.timestamp).toLocaleString(),
            id: e.checkpointId,
          },
        ]
      : [],
  );
  if (picks.length === 0) {
    void vscode.window.showInformationMessage('Capsule: this chat has no capsule yet.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(picks.reverse(), { title: 'Export Capsule' }))?.id;
}

export function registerTreeCommands(add: (d: vscode.Disposable) => void, host: Services): void {
  add(
    vscode.commands.registerCommand('capsule.rewindHere', async (arg: unknown) => {
      const node = entryNode(arg);
      const ref = node === undefined ? undefined : rewindRef(node);
      if (!node || ref === undefined || !(await openChatOf(host, node))) return;
      await rewind(host, ref);
    }),
  );

  const undoOrRedo =
    (action: 'undo' | 'redo') =>
    async (arg: unknown): Promise<void> => {
      const node = entryNode(arg);
      const ck = capsuleCheckpoint(node);
      if (!node || ck === undefined || !(await openChatOf(host, node))) return;
      await undoCompaction(host, ck, action);
    };
  add(vscode.commands.registerCommand('capsule.undoCompaction', undoOrRedo('undo')));
  add(vscode.commands.registerCommand('capsule.redoCompaction', undoOrRedo('redo')));

  add(
    vscode.commands.registerCommand('capsule.compactUpToHere', async (arg: unknown) => {
      const node = entryNode(arg);
      const id = node?.kind === 'message' ? node.moment.message?.id : undefined;
      if (!node || id === undefined || !(await openChatOf(host, node))) return;
      await compactUpTo(host, id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.inspectCapsule', async (arg: unknown) => {
      const node = entryNode(arg);
      const ck = capsuleCheckpoint(node);
      if (!node || ck === undefined || !(await openChatOf(host, node))) return;
      await host.view.reveal();
      host.out.showCapsule(ck);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.exportCapsule', async (arg: unknown) => {
      const node = entryNode(arg);
      const checkpointId = capsuleCheckpoint(node) ?? (await pickCapsule(host));
      if (checkpointId === undefined) return;
      const path = node ? (await host.sessions.directory.list()).find((s) => s.id === node.sessionId)?.path : undefined;
      await exportWithDialog(host, checkpointId, path);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.switchChat', async (arg: unknown) => {
      const id = sessionNode(arg)?.summary.id ?? (await pickChat(host, 'Switch Chat'))?.id;
      if (id !== undefined) await switchChat(host, id);
    }),
  );

  add(
    vscode.commands.registerCommand('capsule.deleteChat', async (arg: unknown) => {
      const summary = sessionNode(arg)?.summary ?? (await pickChat(host, 'Delete Chat'));
      if (summary) await deleteChat(host, summary.id, chatLabel(summary));
    }),
  );
}
