// The CLI's MCP servers: --mcp-config files, the workspace's .mcp.json and .vscode/mcp.json (after the user's approval), --no-mcp, `--set capsule.mcp.*`; started and reported in one line each.
import { createInterface } from 'node:readline/promises';
import { ApprovalFile, cliApprovalsPath, type ApprovalMemory } from '../node/mcp/serverApprovals.js';
import { loadMcpConfig } from '../node/mcp/configLoad.js';
import { describeServer, problemLine, type McpInputSpec, type McpServerConfig } from '../node/mcp/configTypes.js';
import { McpHub } from '../node/mcp/hub.js';
import { resolveMcpSettings, type McpSettings } from '../node/mcp/mcpSettings.js';
import { CliError, type Flags } from './args.js';

export interface CliMcp {
  /** Undefined when no server is configured (or --no-mcp). */
  readonly hub: McpHub | undefined;
  readonly settings: McpSettings;
}

/** Removes `--set capsule.mcp.<key>=<value>` items from the flags (the other settings are not MCP's) and reads them. */
export function splitMcpSets(flags: Flags): { readonly rest: Flags; readonly raw: Readonly<Record<string, unknown>> } {
  const sets = flags.set;
  const list = sets === undefined ? [] : Array.isArray(sets) ? sets : [String(sets)];
  const raw: Record<string, unknown> = {};
  const keep: string[] = [];
  for (const item of list) {
    const m = /^\s*(?:capsule\.)?mcp\.([A-Za-z]+)\s*=(.*)$/s.exec(item);
    if (m === null) {
      keep.push(item);
      continue;
    }
    const text = (m[2] ?? '').trim();
    let value: unknown = text;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      // a bare word stays a string
    }
    raw[m[1] ?? ''] = value;
  }
  const rest: Flags = { ...flags };
  if (keep.length > 0) rest.set = keep;
  else delete rest.set;
  return { rest, raw };
}

/** `${input:id}` in the CLI comes from CAPSULE_MCP_INPUT_<ID> (upper case, non-alphanumerics as _): never a flag, so it stays out of shell history. */
function inputEnvName(id: string): string {
  return `CAPSULE_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

const describe = describeServer;

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export interface CliMcpOptions {
  readonly workspace: string;
  readonly out: (s: string) => void;
  /** Ask on the terminal when a workspace server is not approved yet (default: when stdin is a TTY). */
  readonly interactive?: boolean;
  readonly approvals?: ApprovalMemory;
  /** Only this server is approved and started (`capsule mcp call`). */
  readonly only?: string;
}

/** Reads the configuration, asks for (or checks) approvals, starts the servers; every problem is one `[mcp]` line and costs only its server. */
export async function startCliMcp(flags: Flags, raw: Readonly<Record<string, unknown>>, o: CliMcpOptions): Promise<CliMcp> {
  const { settings, problems: bad } = resolveMcpSettings(raw);
  for (const p of bad) throw new CliError(`--set: ${p}`);
  const files = flags['mcp-config'];
  const list = files === undefined ? [] : Array.isArray(files) ? files : [String(files)];
  if (flags['no-mcp'] === true || !settings.enabled) {
    if (list.length > 0) o.out('[mcp] --no-mcp: no MCP server is started');
    return { hub: undefined, settings };
  }
  const config = await loadMcpConfig({
    workspace: o.workspace,
    files: list,
    vars: {
      workspaceFolder: o.workspace,
      env: process.env,
      input: async (spec: McpInputSpec) => process.env[inputEnvName(spec.id)],
    },
  });
  for (const p of config.problems) o.out(`[mcp] ${problemLine(p)}; the chat goes on without it`);
  const approvals = o.approvals ?? new ApprovalFile(cliApprovalsPath());
  const approveAll = flags['approve-mcp'] === true;
  const interactive = o.interactive ?? process.stdin.isTTY === true;
  const servers: McpServerConfig[] = [];
  for (const s of config.servers.filter((x) => o.only === undefined || x.name === o.only)) {
    if (!s.needsApproval || (await approvals.approved(o.workspace, s))) {
      servers.push(s);
      continue;
    }
    const yes =
      approveAll ||
      (interactive && (await ask(`Start the MCP server "${s.name}" from ${s.source.label} (${describe(s)})? It runs with your permissions. [y/N] `)));
    if (!yes) {
      o.out(
        `[mcp] ${s.source.label}: server "${s.name}" skipped: servers defined by the workspace run only after your approval (run once with --approve-mcp, remembered for this workspace)`,
      );
      continue;
    }
    await approvals.remember(o.workspace, s);
    servers.push(s);
  }
  if (servers.length === 0) return { hub: undefined, settings };
  const hub = new McpHub(servers, { initializeMs: settings.startupTimeoutSeconds * 1000, callMs: settings.callTimeoutSeconds * 1000 });
  o.out(`[mcp] starting ${servers.length} server${servers.length === 1 ? '' : 's'}: ${servers.map((s) => s.name).join(', ')}`);
  await hub.start();
  for (const c of hub.connections) {
    if (c.status === 'ready')
      o.out(`[mcp] ${c.name}: ready, ${c.tools.length} tool${c.tools.length === 1 ? '' : 's'}${c.toolsCut > 0 ? ` (${c.toolsCut} more not read)` : ''}`);
    else o.out(`[mcp] ${c.name}: ${c.status}${c.error === undefined ? '' : ` — ${c.error}`}; the chat goes on without it`);
  }
  return { hub, settings };
}
