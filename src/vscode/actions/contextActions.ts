// Context the user gives the chat and the files it names: attachments checked before a send, "Add Selection to Chat", opening a clicked path, an edit's diff.
import * as vscode from 'vscode';
import type { Attachment } from '../../protocol/messages.js';
import { mentionText } from '../../protocol/pathRefs.js';
import { editDiffOf, type Side } from '../../node/snapshots/editDiff.js';
import { checkWorkspaceFile } from '../../node/tools/workspaceFiles.js';
import type { SnapshotDocuments } from '../services/snapshotDocuments.js';
import { relativePath, workspaceRoots } from '../services/workspaceFileSearch.js';
import type { Services } from './services.js';

export interface ContextServices extends Pick<Services, 'chat' | 'out' | 'view'> {
  readonly snapshotDocs: SnapshotDocuments;
}

/** The attachments that can be read; each one that cannot is named in one notice, and the message goes without it. */
export async function attachable(d: Pick<Services, 'out'>, attachments: readonly Attachment[] | undefined): Promise<Attachment[]> {
  if (attachments === undefined || attachments.length === 0) return [];
  const roots = workspaceRoots();
  const ok: Attachment[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const a of attachments) {
    const key = mentionText(a);
    if (seen.has(key)) continue;
    seen.add(key);
    if (a.startLine !== undefined && a.endLine !== undefined && a.endLine < a.startLine) {
      problems.push(`${key}: the range ends before it starts`);
      continue;
    }
    const check = roots.length === 0 ? { ok: false as const, message: 'no workspace folder is open' } : await checkWorkspaceFile(roots, a.path, { text: true });
    if (check.ok) ok.push(a);
    else problems.push(`${key}: ${check.message}`);
  }
  if (problems.length > 0) d.out.notify('warning', `Not attached — ${problems.join('; ')}`);
  return ok;
}

/** Opens a path clicked in the chat, at its line, only when it is an existing file inside the workspace. */
export async function openWorkspaceFile(d: Pick<Services, 'out' | 'logger'>, path: string, line?: number, column?: number): Promise<void> {
  const roots = workspaceRoots();
  const check = roots.length === 0 ? { ok: false as const, message: 'no workspace folder is open' } : await checkWorkspaceFile(roots, path);
  if (!check.ok) {
    d.logger.log('warn', 'Refused to open a path from the chat', { reason: check.message.slice(0, 200) });
    d.out.notify('warning', `Not opened: ${check.message}`);
    return;
  }
  const at = line === undefined ? undefined : new vscode.Position(line - 1, Math.max(0, (column ?? 1) - 1));
  await vscode.window.showTextDocument(vscode.Uri.file(check.real), { preview: true, ...(at === undefined ? {} : { selection: new vscode.Range(at, at) }) });
}

function sideText(s: Side, label: string): string {
  return s.kind === 'text' ? s.text : s.kind === 'absent' ? '' : `(${label} is not available: ${s.why})\n`;
}

/** "Show diff" on an applied edit: the diff editor of the file before and after exactly that call. */
export async function showEditDiff(d: ContextServices, itemId: string): Promise<void> {
  const chat = d.chat.open;
  const cut = itemId.indexOf('/');
  if (!chat || cut <= 0) {
    d.out.notify('warning', 'That edit is not in the open chat.');
    return;
  }
  const snapshots = chat.online ? chat.snapshots : undefined;
  const r = await editDiffOf(snapshots, workspaceRoots(), chat.branch(), itemId.slice(0, cut), itemId.slice(cut + 1));
  if (!r.ok) {
    d.out.notify('warning', r.message);
    return;
  }
  const missing = [
    r.before.kind === 'unavailable' ? `the content before (${r.before.why})` : '',
    r.after.kind === 'unavailable' ? `the content after (${r.after.why})` : '',
  ].filter((x) => x !== '');
  if (missing.length > 0) d.out.notify('warning', `The diff of ${r.display} is incomplete: ${missing.join(' and ')} is not available.`);
  const what = r.before.kind === 'absent' ? 'created' : r.after.kind === 'absent' ? 'deleted' : 'edited';
  await d.snapshotDocs.showDiff(
    r.display,
    sideText(r.before, 'the content before'),
    sideText(r.after, 'the content after'),
    `${r.display} (before ↔ after, ${what} by Capsule)`,
  );
}

/** "Capsule: Add Selection to Chat": the active editor's selection (or its whole file) as a mention in the composer. */
export async function addSelectionToChat(d: Pick<Services, 'out' | 'view'>): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showInformationMessage('Capsule: open a file and select some lines to add them to the chat.');
    return;
  }
  const uri = editor.document.uri;
  const roots = workspaceRoots();
  const inside = uri.scheme === 'file' && roots.length > 0 && (await checkWorkspaceFile(roots, uri.fsPath, { text: true }));
  if (!inside || !inside.ok) {
    void vscode.window.showWarningMessage(
      `Capsule: only files inside the workspace can be added to the chat${inside && !inside.ok ? ` (${inside.message})` : ''}.`,
    );
    return;
  }
  const sel = editor.selection;
  // A selection that ends at the start of a line does not include that line.
  const lastLine = sel.end.line > sel.start.line && sel.end.character === 0 ? sel.end.line - 1 : sel.end.line;
  const attachment: Attachment = sel.isEmpty ? { path: relativePath(uri) } : { path: relativePath(uri), startLine: sel.start.line + 1, endLine: lastLine + 1 };
  if (editor.document.isDirty)
    void vscode.window.showInformationMessage(
      'Capsule: the file has unsaved changes; the chat attaches its saved content. Save it first to attach what you see.',
    );
  await d.view.reveal();
  d.out.mention(mentionText(attachment), attachment);
}
