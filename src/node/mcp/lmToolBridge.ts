// The tools VS Code itself knows (`vscode.lm.tools`) as MCP tools: which of them Capsule offers, and their results as MCP content; pure, so the host and the tests share it.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The hub's name for the tools VS Code knows: their model names are `mcp__vscode__<tool>`. */
export const VSCODE_TOOLS_SERVER = 'vscode';
export const VSCODE_TOOLS_SOURCE = 'VS Code language model tools';

/** What `vscode.lm.tools` says of one tool (LanguageModelToolInformation). */
export interface LmToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object | undefined;
  readonly tags: readonly string[];
}

/** VS Code's own and Copilot's internal tools: the `languageModelTools` contribution point reserves these prefixes for them. */
const RESERVED_PREFIXES = ['copilot_', 'vscode_'];

/**
 * VS Code names the tools of an MCP server it runs `mcp_<server>_<tool>` (the server's name lower-cased, other
 * characters than a-z 0-9 _ . - made `_`, cut to 13 characters, a number added when two servers share it, dots made
 * `_`) and tags them `mcp`.
 */
export function vscodeMcpPrefix(server: string): string {
  const safe = server
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '_')
    .slice(0, 13)
    .replaceAll('.', '_');
  return `mcp_${safe}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface OfferRule {
  /** Every MCP server Capsule knows itself (started, disabled or not approved): VS Code's copy of one of them is not offered again. */
  readonly capsuleServers: readonly string[];
  /** Tools Capsule registers itself, if it ever does. */
  readonly own: readonly string[];
}

/** Why a tool is left out, or undefined when it is offered. */
export function leftOutBecause(t: LmToolInfo, rule: OfferRule): string | undefined {
  if (RESERVED_PREFIXES.some((p) => t.name.startsWith(p))) return 'an internal tool of VS Code or Copilot (Capsule has its own)';
  if (rule.own.includes(t.name)) return "one of Capsule's own tools";
  if (t.tags.includes('mcp')) {
    const same = rule.capsuleServers.find((s) => new RegExp(`^${escapeRegExp(vscodeMcpPrefix(s))}\\d*_`).test(t.name));
    if (same !== undefined) return `the MCP server "${same}", which Capsule runs itself`;
  }
  return undefined;
}

/** The tools Capsule offers, sorted by name (a deterministic tool list). */
export function offeredLmTools(all: readonly LmToolInfo[], rule: OfferRule): LmToolInfo[] {
  return all
    .filter((t) => typeof t.name === 'string' && t.name !== '' && leftOutBecause(t, rule) === undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function base64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/** Every string under a `text` key of prompt-tsx's JSON tree, in order: its rendered text without the markup. */
function tsxText(v: unknown, out: string[], depth = 0): void {
  if (depth > 64 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) tsxText(x, out, depth + 1);
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    if (k === 'text' && typeof x === 'string') out.push(x);
    else tsxText(x, out, depth + 1);
  }
}

/**
 * One part of a LanguageModelToolResult as MCP content, told apart by shape (the classes differ between VS Code
 * versions): text parts, data parts (images stay images; JSON and text are decoded), prompt-tsx parts as their text.
 */
export function lmPartToContent(part: unknown): CallToolResult['content'][number] {
  if (part !== null && typeof part === 'object') {
    const p = part as { readonly value?: unknown; readonly mimeType?: unknown; readonly data?: unknown };
    if (typeof p.value === 'string') return { type: 'text', text: p.value };
    if (typeof p.mimeType === 'string' && p.data instanceof Uint8Array) {
      if (p.mimeType.startsWith('image/')) return { type: 'image', mimeType: p.mimeType, data: base64(p.data) };
      if (p.mimeType.startsWith('text/') || p.mimeType.includes('json')) return { type: 'text', text: Buffer.from(p.data).toString('utf8') };
      return { type: 'text', text: `[${p.mimeType} data, ${p.data.byteLength} bytes, not shown]` };
    }
    if ('value' in p) {
      const texts: string[] = [];
      tsxText(p.value, texts);
      return { type: 'text', text: texts.length > 0 ? texts.join('') : (JSON.stringify(p.value) ?? '') };
    }
  }
  return { type: 'text', text: typeof part === 'string' ? part : (JSON.stringify(part) ?? String(part)) };
}

/** A LanguageModelToolResult as an MCP result. */
export function lmResultToMcp(result: { readonly content: readonly unknown[] } | undefined): CallToolResult {
  const content = (result?.content ?? []).map(lmPartToContent);
  return { content: content.length > 0 ? content : [{ type: 'text', text: '(the tool returned nothing)' }] };
}

/** A failed invokeTool as the tool error the model reads. */
export function lmErrorToMcp(tool: string, err: unknown): CallToolResult {
  const why = err instanceof Error ? err.message : String(err);
  return { isError: true, content: [{ type: 'text', text: `The VS Code tool ${tool} failed: ${why}` }] };
}
