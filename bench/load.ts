// Benchmark: streaming session load (loadSessionFile) vs the naive readFileSync + split + JSON.parse reader: time and peak memory.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadSessionFile } from '../src/node/jsonlStore.js';
import { compare, median, type BenchRow } from './lib.js';

const CHILD_ENV = 'CAPSULE_BENCH_LOAD_CHILD';
const MB = 1024 * 1024;

type Mode = 'streaming' | 'naive';
interface ChildJob {
  readonly mode: Mode;
  readonly file: string;
  readonly runs: number;
}
interface ChildResult {
  readonly timesMs: readonly number[];
  /** Max RSS over the first (cold) load minus RSS before it, in MB. */
  readonly peakDeltaMb: number;
  readonly entries: number;
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
  for (let turn = 0; bytes < targetBytes; turn++) {
    const turnId = `turn_${turn}`;
    await entry({ type: 'user', content: `Please look at src/module${turn % 50}.ts and fix the failing test. ${'Context. '.repeat(10 + Math.floor(rnd() * 30))}`, turnId });
    const calls = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < calls; c++) {
      const callId = `call_${turn}_${c}`;
      await entry({ type: 'assistant', content: c === 0 ? 'Let me check.' : '', toolCalls: [{ id: callId, name: 'read_file', arguments: JSON.stringify({ path: `src/module${turn % 50}.ts`, startLine: 1, endLine: 400 }) }], model: 'gpt-4o', provider: 'openai', usage: { promptTokens: 20_000 + turn * 10, completionTokens: 120 }, turnId });
      const lines = 40 + Math.floor(rnd() * 400); // about 2 to 25 KB of file content or test output
      let content = '';
      for (let l = 0; l < lines; l++) content += `${CODE_LINES[Math.floor(rnd() * CODE_LINES.length)] ?? ''}\n`;
      await entry({ type: 'tool_result', toolCallId: callId, toolName: 'read_file', content, isError: rnd() < 0.05, durationMs: Math.floor(rnd() * 50), turnId });
    }
    await entry({ type: 'assistant', content: `Done. ${'I changed the parser so it keeps the trailing row. '.repeat(2 + Math.floor(rnd() * 20))}`, toolCalls: [], finishReason: 'stop', turnId });
    await entry({ type: 'turn_end', turnId, status: 'completed' });
  }
  out.end();
  await once(out, 'finish');
  return entries;
}

/** The reader a first implementation would write: the whole file as one string, split, parse every line. */
function naiveLoad(file: string): unknown[] {
  const out: unknown[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line.length > 0) out.push(JSON.parse(line));
  return out;
}

// Keeps each loaded result reachable until the next run, so retained memory counts as it would in the extension.
let keep: unknown;

async function childMain(job: ChildJob): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const timesMs: number[] = [];
  let peakDeltaMb = 0;
  let entries = 0;
  for (let i = 0; i < job.runs; i++) {
    keep = undefined;
    const t0 = performance.now();
    if (job.mode === 'streaming') {
      const load = await loadSessionFile(job.file);
      entries = load.tree.size;
      keep = load;
    } else {
      const all = naiveLoad(job.file);
      entries = all.length - 1;
      keep = all;
    }
    timesMs.push(performance.now() - t0);
    if (i === 0) peakDeltaMb = (process.resourceUsage().maxRSS * 1024 - rssBefore) / MB;
  }
  const result: ChildResult = { timesMs, peakDeltaMb, entries };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** One fresh process per (reader, file), so peak memory is not polluted by the other reader. */
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

export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-load-'));
  const rows: BenchRow[] = [];
  try {
    for (const { mb, runs } of [
      { mb: 10, runs: 5 },
      { mb: 100, runs: 3 },
    ]) {
      const file = join(dir, `session-${mb}mb.jsonl`);
      const entries = await generate(file, mb * MB);
      const size = (await stat(file)).size;
      const ours = await measure({ mode: 'streaming', file, runs });
      const naive = await measure({ mode: 'naive', file, runs });
      if (ours.entries !== entries) throw new Error(`streaming load found ${ours.entries} entries, expected ${entries}`);
      rows.push(
        compare(`loadSessionFile ${mb} MB session (${entries} entries, validated + tree)`, median(ours.timesMs), 'naive readFileSync+split+JSON.parse', median(naive.timesMs), runs, {
          fileMB: Math.round((size / MB) * 10) / 10,
          peakRssDeltaMB: Math.round(ours.peakDeltaMb),
          baselinePeakRssDeltaMB: Math.round(naive.peakDeltaMb),
          memoryRatio: Math.round((naive.peakDeltaMb / Math.max(1, ours.peakDeltaMb)) * 100) / 100,
        }),
      );
      await rm(file, { force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
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
    (rows) => console.table(rows.map((r) => ({ name: r.name, ms: Math.round(r.medianMs), baselineMs: Math.round(r.baselineMedianMs ?? 0), speedup: r.speedup?.toFixed(2), ...r.extra }))),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
