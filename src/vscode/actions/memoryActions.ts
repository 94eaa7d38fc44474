// Capsule: Show Project Memory: what the next new chat inherits (or that nothing is inherited), with the inheritance toggle.
import * as vscode from 'vscode';
import { previewOf } from '../../engine/portable/preview.js';
import { fullTokens } from '../../protocol/format.js';
import { errorMessage } from '../base/log.js';
import { readProjectMemoryInherit, writeWorkspaceSetting } from '../services/settings.js';
import type { Services } from './services.js';

const OPEN_FILE = 'Open File';
const STOP_INHERITING = 'Stop Inheriting';
const START_INHERITING = 'Inherit in New Chats';

/** Why the last explicit /compact of this window wrote no Project Memory, so Show Project Memory can say it too. */
let lastNotWritten: string | undefined;

/** Records (or clears, with undefined) why the last /compact left Project Memory as it was. */
export function noteMemoryNotWritten(why: string | undefined): void {
  lastNotWritten = why;
}

/** The dialog's text: whether new chats inherit, and what (title, size, task, ledger, checksum, origin). */
async function projectMemoryReport(host: Pick<Services, 'memory'>): Promise<{ readonly title: string; readonly detail: string; readonly exists: boolean }> {
  const inherit = readProjectMemoryInherit();
  const toggle = inherit
    ? 'New chats of this workspace inherit it as background data (capsule.projectMemory.inherit is on).'
    : 'New chats do not inherit it: capsule.projectMemory.inherit is off for this workspace.';
  let file: Awaited<ReturnType<Services['memory']['read']>>;
  try {
    file = await host.memory.read();
  } catch (err) {
    return {
      title: 'Project Memory cannot be read',
      detail: `${errorMessage(err)}\nNew chats start without it until the file is fixed or replaced by the next /compact.`,
      exists: true,
    };
  }
  if (!file) {
    const last = lastNotWritten === undefined ? '' : `Your last /compact wrote none: ${lastNotWritten}\n\n`;
    return {
      title: 'There is no Project Memory yet',
      detail: `${last}Project Memory is written by /compact when its summary is full quality; automatic compactions never write it.\n${inherit ? 'New chats will start with it once it exists.' : 'Even then, new chats will not start with it: you turned inheriting off for this workspace.'}`,
      exists: false,
    };
  }
  const m = file.meta;
  const p = previewOf(file);
  const lines = [
    toggle,
    '',
    `${fullTokens(m.tokens)} tokens · quality ${m.quality} · saved ${m.created}`,
    m.sourceSession ? `From chat ${m.sourceSession}${m.sourceCheckpoint ? ` at ${m.sourceCheckpoint}` : ''}` : '',
    `Task: ${p.task}`,
    `Ledger: ${p.ledger}`,
    `Checksum: ${p.checksum === 'verified' ? 'verified' : 'edited by hand since it was saved'}`,
  ].filter((l, i) => l !== '' || i === 1);
  return { title: `Project Memory: "${m.title}"`, detail: lines.join('\n'), exists: true };
}

export async function showProjectMemory(host: Pick<Services, 'memory'>): Promise<void> {
  const r = await projectMemoryReport(host);
  const inherit = readProjectMemoryInherit();
  // With nothing to inherit, "Stop Inheriting" would be the dialog's main button for nothing; only turning it back on is offered.
  const buttons = r.exists ? [OPEN_FILE, inherit ? STOP_INHERITING : START_INHERITING] : inherit ? [] : [START_INHERITING];
  const choice = await vscode.window.showInformationMessage(r.title, { modal: true, detail: r.detail }, ...buttons);
  if (choice === OPEN_FILE) {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(host.memory.path));
    await vscode.window.showTextDocument(doc, { preview: false });
  } else if (choice === STOP_INHERITING || choice === START_INHERITING) {
    await writeWorkspaceSetting('projectMemory.inherit', choice === START_INHERITING);
    void vscode.window.showInformationMessage(
      choice === START_INHERITING
        ? 'Capsule: new chats inherit Project Memory again.'
        : 'Capsule: new chats start without Project Memory; chats that already started keep what they had.',
    );
  }
}
