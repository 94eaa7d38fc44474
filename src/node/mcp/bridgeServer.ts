// An MCP server inside this process over the SDK's in-memory transport: the hub connects to it like to any server, so tools that are not MCP (VS Code's own) get approvals, caps, deferral and the ledger unchanged.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

export interface BridgeTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object | undefined;
}

/** Where the tools come from: listed afresh at each tools/list, called with the cancellation of the MCP request. */
export interface ToolSource {
  list(): readonly BridgeTool[];
  call(name: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<CallToolResult>;
  /** The list changed; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

function toTool(t: BridgeTool): Tool {
  const schema = t.inputSchema !== undefined && t.inputSchema !== null && typeof t.inputSchema === 'object' ? (t.inputSchema as Record<string, unknown>) : {};
  // tools/list needs an object schema; a tool without one takes no arguments.
  return { name: t.name, description: t.description, inputSchema: { ...schema, type: 'object' } as Tool['inputSchema'] };
}

/** Opens a fresh server for `source` and returns the client's end of the link (one per connect, so a restart is a new pair). */
export function bridgeTransport(source: ToolSource, info: { readonly name: string; readonly version: string }): () => Transport {
  return () => {
    const [client, serverEnd] = InMemoryTransport.createLinkedPair();
    const server = new Server({ ...info }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: source.list().map(toTool) }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const known = source.list().some((t) => t.name === req.params.name);
      if (!known) return { isError: true, content: [{ type: 'text', text: `No tool "${req.params.name}" in VS Code any more.` }] };
      return source.call(req.params.name, req.params.arguments ?? {}, extra.signal);
    });
    const off = source.onChange(() => {
      server.sendToolListChanged().catch(() => undefined);
    });
    server.onclose = off;
    // Messages sent before the server's end starts are queued by the transport, so the client may connect at once.
    void server.connect(serverEnd);
    return client;
  };
}
