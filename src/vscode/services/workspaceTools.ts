// The agent's workspace tools in VS Code: the folders they may touch, approval for writes and commands (inline cards; a modal where none are wired), trust, ripgrep.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WorkspaceConfig } from '../../node/agentSession.js';
import type { ApprovalFn, ApprovalRequest } from '../../node/tools/types.js';

/** A modal has room for a long diff, but not for megabytes of it. */
const MAX_DETAIL_CHARS = 12_000;

function cut(detail: string): string {
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}\n… (${detail.length - MAX_DETAIL_CHARS} more characters not shown)` : detail;
}

/**
 * Asks with a modal dialog showing the diff or the command. A cancelled turn answers "no" at once: the dialog
 * may stay open, but nothing waits for it and its late answer changes nothing.
 */
async function approveInVsCode(req: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  const what =
    req.kind === 'write'
      ? 'Capsule wants to change this file:'
      : req.kind === 'mcp'
        ? 'Capsule wants to call this MCP tool with these arguments:'
        : 'Capsule wants to run this command:';
  const detail = `${what}\n\n${cut(req.detail)}`;
  const answer = vscode.window.showWarningMessage(req.title, { modal: true, detail }, 'Allow');
  const cancelled = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
  return (await Promise.race([answer, cancelled])) === 'Allow';
}

/** VS Code ships ripgrep; use it when it is where VS Code keeps it, else the one on PATH. */
function ripgrep(): string | undefined {
  const root = vscode.env.appRoot;
  if (typeof root !== 'string' || root === '') return undefined;
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = [
    join(root, 'node_modules', '@vscode', 'ripgrep', 'bin', name),
    join(root, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', name),
  ];
  return candidates.find((p) => existsSync(p));
}

/**
 * The settings files Capsule itself writes ("Always allow" rules go to the workspace settings): `.vscode/settings.json`
 * of each folder, and the `.code-workspace` file of a multi-root workspace. They are Capsule's own files: the agent
 * cannot write them (a model must not grant itself rules), and rewind never records, restores or deletes them.
 */
export function capsuleSettingsFiles(): string[] {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const file = vscode.workspace.workspaceFile;
  return [...roots.map((r) => join(r, '.vscode', 'settings.json')), ...(file !== undefined && file.scheme === 'file' ? [file.fsPath] : [])];
}

/** Tools confined to the open folders; without a folder the agent has no workspace tools. */
export function workspaceToolsConfig(approve: ApprovalFn = approveInVsCode): WorkspaceConfig | undefined {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  if (roots.length === 0) return undefined;
  const rg = ripgrep();
  return {
    roots,
    approve,
    // Read live: the user may trust the folder while the chat is open.
    trusted: () => vscode.workspace.isTrusted,
    ...(rg === undefined ? {} : { ripgrepPath: rg }),
  };
}
