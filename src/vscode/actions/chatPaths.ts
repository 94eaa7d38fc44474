// Where paths typed in the chat point: the first file workspace folder (or the home folder without one).
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as vscode from 'vscode';

export function workspaceRoot(): string {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath ?? homedir();
}

/** Paths typed in the chat are relative to the workspace folder; `~/` is the home folder. */
export function resolveUserPath(p: string): string {
  if (p === '~' || p.startsWith('~/')) return join(homedir(), p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(workspaceRoot(), p);
}
