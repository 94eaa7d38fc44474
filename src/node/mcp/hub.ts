// The MCP servers of one chat (or one CLI run): started together, their tools named and normalized in one deterministic catalog, stopped together.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSchema } from '../../engine/ports.js';
import { serializeToolSchemas } from '../../engine/tokens/estimate.js';
import type { McpServerConfig } from './configTypes.js';
import { DEFAULT_MCP_TIMEOUTS, McpConnection, type McpStatus, type McpTimeouts } from './connection.js';
import { nameTools } from './toolNames.js';
import { normalizeSchema } from './schemaNormalize.js';

/** A tool's description longer than this is cut: some servers paste whole manuals into it. */
const MAX_DESCRIPTION_CHARS = 2000;

export interface CatalogTool {
  /** The name the model calls (`mcp__<server>__<tool>`). */
  readonly name: string;
  readonly server: string;
  /** The tool's own name on its server. */
  readonly tool: string;
  readonly schema: ToolSchema;
  /** The first line of the description, for the compact index. */
  readonly summary: string;
  readonly readOnly: boolean;
}

export interface ServerState {
  readonly name: string;
  readonly source: string;
  readonly transport: string;
  readonly status: McpStatus;
  readonly error?: string;
  readonly tools: number;
  /** Tokens of this server's tool schemas as they are sent (0 until it is ready). */
  readonly schemaTokens: number;
  readonly stderrTail?: string;
}

export type TokenCount = (text: string) => number;

function summaryOf(t: Tool): string {
  const d = (t.description ?? t.title ?? '').trim();
  const first = d.split(/\n|(?<=\.)\s/)[0] ?? '';
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

export class McpHub {
  readonly connections: readonly McpConnection[];
  private readonly listeners = new Set<() => void>();
  /** The catalog as last built; any change of a server's tools or status builds it again. */
  private cached: CatalogTool[] | undefined;

  constructor(servers: readonly McpServerConfig[], timeouts: McpTimeouts = DEFAULT_MCP_TIMEOUTS) {
    const sorted = [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.connections = sorted.map((s) => new McpConnection(s, timeouts, { onTools: () => this.changed(), onStatus: () => this.changed() }));
  }

  /** Starts every server at once; resolves when each is ready or failed. */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.stop()));
  }

  get(server: string): McpConnection | undefined {
    return this.connections.find((c) => c.name === server);
  }

  /** Called on any change of a server's tools or status; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.cached = undefined;
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Every tool of every ready server, named and in a deterministic order (server, then tool). */
  catalog(): CatalogTool[] {
    this.cached ??= this.build();
    return this.cached;
  }

  private build(): CatalogTool[] {
    const byKey = new Map<string, { server: string; tool: Tool }>();
    for (const c of this.connections) {
      // A server being restarted keeps its tools: a call waits for it, and the model sees no churn.
      if (c.status === 'failed' || c.status === 'stopped') continue;
      for (const t of c.tools) if (typeof t.name === 'string' && t.name !== '') byKey.set(`${c.name}\u0000${t.name}`, { server: c.name, tool: t });
    }
    return nameTools([...byKey.values()].map((v) => ({ server: v.server, tool: v.tool.name }))).map((n) => {
      const t = byKey.get(`${n.server}\u0000${n.tool}`)?.tool;
      const desc = (t?.description ?? t?.title ?? '').trim();
      const text = `[MCP server ${n.server}] ${desc.length > MAX_DESCRIPTION_CHARS ? `${desc.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : desc}`.trim();
      return {
        name: n.name,
        server: n.server,
        tool: n.tool,
        schema: { name: n.name, description: text, parameters: normalizeSchema(t?.inputSchema) },
        summary: t === undefined ? '' : summaryOf(t),
        readOnly: t?.annotations?.readOnlyHint === true,
      };
    });
  }

  /** The status of each server, with its schema tokens counted by `count`. */
  states(count: TokenCount, catalog: readonly CatalogTool[] = this.catalog()): ServerState[] {
    return this.connections.map((c) => {
      const mine = catalog.filter((t) => t.server === c.name).map((t) => t.schema);
      const tail = c.stderr.lines();
      const t = c.config.transport;
      return {
        name: c.name,
        source: c.config.source.label,
        transport: t.type === 'stdio' ? 'stdio' : c.transportUsed,
        status: c.status,
        ...(c.error === undefined ? {} : { error: c.error }),
        tools: mine.length,
        schemaTokens: mine.length === 0 ? 0 : count(serializeToolSchemas(mine)),
        ...(tail === '' ? {} : { stderrTail: tail }),
      };
    });
  }
}
