// "Capsule: Import Conversation…": a Claude Code, Codex, SWE-agent, Anthropic or OpenAI transcript opened as a new chat that continues it.
import * as vscode from 'vscode';
import { ImportError } from '../../engine/import/importTranscript.js';
import { FORMAT_NAMES, formatImportReport } from '../../engine/import/report.js';
import { importFileProblem } from '../../node/importSession.js';
import { importSessionFile } from '../../node/importStream.js';
import { nodeIds } from '../../node/nodeClock.js';
import { errorMessage } from '../base/log.js';
import { workspaceRoot } from './chatActions.js';
import type { Services } from './services.js';
import { switchChat } from './sessionActions.js';

export async function importConversation(host: Pick<Services, 'chat' | 'sessions' | 'logger'>): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: { 'Agent transcripts': ['jsonl', 'json', 'traj'], 'All files': ['*'] },
    openLabel: 'Import',
    title: 'Import a conversation (Claude Code, Codex CLI, SWE-agent, mini-swe-agent, Anthropic or OpenAI messages)',
  });
  const uri = picked?.[0];
  if (!uri) return;
  try {
    const problem = await importFileProblem(uri.fsPath);
    if (problem !== undefined) throw new ImportError(problem);
    const sessionId = nodeIds.next('s_');
    // The file name and the header carry the same id, so the chat lists and opens like any other.
    const result = await importSessionFile(uri.fsPath, host.sessions.directory.sessionPath(sessionId), {
      sessionId,
      cwd: workspaceRoot(),
      now: new Date().toISOString(),
      ids: nodeIds,
    });
    const repairs = result.repairs;
    for (const line of [...formatImportReport(result.report), ...repairs.map((r) => `repaired: ${r}`)])
      host.logger.log('info', `import ${uri.fsPath}: ${line}`);
    // The first request compacts the chat if it does not fit the model: the hard-limit barrier runs before any send.
    await switchChat(host, sessionId);
    const dropped = result.report.dropped.reduce((n, d) => n + d.count, 0);
    void vscode.window.showInformationMessage(
      `Capsule: imported a ${FORMAT_NAMES[result.report.format]} as a new chat (${result.entries} entries${dropped > 0 ? `, ${dropped} item(s) dropped; the report is in the Capsule log` : ''}).`,
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`Capsule: not imported: ${errorMessage(err)}`);
  }
}
