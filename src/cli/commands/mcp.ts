// `capsule mcp list` (each server's status, tools and schema tokens) and `capsule mcp call <server> <tool> '<json>'` (one call, its result printed).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { McpHub, ServerState } from '../../node/mcp/hub.js';
import { convertResult } from '../../node/mcp/results.js';
import { counterForModel } from '../../node/tokenCounter.js';
import { CliError, type ParsedCli } from '../args.js';
import { splitMcpSets, startCliMcp } from '../mcpSetup.js';
import { MCP_USAGE } from '../usage.js';

export { MCP_USAGE };

function workspaceOf(cli: ParsedCli): string {
  const dir = resolve(typeof cli.flags.workspace === 'string' ? cli.flags.workspace : process.cwd());
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--workspace ${dir}: not a folder`);
  return dir;
}

function stateLine(s: ServerState): string {
  const head = `${s.name}  ${s.status}  ${s.transport}  ${s.tools} tool${s.tools === 1 ? '' : 's'}  ${s.schemaTokens} schema tokens  (${s.source})`;
  const why = s.status === 'ready' ? undefined : (s.error ?? (s.stderrTail === undefined ? undefined : `stderr: ${s.stderrTail}`));
  return why === undefined ? head : `${head}\n    ${why}`;
}

export async function mcpCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [sub = '', ...rest] = cli.positionals;
  if (sub !== 'list' && sub !== 'call') throw new CliError(`unknown mcp command '${sub}': ${MCP_USAGE}`);
  const workspace = workspaceOf(cli);
  const json = cli.flags.json === true;
  // Progress lines go to stderr with --json, so stdout stays one JSON document.
  const note = json ? (s: string) => process.stderr.write(`${s}\n`) : out;
  const sets = splitMcpSets(cli.flags);
  const only = sub === 'call' ? rest[0] : undefined;
  const mcp = await startCliMcp(cli.flags, sets.raw, { workspace, out: note, interactive: false, ...(only === undefined ? {} : { only }) });
  const hub = mcp.hub;
  try {
    if (sub === 'list') return list(hub, cli, out, json);
    return await call(hub, rest, out);
  } finally {
    await hub?.stop();
  }
}

function list(hub: McpHub | undefined, cli: ParsedCli, out: (s: string) => void, json: boolean): number {
  const counter = counterForModel(typeof cli.flags.model === 'string' ? cli.flags.model : 'gpt-4o');
  const states = hub === undefined ? [] : hub.states((t) => counter.count(t));
  const total = states.reduce((n, s) => n + s.schemaTokens, 0);
  if (json) {
    out(JSON.stringify({ servers: states, schemaTokens: total }, null, 2));
  } else if (states.length === 0) {
    out('No MCP servers configured (.mcp.json, .vscode/mcp.json, --mcp-config).');
  } else {
    for (const s of states) out(stateLine(s));
    out(`Total: ${states.reduce((n, s) => n + s.tools, 0)} tools, ${total} schema tokens`);
  }
  return states.some((s) => s.status !== 'ready') ? 1 : 0;
}

async function call(hub: McpHub | undefined, args: readonly string[], out: (s: string) => void): Promise<number> {
  const [server, tool, argsJson = '{}'] = args;
  if (server === undefined || tool === undefined) throw new CliError(`missing server or tool: ${MCP_USAGE}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(argsJson);
  } catch {
    throw new CliError(`the arguments must be a JSON object (got '${argsJson.slice(0, 80)}')`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('the arguments must be a JSON object');
  const conn = hub?.get(server);
  if (conn === undefined) throw new CliError(`no MCP server '${server}' (configured: ${hub?.connections.map((c) => c.name).join(', ') || 'none'})`);
  if (conn.status !== 'ready') throw new CliError(`MCP server '${server}' is ${conn.status}${conn.error === undefined ? '' : `: ${conn.error}`}`, 1);
  const ctrl = new AbortController();
  const stop = (): void => ctrl.abort();
  process.once('SIGINT', stop);
  try {
    const r = convertResult(await conn.call(tool, parsed as Record<string, unknown>, ctrl.signal));
    out(r.text);
    return r.isError ? 1 : 0;
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), 1);
  } finally {
    process.off('SIGINT', stop);
  }
}
