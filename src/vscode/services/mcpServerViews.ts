// The setup panel's rows from the hub's server states and this workspace's disabled list, clamped to the protocol's sizes.
import { LIMITS, LIST_LIMITS } from '../../protocol/limits.js';
import type { McpServerView } from '../../protocol/messages.js';
import type { ServerState } from '../../node/mcp/hub.js';

function clamp(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A stderr tail can be long; its end says most, so a long error keeps its head line and its end. */
function clampError(text: string): string {
  if (text.length <= LIMITS.notice) return text;
  const head = text.slice(0, 600);
  return `${head}\n…\n${text.slice(text.length - (LIMITS.notice - head.length - 3))}`;
}

const TRANSPORTS = new Set(['stdio', 'http', 'sse']);

export function toServerViews(states: readonly ServerState[], disabled: readonly string[]): McpServerView[] {
  const off = new Set(disabled);
  const rows: McpServerView[] = states.map((s) => ({
    name: clamp(s.name, LIMITS.id),
    // A server disabled in this window is stopped in the hub; the panel says why it is off.
    status: off.has(s.name) && s.status === 'stopped' ? 'disabled' : s.status,
    tools: s.tools,
    schemaTokens: s.schemaTokens,
    ...(TRANSPORTS.has(s.transport) ? { transport: s.transport as McpServerView['transport'] } : {}),
    source: clamp(s.source, LIMITS.label),
    ...(s.error === undefined ? {} : { error: clampError(s.error) }),
  }));
  const listed = new Set(states.map((s) => s.name));
  for (const name of disabled) if (!listed.has(name) && name !== '') rows.push({ name: clamp(name, LIMITS.id), status: 'disabled', tools: 0, schemaTokens: 0 });
  return rows.slice(0, LIST_LIMITS.mcpServers);
}
