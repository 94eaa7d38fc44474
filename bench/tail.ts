// Benchmark: one `capsule chat` turn on a 100 MB session vs a small one (time, peak RSS / file), and the memory a 1M-entry session holds once open (tail first, compact history), with `node -e 0` as the floor of the same run.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Entry } from '../src/engine/transcript/schema.js';
import { startFakeOpenAI } from '../test/fakes/openaiServer.js';
import { agentResponder } from '../test/unit/agent/agentHelpers.js';
import { LongSessionGen, writeLongSession } from '../test/support/longSession.js';
import { median, type BenchRow } from './lib.js';

const ROOT = resolve(__dirname, '..');
/** CAPSULE_BENCH_TAIL_ROOT measures another checkout (say, the commit before) with this bench and these fixtures. */
const TARGET = process.env.CAPSULE_BENCH_TAIL_ROOT ?? ROOT;
const CLI = join(TARGET, 'dist', 'cli.js');
const MB = 1024 * 1024;
/** Fixtures take minutes to write: made once, kept in /tmp between runs (same generator, same seed, same bytes). */
const FIXTURES = join(tmpdir(), 'capsule-bench-tail-fixtures');
const CHILD_ENV = 'CAPSULE_BENCH_TAIL_CHILD';
const RUNS = Number(process.env.CAPSULE_BENCH_TAIL_RUNS ?? 5);

async function fixture(name: string, make: (path: string) => Promise<unknown>): Promise<string> {
  mkdirSync(FIXTURES, { recursive: true });
  const path = join(FIXTURES, name);
  const done = `${path}.done`;
  if (!existsSync(done)) {
    await make(path);
    writeFileSync(done, '');
  }
  return path;
}

/**
 * A chat as Capsule writes it, of about `bytes`: the model recorded first, replies that name it, a compaction every
 * 400 entries (test/support/longSession.ts). The 100 MB and the 200 KB sessions have the same shape and the same
 * tail, so a turn costs the same on both unless something reads the history.
 */
async function writeChat(path: string, bytes: number): Promise<void> {
  const gen = new LongSessionGen();
  const out = createWriteStream(path);
  const put = async (o: unknown): Promise<number> => {
    const line = `${JSON.stringify(o)}\n`;
    if (!out.write(line)) await once(out, 'drain');
    return Buffer.byteLength(line);
  };
  let written = await put({ type: 'session', version: 1, id: 's_bench', createdAt: new Date(1_700_000_000_000).toISOString(), cwd: '/home/dev/project' });
  written += await put({
    type: 'model_change',
    id: 'm0',
    parentId: null,
    timestamp: new Date(1_700_000_000_000).toISOString(),
    provider: 'openai',
    model: 'gpt-4o',
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    windowSource: 'table',
  });
  for (let last: Entry | undefined; last === undefined || written < bytes || !(last.type === 'assistant' && last.toolCalls.length === 0); ) {
    // A compaction adds two entries at once (the capsule and the new epoch base).
    const from = gen.entries.length;
    last = gen.next();
    for (const e of gen.entries.slice(from)) {
      const linked = e.parentId === null ? { ...e, parentId: 'm0' } : e;
      written += await put(linked.type === 'assistant' ? { ...linked, model: 'gpt-4o', provider: 'openai' } : linked);
    }
    // The generator keeps its entries for the capsules' kept ids; only the last few hundred are ever needed (a
    // multiple of its compaction period is dropped, so its cadence stays the same).
    if (gen.entries.length >= 9_000) gen.entries.splice(0, 8_000);
  }
  out.end();
  await once(out, 'finish');
}

function nodeFloor(runs: number): number {
  return median(
    Array.from({ length: runs }, () => {
      const t0 = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      return performance.now() - t0;
    }),
  );
}

/** The CLI as a child process, awaited (not spawnSync: the fake model answers from this process's event loop). */
async function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

/** One CLI turn on a fresh copy of `session`: wall time and the process's peak RSS. */
async function cliTurn(session: string, url: string, rssFile: string): Promise<{ readonly ms: number; readonly rssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'capsule-bench-tail-'));
  try {
    const copy = join(dir, 'chat.jsonl');
    copyFileSync(session, copy);
    const args = [
      '--require',
      rssFile,
      CLI,
      'chat',
      '--base-url',
      url,
      '--model',
      'gpt-4o',
      '--api-key-env',
      'CAPSULE_BENCH_KEY',
      '--session',
      copy,
      '--workspace',
      dir,
      '--no-mcp',
      'Say hello.',
    ];
    const t0 = performance.now();
    const r = await runCli(args, { ...process.env, CAPSULE_BENCH_KEY: 'sk-bench' });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`capsule chat failed (${String(r.status)}): ${r.stdout.slice(-500)} ${r.stderr.slice(-500)}`);
    // The launcher hands the key to a worker process that runs the turn (src/cli/keyHandover.ts): each prints its
    // own peak, and the turn's is the larger.
    const peaks = [...r.stderr.matchAll(/RSS_KB=(\d+)/g)].map((m) => Number(m[1]));
    return { ms, rssMb: peaks.length === 0 ? Number.NaN : Math.max(...peaks) / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface HeldResult {
  readonly heldMb: number;
  readonly peakMb: number;
  readonly openMs: number;
  readonly coldReads: number;
}

const kept: unknown[] = [];

/** In a child: RSS held once the session is open and indexed (after a GC), minus the process before the open. */
async function childMain(file: string): Promise<void> {
  const { JsonlSessionStore } = (await import(join(TARGET, 'src', 'node', 'jsonlStore.ts'))) as typeof import('../src/node/jsonlStore.js');
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = await JsonlSessionStore.open(file, {
    tailFirst: true,
    readOnly: true,
    // CAPSULE_BENCH_TAIL_FULL: every entry parsed and held, as before compact history.
    ...(process.env.CAPSULE_BENCH_TAIL_FULL === undefined ? {} : { compactHistory: false }),
  });
  await store.whenIndexed();
  // What a chat reads on open: the figures of the whole branch (the meter's counts) and the leaf, and what its views
  // keep while it is open: the branch line and the forks (the chat's pages), the Checkpoints tree's newest page.
  store.figures();
  const [{ lineOf }, { BranchIndex }, { momentIndexOf }, { newestPage }] = await Promise.all([
    import(join(TARGET, 'src', 'engine', 'transcript', 'branchLine.ts')) as Promise<typeof import('../src/engine/transcript/branchLine.js')>,
    import(join(TARGET, 'src', 'engine', 'transcript', 'branches.ts')) as Promise<typeof import('../src/engine/transcript/branches.js')>,
    import(join(TARGET, 'src', 'engine', 'transcript', 'momentIndex.ts')) as Promise<typeof import('../src/engine/transcript/momentIndex.js')>,
    import(join(TARGET, 'src', 'vscode', 'views', 'treePages.ts')) as Promise<typeof import('../src/vscode/views/treePages.js')>,
  ]);
  const line = lineOf(store.tree);
  const forks = new BranchIndex(store.tree);
  const leaf = store.tree.leafId ?? '';
  forks.forkOf(leaf);
  const page = newestPage(momentIndexOf(store.tree));
  // Held until measured (a local the code no longer reads could be collected first).
  kept.push(line, forks, page, line.length);
  const openMs = performance.now() - t0;
  gc?.();
  const held = process.memoryUsage().rss - before;
  const peak = process.resourceUsage().maxRSS * 1024 - before;
  const out: HeldResult = { heldMb: held / MB, peakMb: peak / MB, openMs, coldReads: (store.tree as { coldReads?: number }).coldReads ?? 0 };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  kept.length = 0;
  await store.close();
}

function held(file: string): HeldResult {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, [CHILD_ENV]: file },
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`held child failed: ${r.stderr.slice(-500)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as HeldResult;
}

const fixed = (n: number, d = 2): number => Number(n.toFixed(d));

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const big = await fixture('chat-100mb.jsonl', (p) => writeChat(p, 100 * MB));
  const small = await fixture('chat-200kb.jsonl', (p) => writeChat(p, 200 * 1024));
  const million = await fixture('session-1m-entries.jsonl', (p) => writeLongSession(p, 1_000_000, '/home/dev/project'));
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-bench-tail-rss-'));
  const rssFile = join(tmp, 'rss.cjs');
  writeFileSync(rssFile, "process.on('exit', () => process.stderr.write(`RSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");
  const server = await startFakeOpenAI({ window: 128_000 });
  server.setFallback(agentResponder(() => [], 'Hello.'));
  const rows: BenchRow[] = [];
  try {
    const floor = nodeFloor(RUNS);
    const bigRuns: { ms: number; rssMb: number }[] = [];
    const smallRuns: { ms: number; rssMb: number }[] = [];
    await cliTurn(small, server.url, rssFile); // warm the page cache and the bundle
    for (let i = 0; i < RUNS; i++) {
      smallRuns.push(await cliTurn(small, server.url, rssFile));
      bigRuns.push(await cliTurn(big, server.url, rssFile));
    }
    const bigMs = median(bigRuns.map((r) => r.ms));
    const smallMs = median(smallRuns.map((r) => r.ms));
    const bigRss = median(bigRuns.map((r) => r.rssMb));
    const bigFileMb = statSync(big).size / MB;
    rows.push({
      name: `capsule chat turn, ${Math.round(bigFileMb)} MB session`,
      medianMs: bigMs,
      runs: RUNS,
      baselineName: 'the same turn on a 200 KB session',
      baselineMedianMs: smallMs,
      speedup: smallMs / bigMs,
      extra: {
        xSmallTurn: fixed(bigMs / smallMs),
        peakRssMB: Math.round(bigRss),
        fileMB: Math.round(bigFileMb),
        rssOverFile: fixed(bigRss / bigFileMb),
        smallTurnRssMB: Math.round(median(smallRuns.map((r) => r.rssMb))),
        xNodeFloor: fixed(bigMs / floor),
      },
    });
    rows.push({
      name: 'capsule chat turn, 200 KB session',
      medianMs: smallMs,
      runs: RUNS,
      baselineName: 'node -e 0',
      baselineMedianMs: floor,
      speedup: floor / smallMs,
      extra: { xNodeFloor: fixed(smallMs / floor) },
    });
    const heldRuns = Array.from({ length: 3 }, () => held(million));
    const fileMb = statSync(million).size / MB;
    const heldMb = median(heldRuns.map((r) => r.heldMb));
    rows.push({
      name: 'memory held with a 1M-entry session open (tail first, indexed, figures read)',
      medianMs: median(heldRuns.map((r) => r.openMs)),
      runs: heldRuns.length,
      extra: {
        fileMB: Math.round(fileMb),
        heldMB: Math.round(heldMb),
        heldOverFile: fixed(heldMb / fileMb),
        peakOverFile: fixed(median(heldRuns.map((r) => r.peakMb)) / fileMb),
        entriesReadBack: heldRuns[0]?.coldReads ?? 0,
      },
    });
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

const child = process.env[CHILD_ENV];
if (child !== undefined) {
  childMain(child).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else if (require.main === module) {
  // `node --import tsx bench/tail.ts` runs just this benchmark and prints its rows as JSON.
  run().then(
    (rows) => process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
