// Gathers MCP servers from every place users already configure them, in one order: CLI files, the user setting, .mcp.json, .vscode/mcp.json.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { McpConfigProblem, McpConfigSet, McpServerConfig, McpSource } from './configTypes.js';
import { parseMcpDocument, type VariableContext } from './configParse.js';

const CLAUDE_CONFIG_FILE = '.mcp.json';
const VSCODE_CONFIG_FILE = join('.vscode', 'mcp.json');
const USER_SETTING_LABEL = 'setting capsule.mcp.servers';

/** A document bigger than this is not a configuration. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export interface McpConfigInputs {
  /** The workspace root whose .mcp.json and .vscode/mcp.json are read; none: no workspace servers. */
  readonly workspace?: string;
  /** The value of `capsule.mcp.servers` (`{ "name": {…} }`), if set. */
  readonly userServers?: unknown;
  /** `--mcp-config` files, in the order given. */
  readonly files?: readonly string[];
  readonly vars: VariableContext;
}

async function readDoc(path: string): Promise<{ text: string } | { missing: true } | { error: string }> {
  try {
    const buf = await readFile(path);
    if (buf.length > MAX_CONFIG_BYTES) return { error: `larger than ${MAX_CONFIG_BYTES} bytes` };
    return { text: buf.toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Every configured server, each name once (the first place wins; a later one is named as ignored), and one line per
 * problem. A missing workspace file is normal; a missing --mcp-config file is a problem.
 */
export async function loadMcpConfig(inp: McpConfigInputs): Promise<McpConfigSet> {
  const docs: { source: McpSource; doc: unknown; required: boolean; path?: string }[] = [];
  for (const f of inp.files ?? []) docs.push({ source: { kind: 'cli', label: f }, doc: undefined, required: true, path: f });
  if (inp.userServers !== undefined && inp.userServers !== null) {
    docs.push({ source: { kind: 'user', label: USER_SETTING_LABEL }, doc: { mcpServers: inp.userServers }, required: false });
  }
  if (inp.workspace !== undefined) {
    docs.push({ source: { kind: 'claude', label: CLAUDE_CONFIG_FILE }, doc: undefined, required: false, path: join(inp.workspace, CLAUDE_CONFIG_FILE) });
    docs.push({ source: { kind: 'vscode', label: VSCODE_CONFIG_FILE }, doc: undefined, required: false, path: join(inp.workspace, VSCODE_CONFIG_FILE) });
  }
  const servers: McpServerConfig[] = [];
  const problems: McpConfigProblem[] = [];
  const seen = new Map<string, string>();
  const off = new Set<string>();
  for (const d of docs) {
    let doc = d.doc;
    if (d.path !== undefined) {
      const r = await readDoc(d.path);
      if ('missing' in r) {
        if (d.required) problems.push({ source: d.source.label, message: 'file not found' });
        continue;
      }
      if ('error' in r) {
        problems.push({ source: d.source.label, message: `cannot be read: ${r.error}` });
        continue;
      }
      doc = r.text;
    }
    const parsed = await parseMcpDocument(doc, d.source, inp.vars);
    problems.push(...parsed.problems);
    // Turned off in a place that wins: the same name further down is quietly off too.
    for (const name of parsed.disabled) if (!seen.has(name)) off.add(name);
    for (const s of parsed.servers) {
      if (off.has(s.name)) continue;
      const first = seen.get(s.name);
      if (first !== undefined) {
        problems.push({ source: d.source.label, server: s.name, message: `ignored: a server of that name is already defined in ${first}` });
        continue;
      }
      seen.set(s.name, d.source.label);
      servers.push(s);
    }
  }
  return { servers, problems };
}
