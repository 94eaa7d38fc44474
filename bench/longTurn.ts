// A scripted long autonomous turn (many reads in one turn) at 16k, 32k and 128k: compactions and the summary-request share.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSession } from '../src/node/agentSession.js';
import { isSummaryRequest, startFakeOpenAI, type ChatBody } from '../test/fakes/openaiServer.js';
import { median, type BenchRow } from './lib.js';

const WINDOWS = [16_384, 32_768, 128_000] as const;
/** Reads in the turn; each file is about a tenth of the window, so the turn keeps refilling it. */
const READS = 40;
const RUNS = 3;

const SUMMARY = ['Goal', 'Constraints & Preferences', 'Progress', 'Key Decisions', 'Next Steps', 'Critical Context', 'Relevant Files']
  .map((s) => `## ${s}\n${s === 'Progress' ? '### Done\n- read the files\n### In progress\n- more reads\n### Blocked\n- none' : `- ${s.toLowerCase()} of the bench turn`}`)
  .join('\n\n');

interface Figures {
  readonly ms: number;
  readonly requests: number;
  readonly summaries: number;
  readonly compactions: number;
  readonly rejected: number;
}

async function oneTurn(window: number): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-turn-'));
  const server = await startFakeOpenAI({ window });
  try {
    const ws = join(dir, 'ws');
    await mkdir(ws);
    const lines = Math.floor(window / 10 / 14);
    for (let i = 0; i < READS; i++) await writeFile(join(ws, `f${i}.txt`), Array.from({ length: lines }, (_, l) => `line ${l} of f${i}: the quick brown fox jumps over the lazy dog`).join('\n'));
    let n = 0;
    server.setFallback((req) => {
      if (isSummaryRequest(req.body as ChatBody)) return { text: SUMMARY };
      n += 1;
      return n <= READS ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${n - 1}.txt` } }] } : { text: 'All files read.' };
    });
    let compactions = 0;
    const session = await AgentSession.open({
      sessionPath: join(dir, 'chat.jsonl'),
      create: { cwd: ws },
      model: { chat: { baseURL: server.url, model: 'fake-model' }, override: { contextWindow: window } },
      env: {},
      workspace: { roots: [ws], approve: async () => true, trusted: () => true },
      listener: (e) => {
        if (e.type === 'barrier' && e.event.type === 'compaction_end' && e.event.outcome === 'completed') compactions += 1;
      },
    });
    const t0 = performance.now();
    await session.agent.runTurn({ userText: 'Read every file, one after the other.', signal: new AbortController().signal });
    const ms = performance.now() - t0;
    await session.close();
    const chats = server.chatRequests;
    return { ms, requests: chats.length, summaries: chats.filter((r) => isSummaryRequest(r.body as ChatBody)).length, compactions, rejected: chats.filter((r) => r.status !== 200).length };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
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
      name: `long autonomous turn (${READS} reads) at ${window} tokens`,
      medianMs: median(runs.map((r) => r.ms)),
      runs: RUNS,
      extra: {
        requests: agentRequests,
        compactions: last.compactions,
        compactionsPerRequest: Number((last.compactions / Math.max(1, agentRequests)).toFixed(3)),
        summaryShare: Number((last.summaries / Math.max(1, last.requests)).toFixed(3)),
        rejected: last.rejected,
      },
    });
  }
  return rows;
}
