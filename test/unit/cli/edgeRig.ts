// Shared rig for the "compaction at the edges" CLI scenarios: a workspace, the fake server with a real window, and what it saw.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody, type FakeOpenAIServer, type FakeServerOptions } from '../../fakes/openaiServer.js';

export interface Rig {
  readonly dir: string;
  /** Where `capsule chat` persists learned windows for this rig. */
  readonly limitsFile: string;
  readonly ws: string;
  readonly session: string;
  readonly server: FakeOpenAIServer;
}

export async function edgeRig(t: { after(fn: () => Promise<void>): void }, opts: FakeServerOptions): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-edges-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(dir, 'ws');
  await mkdir(ws);
  // Windows learned from overflow errors go to this rig's own file, never to the user's ~/.config.
  process.env.CAPSULE_LIMITS_FILE = join(dir, 'limits.json');
  const server = await startFakeOpenAI(opts);
  t.after(() => server.close());
  return { dir, limitsFile: join(dir, 'limits.json'), ws, session: join(dir, 'chat.jsonl'), server };
}

/** A text file of about `tokens` tokens (each numbered line is about 14). */
export async function writeTokens(rig: Rig, name: string, tokens: number): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; lines.length * 14 < tokens; i++) lines.push(`line ${i} of ${name}: the quick brown fox jumps over the lazy dog`);
  await writeFile(join(rig.ws, name), `${lines.join('\n')}\n`);
}

export async function chat(rig: Rig, model: string, prompt: string, ...flags: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const argv = ['chat', '--base-url', rig.server.url, '--model', model, '--session', rig.session, '--workspace', rig.ws, '--yes', ...flags, prompt];
  const code = await main(argv, (s) => lines.push(s));
  return { code, lines };
}

export interface Seen {
  readonly requests: number;
  readonly summaries: number;
  readonly largestPrompt: number;
  readonly window: number;
  readonly rejected: number;
}

/** What the server saw: chat requests, summary requests among them, the largest prompt (tokens + max_tokens) vs its window. */
export function seen(server: FakeOpenAIServer): Seen {
  const chats = server.chatRequests;
  let largest = 0;
  let summaries = 0;
  for (const r of chats) {
    const body = r.body as ChatBody | undefined;
    if (body !== undefined && isSummaryRequest(body)) summaries += 1;
    const completion = body?.max_tokens ?? body?.max_completion_tokens ?? 0;
    largest = Math.max(largest, (r.promptTokens ?? 0) + (completion ?? 0));
  }
  return { requests: chats.length, summaries, largestPrompt: largest, window: server.contextWindow, rejected: chats.filter((r) => r.status !== 200).length };
}

export function describe(s: Seen): string {
  return `${s.requests} requests (${s.summaries} summaries), largest prompt + max_tokens ${s.largestPrompt} of a ${s.window} window, ${s.rejected} rejected`;
}

/** The last tool message's text, or '' when the request has none. */
export function lastToolText(body: ChatBody): string {
  const last = body.messages[body.messages.length - 1];
  return last?.role === 'tool' && typeof last.content === 'string' ? last.content : '';
}
