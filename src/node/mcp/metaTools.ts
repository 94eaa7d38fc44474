// The two tools that reach MCP tools outside the tool list (deferred ones, and ones a server added later), and the compact index the model reads instead of full schemas.
import type { ToolSchema } from '../../engine/ports.js';
import type { CatalogTool, TokenCount } from './hub.js';

export const MCP_TOOLS_TOOL = 'mcp_tools';
export const MCP_CALL_TOOL = 'mcp_call';
/** `reason` of the system update that carries the MCP tool set; each one carries the whole current set, so it supersedes the earlier ones at compaction. */
export const MCP_UPDATE_REASON = 'MCP tools';
/** Full schemas one mcp_tools call returns at the most. */
export const MAX_LOAD_PER_CALL = 20;

export const MCP_TOOLS_SCHEMA: ToolSchema = {
  name: MCP_TOOLS_TOOL,
  description:
    'Read-only. Returns the full input schemas of MCP tools named in the MCP tool index (or announced in a system update), so you can call them with mcp_call. ' +
    'Give "names" (full names like mcp__server__tool), or "server" to list that server\'s tools in one line each.',
  parameters: {
    type: 'object',
    properties: {
      names: { type: 'array', items: { type: 'string' }, description: `Full tool names, at most ${MAX_LOAD_PER_CALL}.` },
      server: { type: 'string', description: 'List the tools of this MCP server.' },
    },
    additionalProperties: false,
  },
};

export const MCP_CALL_SCHEMA: ToolSchema = {
  name: MCP_CALL_TOOL,
  description:
    'Calls an MCP tool that is not in your tool list (from the MCP tool index or a system update), by its full name, with arguments that follow the schema mcp_tools returned. ' +
    'Tools in your tool list are called directly instead.',
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Full tool name, e.g. mcp__github__search_issues.' },
      arguments: { type: 'object', description: "The tool's arguments." },
    },
    required: ['name'],
    additionalProperties: false,
  },
};

/** How detailed the index can be within its budget: a line per tool, names only, or a count per server. */
export type IndexDetail = 'lines' | 'names' | 'counts';

function indexText(tools: readonly CatalogTool[], detail: IndexDetail): string {
  const servers = [...new Set(tools.map((t) => t.server))];
  const out: string[] = [];
  for (const s of servers) {
    const mine = tools.filter((t) => t.server === s);
    if (detail === 'counts') out.push(`- server ${s}: ${mine.length} tool${mine.length === 1 ? '' : 's'} (mcp_tools {"server": "${s}"} lists them)`);
    else if (detail === 'names') out.push(`- server ${s}: ${mine.map((t) => t.name).join(', ')}`);
    else {
      out.push(`- server ${s}:`);
      for (const t of mine) out.push(`  - ${t.name}${t.summary === '' ? '' : `: ${t.summary}`}`);
    }
  }
  return out.join('\n');
}

/** The most detailed index of `tools` that fits `budget` tokens (the counts always fit: they are one line per server). */
export function compactIndex(tools: readonly CatalogTool[], count: TokenCount, budget: number): { readonly text: string; readonly detail: IndexDetail } {
  for (const detail of ['lines', 'names'] as const) {
    const text = indexText(tools, detail);
    if (count(text) <= budget) return { text, detail };
  }
  return { text: indexText(tools, 'counts'), detail: 'counts' };
}
