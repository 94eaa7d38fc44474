// Benchmark: a scripted 60-turn chat against the fake server's prefix cache: share of prompt tokens served from cache outside compactions, and the summary request's prefix.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSession } from '../src/node/agentSession.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody } from '../test/fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../test/unit/compaction/harness.js';
import type { CacheMetrics } from '../src/engine/agent/agentEvents.js';
import type { BenchRow } from './lib.js';

const TURNS = 60;
const WINDOW = 32_000;

function answer(i: number): string {
  return Array.from({ length: 60 }, (_, k) => `Step ${i}.${k}: checked module m${(i * 31 + k) % 97} and its tests.`).join(' ');
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-cache-'));
  const server = await startFakeOpenAI({ window: WINDOW });
  let turn = 0;
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: answer(turn) }));
  const t0 = performance.now();
  const metrics: CacheMetrics[] = [];
  try {
    const session = await AgentSession.open({
      sessionPath: join(dir, 'chat.jsonl'),
      create: { cwd: dir },
      model: { chat: { baseURL: server.url, apiKey: '', model: 'fake-model' }, override: { contextWindow: WINDOW, maxOutputTokens: 2_000 } },
      settings: { keepRecentTokens: 6_000, minReclaimableTokens: 2_000, safetyReserveTokens: 1_000, minTokensForAutoCompact: 0 },
      env: {},
      listener: (e) => {
        if (e.type === 'cache_metrics') metrics.push(e.metrics);
      },
      workspace: { roots: [dir], approve: async () => true, trusted: () => true },
    });
    for (turn = 0; turn < TURNS; turn++) {
      const r = await session.agent.runTurn({ userText: `Turn ${turn}: look at the next module and report.`, signal: new AbortController().signal });
      if (r.status !== 'completed') throw new Error(`turn ${turn} ${r.status}: ${r.error ?? ''}`);
    }
    await session.close();
    const wallMs = performance.now() - t0;
    const reqs = server.chatRequests.map((r) => r.body as ChatBody);
    let summaries = 0;
    let prefixKept = 0;
    for (const [i, body] of reqs.entries()) {
      if (!isSummaryRequest(body)) continue;
      summaries++;
      const prev = reqs[i - 1];
      if (prev !== undefined && sameJson(prev.messages, body.messages.slice(0, prev.messages.length)) && sameJson(prev.tools, body.tools)) prefixKept++;
    }
    // The first response of each epoch cannot hit: its prefix changed on purpose with the compaction.
    let prompt = 0;
    let cached = 0;
    for (const [i, m] of metrics.entries()) {
      if (i === 0 || metrics[i - 1]?.epochId !== m.epochId) continue;
      prompt += m.promptTokens;
      cached += m.cachedTokens;
    }
    return [
      {
        name: `prompt-cache share over a ${TURNS}-turn chat, outside compactions`,
        medianMs: wallMs,
        runs: 1,
        extra: {
          cachedShare: Number((cached / Math.max(1, prompt)).toFixed(3)),
          promptTokens: prompt,
          cachedTokens: cached,
          requests: reqs.length,
          epochs: new Set(metrics.map((m) => m.epochId)).size,
          summaries,
          summaryPrefixEqualsPrevious: `${prefixKept}/${summaries}`,
        },
      },
    ];
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}
