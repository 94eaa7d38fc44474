// A scripted long autonomous turn (30 reads of ~1.6k-token files) at 8k…128k with defaults: reads completed, summaries per compaction, summary tokens thrown away.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSession } from '../src/node/agentSession.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody } from '../test/fakes/openaiServer.js';
import { median, type BenchRow } from './lib.js';

const WINDOWS = [8_192, 16_384, 32_768, 128_000] as const;
/** Reads in the turn; each file is about 1,600 tokens (100 lines of ~16 tokens), the paged result of a real read. */
const READS = 30;
const FILE_LINES = 100;
const RUNS = 3;

/** A model that words its summary its own way: three of the template's seven headings, nothing else. */
const SUMMARY = '## Goal\n- read every file of the bench workspace\n\n## Progress\n- read the files in order\n\n## Next Steps\n- read the remaining files';

interface Figures {
  readonly ms: number;
  readonly reads: number;
  readonly requests: number;
  readonly summaries: number;
  readonly compactions: number;
  /** Summary request tokens (prompt + answer) whose capsule was not installed as the model wrote it. */
  readonly wastedSummaryTokens: number;
  readonly summaryTokens: number;
  readonly rejected: number;
}

function answerTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

async function oneTurn(window: number): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-turn-'));
  const server = await startFakeOpenAI({ window });
  try {
    const ws = join(dir, 'ws');
    await mkdir(ws);
    for (let i = 0; i < READS; i++) {
      await writeFile(
        join(ws, `f${i}.txt`),
        Array.from({ length: FILE_LINES }, (_, l) => `line ${l} of f${i}: the quick brown fox jumps over the lazy dog`).join('\n'),
      );
    }
    let n = 0;
    server.setFallback((req) => {
      if (isSummaryRequest(req.body as ChatBody)) return { text: SUMMARY };
      n += 1;
      return n <= READS ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${n - 1}.txt` } }] } : { text: 'All files read.' };
    });
    let compactions = 0;
    let seenRequests = 0;
    let wasted = 0;
    let total = 0;
    // Summary requests of one operation are the ones recorded since the previous compaction_end; only the last one of a
    // completed operation whose capsule is not the degraded fallback was used, every other one was paid for and thrown away.
    const settle = (used: boolean): void => {
      const ops = server.chatRequests.slice(seenRequests).filter((r) => isSummaryRequest(r.body as ChatBody));
      seenRequests = server.chatRequests.length;
      ops.forEach((r, i) => {
        const cost = (r.promptTokens ?? 0) + (r.status === 200 ? answerTokens(SUMMARY) : 0);
        total += cost;
        if (!(used && i === ops.length - 1)) wasted += cost;
      });
    };
    const session = await AgentSession.open({
      sessionPath: join(dir, 'chat.jsonl'),
      create: { cwd: ws },
      model: { chat: { baseURL: server.url, model: 'fake-model' }, override: { contextWindow: window } },
      env: {},
      workspace: { roots: [ws], approve: async () => true, trusted: () => true },
      listener: (e) => {
        if (e.type !== 'barrier' || e.event.type !== 'compaction_end') return;
        const completed = e.event.outcome === 'completed';
        if (completed) compactions += 1;
        settle(completed && e.event.quality !== 'degraded');
      },
    });
    const t0 = performance.now();
    await session.agent.runTurn({ userText: 'Read every file, one after the other.', signal: new AbortController().signal });
    const ms = performance.now() - t0;
    await session.close();
    settle(false);
    const chats = server.chatRequests;
    return {
      ms,
      // Request k carries the result of read k-1: the reads the model got to see.
      reads: Math.min(READS, Math.max(0, n - 1)),
      requests: chats.length,
      summaries: chats.filter((r) => isSummaryRequest(r.body as ChatBody)).length,
      compactions,
      wastedSummaryTokens: wasted,
      summaryTokens: total,
      rejected: chats.filter((r) => r.status !== 200).length,
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const window of WINDOWS) {
    const runs: Figures[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await oneTurn(window));
    const last = runs[runs.length - 1];
    if (last === undefined) continue;
    const agentRequests = last.requests - last.summaries;
    rows.push({
      name: `long autonomous turn (${READS} reads of ~1.6k tokens) at ${window} tokens`,
      medianMs: median(runs.map((r) => r.ms)),
      runs: RUNS,
      extra: {
        readsCompleted: last.reads,
        requests: agentRequests,
        compactions: last.compactions,
        summaryRequests: last.summaries,
        summariesPerCompaction: Number((last.summaries / Math.max(1, last.compactions)).toFixed(2)),
        summaryTokensWastedShare: Number((last.wastedSummaryTokens / Math.max(1, last.summaryTokens)).toFixed(3)),
        rejected: last.rejected,
      },
    });
  }
  return rows;
}
