// The "MCP Servers" command: each server with its status, tool count and schema tokens (and why it failed), with Restart and Disable.
import * as vscode from 'vscode';
import { counterForModel } from '../../node/tokenCounter.js';
import type { McpServers } from '../services/mcpServers.js';

/** Counts schema tokens the way the chat's model counts them. */
export function mcpTokenCount(model: string): (text: string) => number {
  const counter = counterForModel(model);
  return (t) => counter.count(t);
}

export async function showMcpServers(mcp: McpServers, model: string): Promise<void> {
  const states = mcp.states(mcpTokenCount(model));
  const off = mcp.disabled();
  const items = [
    ...states.map((s) => ({
      label: s.name,
      description: `${s.status} · ${s.tools} tool${s.tools === 1 ? '' : 's'} · ${s.schemaTokens} schema tokens · ${s.transport} · ${s.source}`,
      ...(s.error === undefined ? {} : { detail: s.error }),
      name: s.name,
      isOff: false,
    })),
    ...off.map((name) => ({ label: name, description: 'disabled in this workspace', name, isOff: true })),
  ];
  if (items.length === 0) {
    void vscode.window.showInformationMessage(
      'No MCP server is running. Configure them in .mcp.json, .vscode/mcp.json or the capsule.mcp.servers setting; they start with the next chat.',
    );
    return;
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'MCP servers', placeHolder: 'Pick a server to restart or disable it' });
  if (pick === undefined) return;
  const actions = pick.isOff ? ['Enable'] : ['Restart', 'Disable in this workspace'];
  const action = await vscode.window.showQuickPick(actions, { title: `MCP server ${pick.name}` });
  if (action === 'Restart') await mcp.restart(pick.name);
  else if (action === 'Disable in this workspace') await mcp.disable(pick.name);
  else if (action === 'Enable') await mcp.enable(pick.name);
}
