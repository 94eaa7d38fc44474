// Joins the MCP tools to a session's workspace tools behind one ToolHost, and turns tool-set changes into system updates of the agent.
import type { EvidenceArchive, ToolHost, ToolResult, ToolSchema } from '../../engine/ports.js';
import type { FileCapture } from '../snapshots/fileSnapshots.js';
import type { ApprovalFn } from '../tools/types.js';
import type { McpHub, TokenCount } from './hub.js';
import { mcpBudgetLine, McpToolHost, type McpInstruction } from './mcpToolHost.js';

/** What a front end passes to open a session with MCP: its started servers and the user's MCP settings. */
export interface McpSessionConfig {
  readonly hub: McpHub;
  /** Share of the hard limit MCP schemas may take before they are deferred (capsule.mcp.deferShare). */
  readonly deferShare?: number;
  /** Call tools that declare readOnlyHint without asking (capsule.mcp.autoAllowReadOnly). */
  readonly autoAllowReadOnly?: boolean;
}

/** The workspace tools first, then the MCP tools: one fixed list, each call routed to its owner. */
class CompositeToolHost implements ToolHost {
  private readonly list: readonly ToolSchema[];

  constructor(
    readonly base: ToolHost,
    readonly mcp: McpToolHost,
  ) {
    const own = new Set(base.schemas().map((t) => t.name));
    // A built-in name always wins; MCP names carry a prefix, so a clash means a server chose "mcp_call"-like names for itself.
    this.list = Object.freeze([...base.schemas(), ...mcp.schemas().filter((t) => !own.has(t.name))]);
  }

  schemas(): readonly ToolSchema[] {
    return this.list;
  }

  run(name: string, argsJson: string, signal: AbortSignal): Promise<ToolResult> {
    return this.mcp.handles(name) ? this.mcp.run(name, argsJson, signal) : this.base.run(name, argsJson, signal);
  }

  async endTurn(): Promise<string | undefined> {
    return this.base.endTurn?.();
  }

  async dispose(): Promise<void> {
    const b = this.base as ToolHost & { dispose?: () => Promise<void> };
    await b.dispose?.();
  }
}

export interface McpAttachContext {
  readonly count: TokenCount;
  readonly hardLimit: number;
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  readonly headBytes: number;
  readonly tailBytes: number;
  readonly archive: EvidenceArchive;
  readonly capture: FileCapture;
  /** The model in use takes image parts (MCP image results are shown to it). */
  readonly vision?: () => boolean;
}

export interface AttachedMcp {
  readonly tools: CompositeToolHost;
  /** The instruction the session starts with (the deferred index), if any. */
  readonly initial: McpInstruction | undefined;
  /** Sends later tool-set changes to `append` (the agent's system update); returns the unsubscribe. */
  follow(append: (content: string, reason: string) => Promise<unknown>, onError: (err: unknown) => void): () => void;
}

export function attachMcp(base: ToolHost, cfg: McpSessionConfig, ctx: McpAttachContext): AttachedMcp {
  const mcp = new McpToolHost({
    hub: cfg.hub,
    count: ctx.count,
    hardLimit: ctx.hardLimit,
    ...(cfg.deferShare === undefined ? {} : { deferShare: cfg.deferShare }),
    ...(cfg.autoAllowReadOnly === undefined ? {} : { autoAllowReadOnly: cfg.autoAllowReadOnly }),
    roots: ctx.roots,
    approve: ctx.approve,
    trusted: ctx.trusted,
    headBytes: ctx.headBytes,
    tailBytes: ctx.tailBytes,
    archive: ctx.archive,
    capture: ctx.capture,
    ...(ctx.vision === undefined ? {} : { vision: ctx.vision }),
  });
  return {
    tools: new CompositeToolHost(base, mcp),
    initial: mcp.initialInstruction(),
    follow(append, onError) {
      return cfg.hub.onChange(() => {
        const u = mcp.pendingUpdate();
        if (u !== undefined) append(u.content, u.reason).catch(onError);
      });
    },
  };
}

/** The budget line of a session's MCP tools (per-server schema tokens, deferred or not), or undefined when it has none. */
export function mcpBudgetOf(tools: ToolHost | undefined): string | undefined {
  // The MCP host may sit under other layers (the task tool, the instruction layer): each keeps its inner host as `inner`.
  let t: unknown = tools;
  for (let depth = 0; depth < 8 && t !== undefined && t !== null; depth++) {
    if (t instanceof CompositeToolHost) return mcpBudgetLine(t.mcp.budget());
    t = (t as { readonly inner?: unknown }).inner;
  }
  return undefined;
}
