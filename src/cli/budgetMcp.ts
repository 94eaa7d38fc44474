// The MCP line of `capsule budget`: it starts no server (it works offline, without a model), so it says which servers the workspace configures and that their schemas were not measured here.
import { loadMcpConfig } from '../node/mcp/configLoad.js';

export interface BudgetMcp {
  /** Always false: schema tokens are measured only by starting the servers (`capsule mcp list`). */
  readonly measured: false;
  /** The servers the workspace's .mcp.json and .vscode/mcp.json define (by name), whether or not they are approved. */
  readonly configured: readonly string[];
  readonly line: string;
}

export async function budgetMcp(workspace: string): Promise<BudgetMcp> {
  // Variables and inputs are not asked for: a server whose `${input:…}` has no value is still named.
  const config = await loadMcpConfig({ workspace, vars: { workspaceFolder: workspace, env: process.env, input: async () => undefined } });
  const names = [...new Set([...config.servers.map((s) => s.name), ...config.problems.flatMap((p) => (p.server === undefined ? [] : [p.server]))])].sort();
  const line =
    names.length === 0
      ? '  MCP tool schemas:    none (no MCP server configured in the workspace)'
      : `  MCP tool schemas:    not measured: 'capsule budget' starts no server (configured: ${names.join(', ')}); 'capsule mcp list --workspace ${workspace}' starts them and counts their schemas`;
  return { measured: false, configured: names, line };
}
