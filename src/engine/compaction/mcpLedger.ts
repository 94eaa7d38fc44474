// MCP calls in the capsule's ledger (server, tool, status, error) and the MCP tools the model loaded (the set in force beyond the tool list).
import * as z from '../zod.js';
import type { Entry, ToolCall, ToolResultEntry } from '../transcript/schema.js';

/** The ledger keeps this many most recent MCP calls. */
const MAX_LEDGER_MCP_CALLS = 100;
const MAX_ERROR_CHARS = 200;

export const LedgerMcpCallSchema = z.object({
  callId: z.string(),
  server: z.string(),
  tool: z.string(),
  /** null: no result (cancelled or in progress). */
  ok: z.nullable(z.boolean()),
  denied: z.optional(z.boolean()),
  /** The first line of an error result. */
  error: z.optional(z.string()),
});
export type LedgerMcpCall = z.infer<typeof LedgerMcpCallSchema>;

const MCP_TOOL = /^mcp__(.+?)__(.+)$/;

/** Server and tool of a sanitized `mcp__<server>__<tool>` name (server names keep their first `__` split). */
function splitMcpName(name: string): { readonly server: string; readonly tool: string } | undefined {
  const m = MCP_TOOL.exec(name);
  return m?.[1] === undefined || m[2] === undefined ? undefined : { server: m[1], tool: m[2] };
}

function argsOf(call: ToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The MCP tool a call reached: directly by its name, or through mcp_call. */
function targetOf(call: ToolCall): string | undefined {
  if (call.name === 'mcp_call') {
    const n = argsOf(call).name;
    return typeof n === 'string' ? n : undefined;
  }
  return call.name.startsWith('mcp__') ? call.name : undefined;
}

function recordOf(call: ToolCall, name: string, r: ToolResultEntry | undefined): LedgerMcpCall | undefined {
  const parts = splitMcpName(name);
  if (parts === undefined) return undefined;
  const denied = r?.effects?.denied === true;
  const ok = r === undefined ? null : !r.isError;
  const first = r !== undefined && r.isError ? (r.content.split('\n')[0] ?? '').slice(0, MAX_ERROR_CHARS) : '';
  return { callId: call.id, ...parts, ok, ...(denied ? { denied: true } : {}), ...(first === '' ? {} : { error: first }) };
}

/** The ledger's MCP part after `entries`, on top of `previous` (older capsules have none). */
export function mcpLedgerOf(
  entries: readonly Entry[],
  previous: { readonly mcpCalls: readonly LedgerMcpCall[]; readonly mcpToolsLoaded: readonly string[] },
): { readonly mcpCalls: LedgerMcpCall[]; readonly mcpToolsLoaded: string[] } {
  const results = new Map<string, ToolResultEntry>();
  for (const e of entries) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  const seen = new Set(previous.mcpCalls.map((c) => c.callId));
  const calls = [...previous.mcpCalls];
  const loaded = new Set(previous.mcpToolsLoaded);
  for (const e of entries) {
    if (e.type !== 'assistant') continue;
    for (const call of e.toolCalls) {
      const r = results.get(call.id);
      if (call.name === 'mcp_tools') {
        const names = argsOf(call).names;
        if (r !== undefined && !r.isError && Array.isArray(names))
          for (const n of names) if (typeof n === 'string' && r.content.includes(`"name":"${n}"`)) loaded.add(n);
        continue;
      }
      const target = targetOf(call);
      if (target === undefined || seen.has(call.id)) continue;
      const rec = recordOf(call, target, r);
      if (rec === undefined) continue;
      seen.add(call.id);
      calls.push(rec);
    }
  }
  return { mcpCalls: calls.slice(Math.max(0, calls.length - MAX_LEDGER_MCP_CALLS)), mcpToolsLoaded: [...loaded] };
}

/** The ledger lines of MCP (none when the session made no MCP call and loaded no MCP tool). */
export function renderMcpLedger(calls: readonly LedgerMcpCall[], loaded: readonly string[], max = 15): string[] {
  if (calls.length === 0 && loaded.length === 0) return [];
  const out: string[] = ['', `**MCP calls (${calls.length}, newest first):**`];
  for (const c of [...calls].reverse().slice(0, max)) {
    const status = c.ok === null ? 'no result' : c.denied === true ? 'denied' : c.ok ? 'ok' : `error${c.error === undefined ? '' : `: ${c.error}`}`;
    out.push(`- \`${c.server}\` / \`${c.tool}\` → ${status}`);
  }
  if (calls.length > max) out.push(`- … ${calls.length - max} older`);
  if (loaded.length > 0) out.push('', `**MCP tools loaded (call them with mcp_call):** ${loaded.map((n) => `\`${n}\``).join(', ')}`);
  return out;
}
