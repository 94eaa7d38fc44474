// The user's one-time approval of a workspace-defined MCP server, remembered per workspace (the CLI's file; the extension keeps the same records in workspace state).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as z from '../../engine/zod.js';
import type { McpServerConfig } from './configTypes.js';

/** Where approvals are remembered; the extension implements it over workspace state. */
export interface ApprovalMemory {
  approved(workspace: string, server: McpServerConfig): Promise<boolean>;
  remember(workspace: string, server: McpServerConfig): Promise<void>;
}

/**
 * What an approval covers: the program and its arguments (or the URL), not env values or headers, which hold secrets.
 * A changed command is a different server and needs a new approval.
 */
export function serverFingerprint(s: McpServerConfig): string {
  const t = s.transport;
  const what =
    t.type === 'stdio'
      ? { type: t.type, command: t.command, args: t.args, cwd: t.cwd ?? null }
      : t.type === 'memory'
        ? { type: t.type }
        : { type: t.type, url: t.url };
  return createHash('sha256')
    .update(JSON.stringify({ name: s.name, ...what }))
    .digest('hex')
    .slice(0, 32);
}

/** $CAPSULE_MCP_APPROVALS_FILE, else $XDG_CONFIG_HOME/capsule/mcp-approvals.json, else ~/.config/capsule/mcp-approvals.json. */
export function cliApprovalsPath(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.CAPSULE_MCP_APPROVALS_FILE?.trim();
  if (explicit) return explicit;
  const config = env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
  return join(config, 'capsule', 'mcp-approvals.json');
}

const FileSchema = z.object({ version: z.literal(1), workspaces: z.record(z.string(), z.array(z.string())) });

/** A JSON file of `workspace → approved fingerprints`; a missing or garbled file approves nothing. */
export class ApprovalFile implements ApprovalMemory {
  constructor(readonly path: string) {}

  private async read(): Promise<Record<string, string[]>> {
    try {
      const p = FileSchema.safeParse(JSON.parse(await readFile(this.path, 'utf8')) as unknown);
      return p.success ? p.data.workspaces : {};
    } catch {
      return {};
    }
  }

  async approved(workspace: string, server: McpServerConfig): Promise<boolean> {
    return ((await this.read())[resolve(workspace)] ?? []).includes(serverFingerprint(server));
  }

  async remember(workspace: string, server: McpServerConfig): Promise<void> {
    const all = await this.read();
    const key = resolve(workspace);
    const list = all[key] ?? [];
    const fp = serverFingerprint(server);
    if (list.includes(fp)) return;
    all[key] = [...list, fp];
    await mkdir(dirname(this.path), { recursive: true });
    // Written aside and renamed: two CLIs approving at once never leave half a file.
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ version: 1, workspaces: all }, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, this.path);
  }
}
