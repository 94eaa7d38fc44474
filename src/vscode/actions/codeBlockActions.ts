// A code block's buttons besides Copy: Insert at Cursor, Apply to File (the selection, or the whole file once confirmed), New File.
import * as vscode from 'vscode';
import type { Services } from './services.js';

export type CodeBlockAction = 'insert' | 'apply' | 'newFile';

const REPLACE_FILE = 'Replace File';

/** What the button does; every change goes through the editor, so Undo takes it back. */
export async function codeBlockAction(host: Pick<Services, 'out'>, action: CodeBlockAction, code: string, language: string | undefined): Promise<void> {
  if (action === 'newFile') {
    const doc = await vscode.workspace.openTextDocument({ content: code, ...(language === undefined || language === '' ? {} : { language }) });
    await vscode.window.showTextDocument(doc, { preview: false });
    return;
  }
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    host.out.notify(
      'info',
      action === 'insert' ? 'Open a file and put the cursor where the code goes, then Insert at Cursor.' : 'Open the file the code is for, then Apply to File.',
    );
    return;
  }
  let range: vscode.Range = editor.selection;
  if (action === 'apply' && editor.selection.isEmpty) {
    // No selection: the block replaces the whole file, which the user confirms (Undo still brings it back).
    const name = vscode.workspace.asRelativePath(editor.document.uri);
    const ok = await vscode.window.showWarningMessage(
      `Replace all of ${name} with this code block?`,
      { modal: true, detail: 'Select part of the file first to replace only that part. Undo (Ctrl+Z) brings the file back.' },
      REPLACE_FILE,
    );
    if (ok !== REPLACE_FILE) return;
    const last = editor.document.lineAt(editor.document.lineCount - 1);
    range = new vscode.Range(new vscode.Position(0, 0), last.range.end);
  }
  const done = await editor.edit((b) => b.replace(range, code));
  if (!done) host.out.notify('warning', 'The editor did not take the change (it may be read-only).');
}
