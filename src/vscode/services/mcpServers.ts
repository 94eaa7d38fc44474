// The window's MCP servers: read from the three places, workspace ones approved once (remembered in workspace state) and never in Restricted Mode, started once for every chat, stopped with the window.
import * as vscode from 'vscode';
import type { Logger } from '../../engine/ports.js';
import { serverFingerprint, type ApprovalMemory } from '../../node/mcp/serverApprovals.js';
import { loadMcpConfig } from '../../node/mcp/configLoad.js';
import { describeServer, problemLine, type McpInputSpec, type McpServerConfig } from '../../node/mcp/configTypes.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { McpHub, ServerState } from '../../node/mcp/hub.js';
import type { McpSessionConfig } from '../../node/mcp/sessionMcp.js';
import type { McpServerAction, McpServerView } from '../../protocol/messages.js';
import { VSCODE_TOOLS_SERVER, VSCODE_TOOLS_SOURCE } from '../../node/mcp/lmToolBridge.js';
import { readMcpSettings } from './settings.js';
import { toServerViews } from './mcpServerViews.js';
import { LmToolSource, lmToolsApi } from './lmToolSource.js';

const APPROVALS_KEY = 'capsule.mcp.approved';
/** Servers the user disabled in this workspace (the MCP Servers command). */
const DISABLED_KEY = 'capsule.mcp.disabled';

type Runtime = typeof import('../../node/mcp/runtime.js');

/**
 * The MCP client, loaded on first use: dist/mcp.js next to the extension bundle, or the source module when running
 * from sources (tests). A computed path, so the bundler leaves the SDK out of dist/extension.js.
 */
function loadRuntime(): Runtime {
  const bundled = join(__dirname, 'mcp.js');
  const source = join(__dirname, '..', '..', 'node', 'mcp', 'runtime.ts');
  const path = existsSync(bundled) ? bundled : source;
  return require(path) as Runtime;
}

/** Approvals in workspace state: this workspace's approved fingerprints. */
class WorkspaceApprovals implements ApprovalMemory {
  constructor(private readonly state: vscode.Memento) {}
  async approved(_workspace: string, s: McpServerConfig): Promise<boolean> {
    return (this.state.get<string[]>(APPROVALS_KEY) ?? []).includes(serverFingerprint(s));
  }
  async remember(_workspace: string, s: McpServerConfig): Promise<void> {
    const list = this.state.get<string[]>(APPROVALS_KEY) ?? [];
    const fp = serverFingerprint(s);
    if (!list.includes(fp)) await this.state.update(APPROVALS_KEY, [...list, fp]);
  }
}

const describe = describeServer;

/** VS Code's version for the server's `serverInfo` (which must be a string; hosts that do not say give "unknown"). */
function versionOf(api: { readonly version?: unknown }): string {
  return typeof api.version === 'string' ? api.version : 'unknown';
}

export class McpServers implements vscode.Disposable {
  #hub: McpHub | undefined;
  #starting: Promise<McpSessionConfig | undefined> | undefined;
  /** The tools VS Code knows, served in-process as the server "vscode" (when offered). */
  #lmTools: LmToolSource | undefined;
  readonly #told = new Set<string>();
  readonly #approvals: WorkspaceApprovals;
  readonly #changed = new vscode.EventEmitter<void>();
  /** A server's status, tools or the disabled list changed (the setup panel's list follows). */
  readonly onDidChange = this.#changed.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
    /** A line in the chat (the view's notices). */
    private readonly notify: (level: 'info' | 'warn', message: string) => void,
  ) {
    this.#approvals = new WorkspaceApprovals(context.workspaceState);
  }

  /** The started servers for a chat: started on the first call, shared by every later chat (never started twice). */
  forChat(): Promise<McpSessionConfig | undefined> {
    // VS Code has no stable event for its tool list: each chat start looks again (a change is a list_changed).
    this.#lmTools?.refresh();
    this.#starting ??= this.#start().catch((err: unknown) => {
      this.logger.log('error', `MCP servers were not started: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    return this.#starting;
  }

  /** Each server's status, tools and schema tokens (the setup panel and /budget). */
  states(count: (text: string) => number): ServerState[] {
    return this.#hub?.states(count) ?? [];
  }

  /** The setup panel's list: each server as `states` says, and those disabled in this workspace. */
  views(count: (text: string) => number): McpServerView[] {
    return toServerViews(this.states(count), this.disabled());
  }

  /** The setup panel's Restart, Disable and Enable. */
  async act(name: string, action: McpServerAction): Promise<void> {
    if (action === 'restart') return this.restart(name);
    if (action === 'disable') return this.disable(name);
    return this.enable(name);
  }

  async restart(name: string): Promise<void> {
    this.#told.clear();
    await this.#hub?.get(name)?.restart();
  }

  /** Stops the server now and keeps it off in this workspace until enabled again; the model is told its tools are gone. */
  async disable(name: string): Promise<void> {
    const off = this.context.workspaceState.get<string[]>(DISABLED_KEY) ?? [];
    if (!off.includes(name)) await this.context.workspaceState.update(DISABLED_KEY, [...off, name]);
    this.#changed.fire();
    await this.#hub?.get(name)?.stop();
  }

  async enable(name: string): Promise<void> {
    const off = this.context.workspaceState.get<string[]>(DISABLED_KEY) ?? [];
    await this.context.workspaceState.update(
      DISABLED_KEY,
      off.filter((n) => n !== name),
    );
    this.#changed.fire();
    const running = this.#hub?.get(name);
    // A server that was off when the window started is not in this window's set: it starts with the next window.
    if (running === undefined) this.notify('info', `MCP server "${name}" is enabled; it starts when the window is reloaded.`);
    else await running.restart();
  }

  disabled(): readonly string[] {
    return this.context.workspaceState.get<string[]>(DISABLED_KEY) ?? [];
  }

  async #inputValue(spec: McpInputSpec): Promise<string | undefined> {
    const key = `capsule.mcp.input:${spec.id}`;
    const stored = await this.context.secrets.get(key);
    if (stored !== undefined) return stored;
    const value = await vscode.window.showInputBox({
      title: `MCP: ${spec.description}`,
      prompt: `Needed by an MCP server (input "${spec.id}"); kept in VS Code's secret storage.`,
      password: spec.password,
      ignoreFocusOut: true,
    });
    if (value !== undefined) await this.context.secrets.store(key, value);
    return value;
  }

  async #start(): Promise<McpSessionConfig | undefined> {
    const { settings, userServers, problems } = readMcpSettings();
    for (const p of problems) this.logger.log('warn', p);
    if (!settings.enabled) return undefined;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // Restricted Mode: a workspace's files never start a program.
    const workspace = vscode.workspace.isTrusted ? folder : undefined;
    const config = await loadMcpConfig({
      ...(workspace === undefined ? {} : { workspace }),
      userServers,
      vars: { ...(folder === undefined ? {} : { workspaceFolder: folder }), env: process.env, input: (s) => this.#inputValue(s) },
    });
    for (const p of config.problems) this.#tellOnce(`MCP configuration: ${problemLine(p)}; the chat goes on without it.`);
    const servers: McpServerConfig[] = [];
    const off = new Set(this.disabled());
    for (const s of config.servers.filter((x) => !off.has(x.name))) {
      if (!s.needsApproval || (await this.#approvals.approved(folder ?? '', s))) {
        servers.push(s);
        continue;
      }
      const allow = 'Allow';
      const answer = await vscode.window.showWarningMessage(
        `This workspace's ${s.source.label} wants to start the MCP server "${s.name}": ${describe(s)}. It runs with your permissions.`,
        { modal: true },
        allow,
      );
      if (answer !== allow) {
        this.#tellOnce(`MCP server "${s.name}" from ${s.source.label} was not started (not approved).`);
        continue;
      }
      await this.#approvals.remember(folder ?? '', s);
      servers.push(s);
    }
    const runtime = loadRuntime();
    const vscodeTools = settings.vscodeTools ? this.#vscodeToolsServer(runtime, config.servers, off) : undefined;
    if (vscodeTools !== undefined) servers.push(vscodeTools);
    if (servers.length === 0) return undefined;
    const hub = new runtime.McpHub(servers, { initializeMs: settings.startupTimeoutSeconds * 1000, callMs: settings.callTimeoutSeconds * 1000 });
    this.#hub = hub;
    hub.onChange(() => this.#changed.fire());
    this.logger.log('info', `MCP: starting ${servers.map((s) => s.name).join(', ')}`);
    this.notify('info', `Starting MCP server${servers.length === 1 ? '' : 's'}: ${servers.map((s) => s.name).join(', ')}…`);
    await hub.start();
    for (const c of hub.connections) {
      if (c.status === 'ready') this.logger.log('info', `MCP ${c.name}: ready, ${c.tools.length} tools`);
      else this.#tellOnce(`MCP server "${c.name}" did not start: ${c.error ?? c.status}. The chat goes on without it.`);
    }
    return { hub, deferShare: settings.deferShare, autoAllowReadOnly: settings.autoAllowReadOnly };
  }

  /**
   * The tools VS Code knows as one more server, inside this process: offered when VS Code lists some that Capsule
   * would not otherwise have (its own and Copilot's internal tools, and VS Code's copy of a server Capsule knows
   * itself, are left out). Not started twice: a server from .vscode/mcp.json runs once, as Capsule's.
   */
  #vscodeToolsServer(runtime: Runtime, known: readonly McpServerConfig[], off: ReadonlySet<string>): McpServerConfig | undefined {
    const lm = lmToolsApi();
    if (lm === undefined) return undefined;
    const names = new Set(known.map((s) => s.name));
    // A server of the user's own called "vscode" keeps its name.
    const name = names.has(VSCODE_TOOLS_SERVER) ? `${VSCODE_TOOLS_SERVER}_lm` : VSCODE_TOOLS_SERVER;
    if (off.has(name)) return undefined;
    const own = (
      (this.context.extension?.packageJSON as { contributes?: { languageModelTools?: { name?: unknown }[] } } | undefined)?.contributes?.languageModelTools ??
      []
    ).map((t) => String(t.name));
    const source = new LmToolSource(lm, { capsuleServers: [...names], own });
    if (source.list().length === 0) {
      source.dispose();
      return undefined;
    }
    this.#lmTools = source;
    return {
      name,
      source: { kind: 'vscodeTools', label: VSCODE_TOOLS_SOURCE },
      transport: { type: 'memory', open: runtime.bridgeTransport(source, { name: 'vscode', version: versionOf(vscode) }) },
      needsApproval: false,
    };
  }

  #tellOnce(message: string): void {
    this.logger.log('warn', message);
    if (this.#told.has(message)) return;
    this.#told.add(message);
    this.notify('warn', message);
  }

  dispose(): void {
    this.#changed.dispose();
    this.#lmTools?.dispose();
    void this.#hub?.stop();
  }
}
