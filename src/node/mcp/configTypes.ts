// What an MCP server configuration is once read: where it came from, how to reach the server, and the problems found reading it.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Where a server was declared; workspace files run code the user did not write, so they need approval. */
type McpSourceKind = 'claude' | 'vscode' | 'user' | 'cli' | 'vscodeTools';

export interface McpSource {
  readonly kind: McpSourceKind;
  /** The file (or "setting capsule.mcp.servers") named in messages. */
  readonly label: string;
}

export type McpTransportSpec =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      /** Streamable HTTP, falling back to the older HTTP+SSE transport when the server does not speak it. */
      readonly type: 'http' | 'sse';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | {
      /** A server inside this process (the tools VS Code knows): `open` gives the client's end of a fresh in-memory link. */
      readonly type: 'memory';
      readonly open: () => Transport;
    };

export interface McpServerConfig {
  /** The name the user gave it; tool names are built from it. */
  readonly name: string;
  readonly source: McpSource;
  readonly transport: McpTransportSpec;
  /** Workspace-defined: runs only after the user approved it for this workspace (and never in Restricted Mode). */
  readonly needsApproval: boolean;
}

/** What a server runs or reaches, for approval questions and messages. */
export function describeServer(s: McpServerConfig): string {
  const t = s.transport;
  return t.type === 'stdio' ? [t.command, ...t.args].join(' ') : t.type === 'memory' ? s.source.label : t.url;
}

/** A `${input:id}` a VS Code-shaped file asks for (a secret, a token); resolved by the host, never written to disk by Capsule. */
export interface McpInputSpec {
  readonly id: string;
  readonly description: string;
  readonly password: boolean;
}

/** One line for the user: the file, the server when there is one, what is wrong. */
export interface McpConfigProblem {
  readonly source: string;
  readonly server?: string;
  readonly message: string;
}

export function problemLine(p: McpConfigProblem): string {
  return `${p.source}${p.server === undefined ? '' : `: server "${p.server}"`}: ${p.message}`;
}

export interface McpConfigSet {
  readonly servers: readonly McpServerConfig[];
  readonly problems: readonly McpConfigProblem[];
}
