// Benchmark: opening a 100 MB (and, with CAPSULE_BENCH_LOAD_1GB=1, a 1 GB) session: time to the chat data the view's first snapshot shows (items + meter) and to fully indexed, tail-first vs the full load, and peak RSS; plain JSON.parse of every line for reference.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_SYSTEM_PROMPT } from '../src/engine/agent/systemPrompt.js';
import { resolveSettings } from '../src/engine/config.js';
import { JsonlSessionStore } from '../src/node/jsonlStore.js';
import { budgetOf, TokenCaches, type BudgetBasis } from '../src/node/sessionBudget.js';
import { TranscriptView } from '../src/vscode/projection/transcriptView.js';
import { pageOf } from '../src/vscode/projection/transcriptItems.js';
import { compare, median, type BenchRow } from './lib.js';

const CHILD_ENV = 'CAPSULE_BENCH_LOAD_CHILD';
const MB = 1024 * 1024;

type Mode = 'tailFirst' | 'full' | 'parse';
interface ChildJob {
  readonly mode: Mode;
  readonly file: string;
  readonly runs: number;
}
interface ChildResult {
  /** Open → the chat data of the view's first snapshot (its page of items and the meter). */
  readonly firstMs: readonly number[];
  /** Open → every line indexed. */
  readonly indexedMs: readonly number[];
  /** Max RSS over the first (cold) load minus RSS before it, in MB. */
  readonly peakDeltaMb: number;
  readonly entries: number;
  readonly firstItems: number;
}

/** Small deterministic PRNG so every run benchmarks the same file. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x1_0000_0000;
  };
}

const CODE_LINES = [
  'export function parse(text: string): Row[] {',
  '  const rows = text.split("\\n").filter((l) => l.length > 0);',
  '  for (const [i, row] of rows.entries()) if (!row.includes(",")) throw new Error(`bad row ${i}`);',
  '  return rows.map((r) => r.split(",").map((c) => c.trim()));',
  '}',
  '// TODO(perf): stream large inputs instead of splitting the whole text',
  'import { readFile } from "node:fs/promises";',
  '  ✓ parses quoted fields (3 ms)',
  '  ✗ keeps the trailing row — expected 4 rows, got 3',
];

/** Writes a realistic session of about `targetBytes`: user asks, assistant tool calls, multi-KB tool results. */
export async function generate(path: string, targetBytes: number): Promise<number> {
  const rnd = prng(targetBytes);
  const out = createWriteStream(path);
  let bytes = 0;
  let entries = 0;
  let parent: string | null = null;
  let n = 0;
  const ts = (): string => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();
  const write = async (obj: Record<string, unknown>): Promise<void> => {
    const line = `${JSON.stringify(obj)}\n`;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  };
  const entry = async (obj: Record<string, unknown>): Promise<void> => {
    const id = `e_${(n++).toString(36)}`;
    await write({ id, parentId: parent, timestamp: ts(), ...obj });
    parent = id;
    entries++;
  };
  await write({ type: 'session', version: 1, id: 's_bench', createdAt: ts(), cwd: '/home/dev/project', title: 'bench' });
  await entry({ type: 'system_update', mode: 'base', content: 'You are a coding agent.', reason: 'epoch start' });
  let sinceCapsule = 0;
  let keptFrom: string | null = null;
  for (let turn = 0; bytes < targetBytes; turn++) {
    const turnId = `turn_${turn}`;
    // A compaction about every 2 MB (a 128k window fills at roughly that), keeping the last turns, then a new epoch base.
    if (bytes - sinceCapsule > 2 * MB && keptFrom !== null) {
      sinceCapsule = bytes;
      await entry({
        type: 'capsule',
        summary: `## Goal\nFix the parser (turn ${turn})`,
        firstKeptEntryId: keptFrom,
        pinnedEntryIds: [],
        tokensBefore: 110_000,
        tokensAfter: 20_000,
        trigger: 'auto_threshold',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: `ck_${turn}`,
        details: {},
      });
      await entry({ type: 'system_update', mode: 'base', content: 'You are a coding agent.', reason: `new epoch after ck_${turn}` });
    }
    if (turn % 4 === 0) keptFrom = `e_${n.toString(36)}`;
    await entry({
      type: 'user',
      content: `Please look at src/module${turn % 50}.ts and fix the failing test. ${'Context. '.repeat(10 + Math.floor(rnd() * 30))}`,
      turnId,
    });
    const calls = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < calls; c++) {
      const callId = `call_${turn}_${c}`;
      await entry({
        type: 'assistant',
        content: c === 0 ? 'Let me check.' : '',
        toolCalls: [{ id: callId, name: 'read_file', arguments: JSON.stringify({ path: `src/module${turn % 50}.ts`, startLine: 1, endLine: 400 }) }],
        model: 'gpt-4o',
        provider: 'openai',
        usage: { promptTokens: 20_000 + turn * 10, completionTokens: 120 },
        turnId,
      });
      const lines = 40 + Math.floor(rnd() * 400); // about 2 to 25 KB of file content or test output
      let content = '';
      for (let l = 0; l < lines; l++) content += `${CODE_LINES[Math.floor(rnd() * CODE_LINES.length)] ?? ''}\n`;
      await entry({
        type: 'tool_result',
        toolCallId: callId,
        toolName: 'read_file',
        content,
        isError: rnd() < 0.05,
        durationMs: Math.floor(rnd() * 50),
        turnId,
      });
    }
    await entry({
      type: 'assistant',
      content: `Done. ${'I changed the parser so it keeps the trailing row. '.repeat(2 + Math.floor(rnd() * 20))}`,
      toolCalls: [],
      finishReason: 'stop',
      turnId,
    });
    await entry({ type: 'turn_end', turnId, status: 'completed' });
  }
  out.end();
  await once(out, 'finish');
  return entries;
}

/** Plain JSON.parse of every line, streamed (the floor any validating reader pays). */
async function parseAll(file: string): Promise<number> {
  let n = 0;
  for await (const l of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (l.length > 0 && JSON.parse(l) !== undefined) n++;
  return n - 1;
}

const basis: BudgetBasis = {
  model: { model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_384, source: 'provider' },
  provider: 'openai',
  tools: [],
  resolved: resolveSettings({ raw: {} }),
  cache: new TokenCaches().forModel('gpt-4o'),
  system: DEFAULT_SYSTEM_PROMPT,
};

/** What the view's first snapshot carries of the chat: the last page of items of the branch, and the meter. */
function firstRender(store: JsonlSessionStore): number {
  const items = new TranscriptView().items(store, basis);
  budgetOf(store.tree.branch(), basis, Date.now());
  return pageOf(items).items.length;
}

// Keeps each loaded result reachable until the next run, so retained memory counts as it would in the extension.
let keep: unknown;

async function childMain(job: ChildJob): Promise<void> {
  // The tokenizer is loaded once before measuring: both paths count with it, and its table is not the session's memory.
  budgetOf([], basis, Date.now());
  const rssBefore = process.memoryUsage().rss;
  const firstMs: number[] = [];
  const indexedMs: number[] = [];
  let peakDeltaMb = 0;
  let entries = 0;
  let firstItems = 0;
  for (let i = 0; i < job.runs; i++) {
    if (keep instanceof JsonlSessionStore) await keep.close();
    keep = undefined;
    const t0 = performance.now();
    if (job.mode === 'parse') {
      entries = await parseAll(job.file);
      firstMs.push(performance.now() - t0);
    } else {
      const store = await JsonlSessionStore.open(job.file, { readOnly: true, tailFirst: job.mode === 'tailFirst' });
      // The full load is indexed when open() returns; tail-first, when whenIndexed() resolves (the first render included).
      const opened = performance.now() - t0;
      firstItems = firstRender(store);
      firstMs.push(performance.now() - t0);
      await store.whenIndexed();
      indexedMs.push(job.mode === 'full' ? opened : performance.now() - t0);
      entries = store.tree.size;
      keep = store;
    }
    if (job.mode === 'parse') indexedMs.push(performance.now() - t0);
    if (i === 0) peakDeltaMb = (process.resourceUsage().maxRSS * 1024 - rssBefore) / MB;
  }
  const result: ChildResult = { firstMs, indexedMs, peakDeltaMb, entries, firstItems };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** One fresh process per (mode, file), so peak memory is not polluted by the other mode. */
async function measure(job: ChildJob): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__filename)], {
    cwd: resolve(__dirname, '..'),
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(job) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`bench child (${job.mode}) exited with ${String(code)}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult;
}

const mb = (x: number): number => Math.round(x);

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-load-'));
  const rows: BenchRow[] = [];
  const sizes = [{ size: 100, runs: 3 }];
  // 1 GB takes minutes to write and to load the old way: behind a flag, like the garbage bench's long run.
  if (process.env.CAPSULE_BENCH_LOAD_1GB === '1') sizes.push({ size: 1024, runs: 1 });
  try {
    for (const { size, runs } of sizes) {
      const file = join(dir, `session-${size}mb.jsonl`);
      const entries = await generate(file, size * MB);
      const fileMB = Math.round(((await stat(file)).size / MB) * 10) / 10;
      const fast = await measure({ mode: 'tailFirst', file, runs });
      const full = await measure({ mode: 'full', file, runs });
      const parse = await measure({ mode: 'parse', file, runs });
      for (const r of [fast, full]) if (r.entries !== entries) throw new Error(`a load found ${r.entries} entries, expected ${entries}`);
      const what = `${size >= 1024 ? `${size / 1024} GB` : `${size} MB`} session (${entries} entries)`;
      rows.push(
        compare(`load ${what}: first render (chat page + meter), tail-first`, median(fast.firstMs), 'full load then render', median(full.firstMs), runs, {
          fileMB,
          items: fast.firstItems,
          peakRssDeltaMB: mb(fast.peakDeltaMb),
          baselinePeakRssDeltaMB: mb(full.peakDeltaMb),
          rssPerFileByte: Math.round((fast.peakDeltaMb / fileMB) * 100) / 100,
        }),
        compare(`load ${what}: fully indexed, tail-first`, median(fast.indexedMs), 'full load', median(full.indexedMs), runs, {
          fileMB,
          plainJsonParseMs: Math.round(median(parse.firstMs)),
          parsePeakRssDeltaMB: mb(parse.peakDeltaMb),
        }),
      );
      await rm(file, { force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
  return rows;
}

const childJob = process.env[CHILD_ENV];
if (childJob !== undefined) {
  childMain(JSON.parse(childJob) as ChildJob).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else if (require.main === module) {
  // `node --import tsx bench/load.ts` runs just this benchmark.
  run().then(
    (rows) =>
      console.table(
        rows.map((r) => ({
          name: r.name,
          ms: Math.round(r.medianMs),
          baselineMs: Math.round(r.baselineMedianMs ?? 0),
          speedup: r.speedup?.toFixed(2),
          ...r.extra,
        })),
      ),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
