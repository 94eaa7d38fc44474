// Parses one MCP configuration document (.mcp.json, .vscode/mcp.json, the capsule.mcp.servers setting, a --mcp-config file) into servers and one-line problems.
import * as z from '../../engine/zod.js';
import type { McpConfigProblem, McpInputSpec, McpServerConfig, McpSource, McpTransportSpec } from './configTypes.js';

/** How `${…}` variables are resolved; an undefined answer leaves the server out with a problem naming the variable. */
export interface VariableContext {
  readonly workspaceFolder?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `${input:id}` of a VS Code-shaped file (a secret); undefined when the user gave none. */
  readonly input?: (spec: McpInputSpec) => Promise<string | undefined>;
}

const StringMap = z.record(z.string(), z.string());

const ServerSchema = z.object({
  type: z.optional(z.string()),
  command: z.optional(z.string()),
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))),
  cwd: z.optional(z.string()),
  url: z.optional(z.string()),
  headers: z.optional(StringMap),
  disabled: z.optional(z.boolean()),
});
type RawServer = z.infer<typeof ServerSchema>;

const InputSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z.optional(z.string()),
  description: z.optional(z.string()),
  password: z.optional(z.boolean()),
});

/** Server names become part of tool names; anything else is still accepted and sanitized there, but must be non-empty. */
const NAME_MAX = 64;

function issueText(e: z.core.$ZodError): string {
  const i = e.issues[0];
  if (i === undefined) return 'invalid';
  const where = i.path.length === 0 ? '' : `"${i.path.map(String).join('.')}" `;
  return `${where}${i.message.replace(/^Invalid input: /, '')}`.trim();
}

/** The document's server table: `mcpServers` (Claude Code, Cursor, the setting) or `servers` (VS Code). */
function serverTable(doc: unknown): { table: Record<string, unknown>; inputs: unknown } | string {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'expected a JSON object with "mcpServers" or "servers"';
  const d = doc as Record<string, unknown>;
  const table = d.mcpServers ?? d.servers;
  if (table === undefined) return 'no "mcpServers" or "servers" object';
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return '"mcpServers"/"servers" must be an object of named servers';
  return { table: table as Record<string, unknown>, inputs: d.inputs };
}

/** Parses a document's text; JSON with comments and trailing commas (VS Code writes them) is accepted. */
function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonComments(text));
}

function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Replaces `${workspaceFolder}`, `${env:X}`, `${input:id}`, `${X}` and `${X:-default}`; throws with the variable's name when one has no value. */
async function expand(value: string, ctx: VariableContext, inputs: ReadonlyMap<string, McpInputSpec>, asked: Map<string, string>): Promise<string> {
  const pattern = /\$\{([^}]+)\}/g;
  let out = '';
  let last = 0;
  for (const m of value.matchAll(pattern)) {
    const name = m[1] ?? '';
    out += value.slice(last, m.index);
    last = (m.index ?? 0) + m[0].length;
    out += await variable(name, ctx, inputs, asked);
  }
  return out + value.slice(last);
}

async function variable(name: string, ctx: VariableContext, inputs: ReadonlyMap<string, McpInputSpec>, asked: Map<string, string>): Promise<string> {
  if (name === 'workspaceFolder' || name === 'workspaceRoot') {
    if (ctx.workspaceFolder === undefined) throw new Error(`uses \${${name}} but no workspace folder is open`);
    return ctx.workspaceFolder;
  }
  if (name === 'userHome') {
    const home = ctx.env.HOME ?? ctx.env.USERPROFILE;
    if (home === undefined) throw new Error('uses ${userHome} but HOME is not set');
    return home;
  }
  if (name.startsWith('input:')) {
    const id = name.slice('input:'.length);
    const known = asked.get(id);
    if (known !== undefined) return known;
    const spec = inputs.get(id) ?? { id, description: id, password: true };
    const v = ctx.input === undefined ? undefined : await ctx.input(spec);
    if (v === undefined) throw new Error(`needs the input "${id}" (${spec.description}), which was not given`);
    asked.set(id, v);
    return v;
  }
  const envName = name.startsWith('env:') ? name.slice(4) : name;
  const dflt = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(envName);
  const key = dflt?.[1] ?? envName;
  const v = ctx.env[key];
  if (v !== undefined) return v;
  if (dflt?.[2] !== undefined) return dflt[2];
  throw new Error(`needs the environment variable ${key}, which is not set`);
}

async function transportOf(
  raw: RawServer,
  ctx: VariableContext,
  inputs: ReadonlyMap<string, McpInputSpec>,
  asked: Map<string, string>,
): Promise<McpTransportSpec> {
  const x = (s: string): Promise<string> => expand(s, ctx, inputs, asked);
  const mapOf = async (m: Readonly<Record<string, unknown>> | undefined): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m ?? {})) if (v !== null && v !== undefined) out[k] = await x(String(v));
    return out;
  };
  const type = raw.type ?? (raw.command !== undefined ? 'stdio' : raw.url !== undefined ? 'http' : undefined);
  if (type === undefined) throw new Error('has neither "command" (a local server) nor "url" (a remote one)');
  if (type === 'stdio') {
    if (raw.command === undefined || raw.command.trim() === '') throw new Error('is a stdio server without "command"');
    const cwd = raw.cwd === undefined ? undefined : await x(raw.cwd);
    return {
      type: 'stdio',
      command: await x(raw.command),
      args: await Promise.all((raw.args ?? []).map(x)),
      env: await mapOf(raw.env),
      ...(cwd === undefined ? {} : { cwd }),
    };
  }
  if (type === 'http' || type === 'sse' || type === 'streamableHttp' || type === 'streamable-http') {
    if (raw.url === undefined || raw.url.trim() === '') throw new Error(`is a ${type} server without "url"`);
    const url = await x(raw.url);
    if (!/^https?:\/\//i.test(url)) throw new Error(`"url" must start with http:// or https:// (got "${url.slice(0, 80)}")`);
    return { type: type === 'sse' ? 'sse' : 'http', url, headers: await mapOf(raw.headers) };
  }
  throw new Error(`has an unknown "type" "${type}" (use "stdio", "http" or "sse")`);
}

export interface ParsedDocument {
  readonly servers: readonly McpServerConfig[];
  readonly problems: readonly McpConfigProblem[];
  /** Servers the document turns off (`"disabled": true`). */
  readonly disabled: readonly string[];
}

/** Parses one document (already JSON-decoded, or text); every problem is one line and costs only its own server. */
export async function parseMcpDocument(doc: unknown, source: McpSource, ctx: VariableContext): Promise<ParsedDocument> {
  const problems: McpConfigProblem[] = [];
  let value = doc;
  if (typeof doc === 'string') {
    try {
      value = parseJsonc(doc);
    } catch (err) {
      return {
        servers: [],
        disabled: [],
        problems: [{ source: source.label, message: `not valid JSON (${err instanceof Error ? err.message : String(err)})` }],
      };
    }
  }
  const t = serverTable(value);
  if (typeof t === 'string') return { servers: [], disabled: [], problems: [{ source: source.label, message: t }] };
  const inputs = new Map<string, McpInputSpec>();
  if (Array.isArray(t.inputs)) {
    for (const i of t.inputs) {
      const p = InputSchema.safeParse(i);
      if (p.success) inputs.set(p.data.id, { id: p.data.id, description: p.data.description ?? p.data.id, password: p.data.password ?? false });
      else problems.push({ source: source.label, message: `an entry of "inputs" is invalid: ${issueText(p.error)}` });
    }
  }
  const asked = new Map<string, string>();
  const servers: McpServerConfig[] = [];
  const disabled: string[] = [];
  // Sorted so the servers (and so the tools) come in the same order whatever order the file lists them in.
  for (const name of Object.keys(t.table).sort()) {
    if (name.trim() === '' || name.length > NAME_MAX) {
      problems.push({ source: source.label, server: name.slice(0, NAME_MAX), message: `the name must be 1 to ${NAME_MAX} characters` });
      continue;
    }
    const parsed = ServerSchema.safeParse(t.table[name]);
    if (!parsed.success) {
      problems.push({ source: source.label, server: name, message: issueText(parsed.error) });
      continue;
    }
    if (parsed.data.disabled === true) {
      disabled.push(name);
      continue;
    }
    try {
      const transport = await transportOf(parsed.data, ctx, inputs, asked);
      servers.push({ name, source, transport, needsApproval: source.kind === 'claude' || source.kind === 'vscode' });
    } catch (err) {
      problems.push({ source: source.label, server: name, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return { servers, problems, disabled };
}
