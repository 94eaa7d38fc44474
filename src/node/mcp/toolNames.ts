// Tool names providers accept (`^[a-zA-Z0-9_-]{1,64}$`) for `mcp__<server>__<tool>`, with collisions resolved the same way every time.
import { createHash } from 'node:crypto';

const MCP_PREFIX = 'mcp__';
export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

function clean(s: string): string {
  return s.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function hash6(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 6);
}

/** The sanitized name; too long, it is cut and ends with a short hash of the original so it stays unique. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_PREFIX}${clean(server)}__${clean(tool)}`;
  if (name.length <= MAX) return name;
  return `${name.slice(0, MAX - 7)}_${hash6(`${server}\u0000${tool}`)}`;
}

export interface NamedTool {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
}

/**
 * Names for every (server, tool), in a deterministic order (server, then tool, by code point): two pairs that
 * sanitize alike ("a.b" and "a_b") keep the first plainly and give the next a hash suffix, so the same servers always
 * give the same names whatever order they answered in.
 */
export function nameTools(pairs: readonly { readonly server: string; readonly tool: string }[]): NamedTool[] {
  const sorted = [...pairs].sort((a, b) => (a.server === b.server ? cmp(a.tool, b.tool) : cmp(a.server, b.server)));
  const used = new Set<string>();
  const out: NamedTool[] = [];
  for (const p of sorted) {
    let name = mcpToolName(p.server, p.tool);
    if (used.has(name)) name = `${name.slice(0, MAX - 7)}_${hash6(`${p.server}\u0000${p.tool}`)}`;
    for (let i = 2; used.has(name); i++) name = `${name.slice(0, MAX - 7 - String(i).length)}_${hash6(`${p.server}\u0000${p.tool}\u0000${i}`)}${i}`;
    used.add(name);
    out.push({ ...p, name });
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
