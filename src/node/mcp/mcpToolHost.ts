// The MCP side of the engine's tool port: a tool list fixed for the session (full schemas, or a compact index when they would take too much of the window), calls routed to servers, tool-set changes as one system update.
import type { EvidenceArchive, ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import { serializeToolSchemas } from '../../engine/tokens/estimate.js';
import type { FileCapture } from '../snapshots/fileSnapshots.js';
import type { ApprovalFn } from '../tools/types.js';
import type { CatalogTool, McpHub, TokenCount } from './hub.js';
import { callMcpTool, type CallContext } from './mcpCall.js';
import { DEFAULT_DEFER_SHARE } from './mcpSettings.js';
import { compactIndex, MAX_LOAD_PER_CALL, MCP_CALL_SCHEMA, MCP_CALL_TOOL, MCP_TOOLS_SCHEMA, MCP_TOOLS_TOOL, MCP_UPDATE_REASON } from './metaTools.js';

export interface McpToolHostOptions {
  readonly hub: McpHub;
  readonly count: TokenCount;
  /** The hard limit of the model in use: schemas and the index are measured against it. */
  readonly hardLimit: number;
  readonly deferShare?: number;
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  readonly autoAllowReadOnly?: boolean;
  readonly headBytes: number;
  readonly tailBytes: number;
  readonly archive?: EvidenceArchive;
  readonly capture?: FileCapture;
  readonly now?: () => number;
  /** The model in use takes image parts: image results are shown to it (otherwise a placeholder names the archived original). */
  readonly vision?: () => boolean;
}

export interface McpBudget {
  readonly servers: readonly { readonly name: string; readonly status: string; readonly tools: number; readonly schemaTokens: number }[];
  /** Every MCP tool schema, counted as sent. */
  readonly schemaTokens: number;
  /** The share of the hard limit past which they are deferred, in tokens. */
  readonly deferAt: number;
  readonly deferred: boolean;
  /** What the MCP part of the tool list costs in fact (full schemas, or just the two meta-tools). */
  readonly listTokens: number;
  /** The index in the system prompt when deferred. */
  readonly indexTokens: number;
  readonly loaded: readonly string[];
}

/** One line for the CLI and /budget: per-server schema tokens and whether they are deferred. */
export function mcpBudgetLine(b: McpBudget): string {
  const per = b.servers.map((s) => `${s.name} ${s.schemaTokens}${s.status === 'ready' ? '' : ` (${s.status})`}`).join(' · ');
  const how = b.deferred
    ? `deferred (over ${b.deferAt}, the MCP share of the hard limit): the model sees an index of ${b.indexTokens} tokens and loads schemas with mcp_tools`
    : `offered in full (${b.listTokens} tokens in the tool list, within ${b.deferAt})`;
  return `MCP tool schemas: ${b.schemaTokens} tokens (${per}); ${how}`;
}

export interface McpInstruction {
  readonly content: string;
  readonly reason: string;
}

type Args = Readonly<Record<string, unknown>>;

function parseArgs(argsJson: string): Args | string {
  if (argsJson.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(argsJson);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Args) : 'the arguments must be a JSON object';
  } catch {
    return 'the arguments are not valid JSON';
  }
}

export class McpToolHost implements ToolHost {
  /** The MCP tools whose full schemas are in the tool list (none when deferred). */
  readonly offered: readonly CatalogTool[];
  readonly deferred: boolean;
  /** Tokens of every MCP tool schema at the start, and the most they may take before being deferred. */
  readonly schemaTokens: number;
  readonly deferAt: number;
  private readonly list: readonly ToolSchema[];
  private readonly ctx: CallContext;
  private lastAnnounced: string | undefined;
  /** Tool names the model loaded with mcp_tools in this session. */
  readonly loaded = new Set<string>();

  constructor(private readonly opts: McpToolHostOptions) {
    const all = opts.hub.catalog();
    this.schemaTokens = all.length === 0 ? 0 : opts.count(serializeToolSchemas(all.map((t) => t.schema)));
    this.deferAt = Math.floor(Math.max(0, opts.hardLimit) * (opts.deferShare ?? DEFAULT_DEFER_SHARE));
    this.deferred = this.schemaTokens > this.deferAt;
    this.offered = this.deferred ? [] : all;
    // Fixed for the session: the same tools, in the same order, keep the provider's cached prefix (docs/user/mcp.md).
    this.list = Object.freeze([...this.offered.map((t) => t.schema), MCP_TOOLS_SCHEMA, MCP_CALL_SCHEMA]);
    this.ctx = {
      hub: opts.hub,
      roots: opts.roots,
      approve: opts.approve,
      trusted: opts.trusted,
      autoAllowReadOnly: opts.autoAllowReadOnly === true,
      allowed: new Set(),
      headBytes: opts.headBytes,
      tailBytes: opts.tailBytes,
      ...(opts.archive === undefined ? {} : { archive: opts.archive }),
      ...(opts.capture === undefined ? {} : { capture: opts.capture }),
      now: opts.now ?? Date.now,
      ...(opts.vision === undefined ? {} : { vision: opts.vision }),
    };
    this.lastAnnounced = this.stateText(all);
  }

  schemas(): readonly ToolSchema[] {
    return this.list;
  }

  /** What MCP costs in this session, for /budget, the meter's tooltip and the CLI's start line. */
  budget(): McpBudget {
    const servers = this.opts.hub.states(this.opts.count).map((s) => ({ name: s.name, status: s.status, tools: s.tools, schemaTokens: s.schemaTokens }));
    const initial = this.initialInstruction();
    return {
      servers,
      schemaTokens: this.schemaTokens,
      deferAt: this.deferAt,
      deferred: this.deferred,
      listTokens: this.opts.count(serializeToolSchemas(this.list)),
      indexTokens: initial === undefined ? 0 : this.opts.count(initial.content),
      loaded: [...this.loaded],
    };
  }

  /** The instruction the session starts with: the index when deferred, nothing when every schema is in the list. */
  initialInstruction(): McpInstruction | undefined {
    return this.lastAnnounced === undefined ? undefined : { content: this.lastAnnounced, reason: MCP_UPDATE_REASON };
  }

  /**
   * The whole MCP tool state beyond the fixed list, as one instruction: the index of deferred tools, tools added
   * since the list was fixed, tools gone. Undefined when the list says it all.
   */
  private stateText(now: readonly CatalogTool[]): string | undefined {
    const offered = new Set(this.offered.map((t) => t.name));
    const extra = now.filter((t) => !offered.has(t.name));
    const present = new Set(now.map((t) => t.name));
    const gone = this.offered.filter((t) => !present.has(t.name));
    if (extra.length === 0 && gone.length === 0) return undefined;
    const lines: string[] = [];
    if (extra.length > 0) {
      // The index may take about half of the deferral budget; the rest is left for schemas the model loads.
      const index = compactIndex(extra, this.opts.count, Math.max(200, Math.floor(this.deferAt / 2)));
      lines.push(
        this.deferred
          ? 'MCP tools available (their schemas are not in your tool list to save context): load a schema with mcp_tools {"names": [...]}, then call the tool with mcp_call {"name": ..., "arguments": {...}}.'
          : 'MCP tools added since your tool list was fixed: load a schema with mcp_tools {"names": [...]}, then call the tool with mcp_call.',
        index.text,
      );
    }
    if (gone.length > 0) lines.push(`MCP tools no longer available (calls to them fail): ${gone.map((t) => t.name).join(', ')}.`);
    return lines.join('\n');
  }

  /** The update to append after the servers' tools changed (list_changed, a server added, failed or back), or undefined when nothing the model reads changed. */
  pendingUpdate(): McpInstruction | undefined {
    const text = this.stateText(this.opts.hub.catalog());
    if (text === this.lastAnnounced) return undefined;
    this.lastAnnounced = text;
    return { content: text ?? 'MCP tools: every MCP tool is in your tool list again.', reason: MCP_UPDATE_REASON };
  }

  async run(name: string, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
    const args = parseArgs(argsJson);
    if (typeof args === 'string') return { isError: true, content: `Invalid arguments for ${name}: ${args}.` };
    if (name === MCP_TOOLS_TOOL) return this.load(args);
    if (name === MCP_CALL_TOOL) {
      const target = args.name;
      if (typeof target !== 'string' || target === '')
        return { isError: true, content: `${MCP_CALL_TOOL} needs "name": the full name of an MCP tool (mcp__server__tool).` };
      const inner = args.arguments ?? {};
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
        return { isError: true, content: `${MCP_CALL_TOOL}: "arguments" must be a JSON object.` };
      return this.call(target, inner as Args, signal);
    }
    return this.call(name, args, signal);
  }

  /** True for the names this host answers (its meta-tools and every MCP tool known now). */
  handles(name: string): boolean {
    return name === MCP_TOOLS_TOOL || name === MCP_CALL_TOOL || name.startsWith('mcp__');
  }

  private find(name: string): CatalogTool | undefined {
    return this.opts.hub.catalog().find((t) => t.name === name);
  }

  private async call(name: string, args: Args, signal: AbortSignal): Promise<ToolResult> {
    const t = this.find(name);
    if (t === undefined) {
      const servers = this.opts.hub.states(() => 0).map((s) => `${s.name} (${s.status}${s.error === undefined ? '' : `: ${s.error}`})`);
      return {
        isError: true,
        content: `Unknown MCP tool "${name}". MCP servers: ${servers.join('; ') || 'none'}. mcp_tools {"server": "…"} lists a server's tools.`,
      };
    }
    return callMcpTool(this.ctx, t, args, signal);
  }

  private load(args: Args): ToolResult {
    const all = this.opts.hub.catalog();
    if (typeof args.server === 'string' && args.names === undefined) {
      const mine = all.filter((t) => t.server === args.server);
      if (mine.length === 0)
        return {
          isError: true,
          content: `No MCP server "${args.server}" with tools. Servers: ${[...new Set(all.map((t) => t.server))].join(', ') || 'none'}.`,
        };
      return { isError: false, content: mine.map((t) => `${t.name}${t.summary === '' ? '' : `: ${t.summary}`}`).join('\n') };
    }
    const names = Array.isArray(args.names) ? args.names.filter((n): n is string => typeof n === 'string') : [];
    if (names.length === 0) return { isError: true, content: `${MCP_TOOLS_TOOL} needs "names" (full tool names) or "server".` };
    if (names.length > MAX_LOAD_PER_CALL) return { isError: true, content: `${MCP_TOOLS_TOOL}: at most ${MAX_LOAD_PER_CALL} names per call.` };
    const found = names.map((n) => all.find((t) => t.name === n));
    const missing = names.filter((_, i) => found[i] === undefined);
    const schemas = found.filter((t): t is CatalogTool => t !== undefined);
    for (const t of schemas) this.loaded.add(t.name);
    const body = schemas.map((t) => JSON.stringify({ name: t.name, description: t.schema.description, parameters: t.schema.parameters })).join('\n');
    const miss = missing.length === 0 ? '' : `\nUnknown: ${missing.join(', ')}.`;
    return { isError: schemas.length === 0, content: `${body}${miss}`.trim() };
  }
}
