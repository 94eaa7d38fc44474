// MCP tools the user always allows, by their full name (`mcp__server__tool`), kept in the user's own settings only: a workspace's files can never pre-approve its own server's tools.
import type * as vscode from 'vscode';
import { NAME_PATTERN } from '../../node/mcp/toolNames.js';
import { LIST_LIMITS } from '../../protocol/limits.js';
import type { AllowRule } from '../../protocol/messages.js';
import { inspectSetting, writeSettingAt } from './settings.js';

/** The setting holding the allowed MCP tool names (application-scoped, like capsule.mcp.servers). */
const ALLOWED_MCP_TOOLS_KEY = 'approvals.allowedMcpTools';

function names(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && NAME_PATTERN.test(n)) : [];
}

/** The allowed tool names in force: the user value alone (a workspace value is ignored, whatever the scope VS Code applies). */
export function allowedMcpTools(): string[] {
  return names(inspectSetting<unknown>(ALLOWED_MCP_TOOLS_KEY)?.globalValue);
}

/** The view's rows: each allowed tool with its ×. */
export function mcpToolRules(): AllowRule[] {
  return allowedMcpTools()
    .slice(0, LIST_LIMITS.allowRules)
    .map((rule) => ({ rule, scope: 'user', kind: 'mcpTool' }));
}

export async function allowMcpTool(name: string): Promise<void> {
  if (!NAME_PATTERN.test(name)) return;
  const current = allowedMcpTools();
  if (current.includes(name)) return;
  await writeSettingAt(ALLOWED_MCP_TOOLS_KEY, [...current, name], 'user');
}

export async function forgetMcpTool(name: string): Promise<void> {
  const left = allowedMcpTools().filter((n) => n !== name);
  await writeSettingAt(ALLOWED_MCP_TOOLS_KEY, left.length === 0 ? undefined : left, 'user');
}

/** A change of the setting (the view's list follows). */
export function affectsMcpToolRules(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(`capsule.${ALLOWED_MCP_TOOLS_KEY}`);
}
