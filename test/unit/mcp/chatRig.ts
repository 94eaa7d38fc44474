// A `capsule chat` rig with MCP: a workspace, the fake OpenAI server with a real window, an --mcp-config naming the servers, and the session's entries.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { EVERYTHING_BIN, FILESYSTEM_BIN, HOSTILE } from './mcpRig.js';

export interface McpChatRig {
  readonly dir: string;
  readonly ws: string;
  readonly session: string;
  readonly config: string;
  readonly server: FakeOpenAIServer;
  readonly window: number;
}

/** Both npm servers (filesystem on the workspace, everything), plus the hostile fixture when `hostileMode` is given. */
export async function mcpChatRig(t: { after(fn: () => Promise<void>): void }, window: number, hostileMode?: string): Promise<McpChatRig> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcpchat-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(dir, 'ws');
  await mkdir(ws);
  process.env.CAPSULE_LIMITS_FILE = join(dir, 'limits.json');
  process.env.CAPSULE_MCP_APPROVALS_FILE = join(dir, 'approvals.json');
  const servers: Record<string, unknown> = {
    fs: { command: FILESYSTEM_BIN, args: ['${workspaceFolder}'] },
    everything: { command: EVERYTHING_BIN },
  };
  if (hostileMode !== undefined) servers.h = { command: process.execPath, args: [HOSTILE, hostileMode] };
  const config = join(dir, 'mcp.json');
  await writeFile(config, JSON.stringify({ mcpServers: servers }));
  const server = await startFakeOpenAI({ window });
  t.after(() => server.close());
  return { dir, ws, session: join(dir, 'chat.jsonl'), config, server, window };
}

export async function mcpChat(rig: McpChatRig, prompt: string, ...flags: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const argv = [
    'chat',
    '--base-url',
    rig.server.url,
    '--model',
    'fake-model',
    '--session',
    rig.session,
    '--workspace',
    rig.ws,
    '--yes',
    '--window',
    String(rig.window),
    '--mcp-config',
    rig.config,
    ...flags,
    prompt,
  ];
  const code = await main(argv, (s) => lines.push(s));
  return { code, lines };
}

export interface RequestView {
  readonly status: number;
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly tools: readonly string[];
  readonly toolsJson: string;
  readonly system: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
}

interface Body {
  readonly tools?: readonly { readonly function: { readonly name: string } }[];
  readonly messages: readonly { readonly role: string; readonly content?: unknown }[];
  readonly max_tokens?: number;
  readonly max_completion_tokens?: number;
}

export function requests(server: FakeOpenAIServer): RequestView[] {
  return server.chatRequests.map((r) => {
    const b = r.body as Body;
    const text = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));
    return {
      status: r.status ?? 0,
      promptTokens: r.promptTokens ?? 0,
      maxTokens: b.max_tokens ?? b.max_completion_tokens ?? 0,
      tools: (b.tools ?? []).map((x) => x.function.name),
      toolsJson: JSON.stringify(b.tools ?? []),
      system: text(b.messages[0]?.content),
      messages: b.messages.map((m) => ({ role: m.role, content: text(m.content) })),
    };
  });
}

export interface StoredEntry {
  readonly type: string;
  readonly toolName?: string;
  readonly content?: string;
  readonly isError?: boolean;
  readonly mode?: string;
  readonly reason?: string;
  readonly effects?: { readonly created?: readonly string[]; readonly modified?: readonly string[]; readonly denied?: boolean; readonly failed?: boolean };
}

export async function entries(rig: McpChatRig): Promise<StoredEntry[]> {
  return (await readFile(rig.session, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as StoredEntry);
}
