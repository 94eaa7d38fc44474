// Test helper: an AgentSession on a temp session file and workspace, talking to the scripted fake server through the real openai client.
import { mkdir, writeFile } from 'node:fs/promises';
import { tempDir as sharedTempDir } from '../../support/tempDir.js';
import { join } from 'node:path';
import type { AgentEvent } from '../../../src/engine/agent/agentEvents.js';
import type { BarrierEvent } from '../../../src/engine/compaction/barrierEvents.js';
import type { Clock } from '../../../src/engine/ports.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { verifySession, type VerifyReport } from '../../../src/engine/transcript/verify.js';
import { AgentSession, type AgentSessionConfig } from '../../../src/node/agentSession.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import type { ChatBody, ChatRequestView, FakeOpenAIServer, RecordedRequest, ScriptedReply, ScriptedToolCall } from '../../fakes/openaiServer.js';
import { isSummaryRequest, startFakeOpenAI } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY, session as historyOf } from '../compaction/harness.js';

export { GOOD_SUMMARY };

/** Small limits so a few turns cross the window; valid for a 20k window with 2k output. */
export const SMALL_SETTINGS = {
  keepRecentTokens: 2000,
  minReclaimableTokens: 1000,
  minSavingsRatio: 0.25,
  safetyReserveTokens: 1000,
  minTokensForAutoCompact: 0,
  timeoutMs: 2000,
} as const;

/** A temp dir removed after the test (the one helper in test/support, with this area's prefix). */
export function tempDir(t: Parameters<typeof sharedTempDir>[0], prefix = 'capsule-agent-'): Promise<string> {
  return sharedTempDir(t, prefix);
}

/** A workspace with `n` files `src/f<i>.ts` of `lines` lines each. */
export async function makeWorkspace(dir: string, n: number, lines: number): Promise<string> {
  const ws = join(dir, 'ws');
  await mkdir(join(ws, 'src'), { recursive: true });
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: lines }, (_, l) => `export const v${i}_${l} = ${l}; // module ${i} line ${l} of the sample workspace`).join('\n');
    await writeFile(join(ws, 'src', `f${i}.ts`), `${body}\n`);
  }
  return ws;
}

/** Real time, but backoff waits return at once so retry tests stay fast. */
export const instantSleepClock: Clock = {
  now: () => Date.now(),
  async sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    await Promise.resolve();
  },
};

export function lastRole(body: ChatBody): string {
  return body.messages[body.messages.length - 1]?.role ?? '';
}

/**
 * The scripted "model": summary requests get GOOD_SUMMARY; a request ending with the user's message gets the
 * tool calls `calls(turnText)`; a request ending with tool results gets a short final answer.
 */
export function agentResponder(calls: (userText: string, req: ChatRequestView) => readonly ScriptedToolCall[], answer = 'Done: the files look fine.') {
  return (req: ChatRequestView): ScriptedReply => {
    if (isSummaryRequest(req.body)) return { text: GOOD_SUMMARY };
    if (lastRole(req.body) === 'tool') return { text: answer };
    const users = req.body.messages.filter((m) => m.role === 'user');
    const text = String(users[users.length - 1]?.content ?? '');
    const list = calls(text, req);
    return list.length > 0 ? { toolCalls: list } : { text: answer };
  };
}

export interface Opened {
  readonly session: AgentSession;
  readonly events: AgentEvent[];
  readonly path: string;
}

export async function openSession(
  server: FakeOpenAIServer,
  dir: string,
  over: Omit<Partial<AgentSessionConfig>, 'model'> & { model?: string; window?: number; maxOutput?: number } = {},
): Promise<Opened> {
  const events: AgentEvent[] = [];
  const path = over.sessionPath ?? join(dir, 'chat.jsonl');
  const { model, window, maxOutput, ...rest } = over;
  const session = await AgentSession.open({
    sessionPath: path,
    create: { cwd: dir },
    model: {
      chat: { baseURL: server.url, apiKey: '', model: model ?? 'fake-model' },
      override: { contextWindow: window ?? 20_000, maxOutputTokens: maxOutput ?? 2_000 },
    },
    settings: SMALL_SETTINGS,
    env: {},
    clock: instantSleepClock,
    listener: (e) => events.push(e),
    // With tools the summary requests carry tool_choice "none", which is how the fake server tells them apart.
    workspace: { roots: [dir], approve: async () => true, trusted: () => true },
    ...rest,
  });
  return { session, events, path };
}

export interface OverLimitChat {
  readonly dir: string;
  readonly server: FakeOpenAIServer;
  readonly opened: Opened;
}

/**
 * A chat of eight turns, over the soft limit of a 20k window so that the next turn compacts first, opened against a
 * fake (closed after the test) that answers summary requests with GOOD_SUMMARY and everything else with "ok".
 */
export async function chatOverItsLimit(
  t: Parameters<typeof sharedTempDir>[0] & { after(fn: () => unknown): void },
  over: Parameters<typeof openSession>[2] = {},
): Promise<OverLimitChat> {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: 'ok' }));
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, historyOf(8, 100));
  return { dir, server, opened: await openSession(server, dir, { sessionPath: path, ...over }) };
}

export async function verifyFile(path: string): Promise<VerifyReport> {
  const load = await loadSessionFile(path);
  return verifySession(load.tree, load.problems);
}

export async function entriesOf(path: string): Promise<readonly Entry[]> {
  const load = await loadSessionFile(path);
  return load.tree.entries();
}

export async function writeSession(path: string, entries: readonly Entry[]): Promise<void> {
  const store = await JsonlSessionStore.open(path, { create: { id: 's_agent', cwd: '/w' } });
  try {
    for (const e of entries) await store.append(e);
  } finally {
    await store.close();
  }
}

function barrierEvents(events: readonly AgentEvent[]): BarrierEvent[] {
  return events.flatMap((e) => (e.type === 'barrier' ? [e.event] : []));
}

export function compactionEnds(events: readonly AgentEvent[]): Extract<BarrierEvent, { type: 'compaction_end' }>[] {
  return barrierEvents(events).flatMap((e) => (e.type === 'compaction_end' ? [e] : []));
}

export function rejected(server: FakeOpenAIServer): RecordedRequest[] {
  return server.chatRequests.filter((r) => r.status !== undefined && r.status >= 400);
}

export function summaryRequests(server: FakeOpenAIServer): RecordedRequest[] {
  return server.chatRequests.filter((r) => isSummaryRequest(r.body as ChatBody));
}

export function agentRequests(server: FakeOpenAIServer): RecordedRequest[] {
  return server.chatRequests.filter((r) => !isSummaryRequest(r.body as ChatBody));
}
