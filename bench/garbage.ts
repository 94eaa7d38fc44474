// Benchmark behind CAPSULE_BENCH_GARBAGE=1: `capsule verify` on 1 GB of invalid lines ends with a report in bounded memory (vs 10 MB).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../src/cli/main.js';
import { compare, type BenchRow } from './lib.js';

const CHILD_ENV = 'CAPSULE_BENCH_GARBAGE_CHILD';
const MB = 1024 * 1024;

interface ChildResult {
  readonly ms: number;
  readonly exitCode: number;
  readonly lines: number;
  readonly lastLine: string;
  readonly maxRssMb: number;
}

/** Lines of printable junk around 100 bytes: the shape that used to keep one problem object per line. */
async function writeGarbage(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  let s = 12345;
  let written = 0;
  let batch = '';
  while (written < bytes) {
    s = (s * 1103515245 + 12345) >>> 0;
    const line = `{garbage ${s.toString(36)} ${'x#{'.repeat(25 + (s % 10))}\n`;
    batch += line;
    written += line.length;
    if (batch.length > 1 * MB) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.write(batch);
  out.end();
  await once(out, 'finish');
}

async function childMain(file: string): Promise<void> {
  const lines: string[] = [];
  const t0 = performance.now();
  const exitCode = await main(['verify', file], (s) => lines.push(...s.split('\n')));
  const result: ChildResult = {
    ms: performance.now() - t0,
    exitCode,
    lines: lines.length,
    lastLine: lines.at(-1) ?? '',
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function measure(file: string): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__filename)], {
    cwd: resolve(__dirname, '..'),
    env: { ...process.env, [CHILD_ENV]: file },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`garbage bench child exited with ${String(code)} (out of memory?)`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult;
}

export async function run(): Promise<BenchRow[]> {
  if (process.env.CAPSULE_BENCH_GARBAGE !== '1') return [];
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-garbage-'));
  try {
    const small = join(dir, 'garbage-10mb.jsonl');
    const big = join(dir, 'garbage-1gb.jsonl');
    await writeGarbage(small, 10 * MB);
    await writeGarbage(big, 1024 * MB);
    const base = await measure(small);
    const ours = await measure(big);
    return [
      compare('capsule verify on 1 GB of invalid lines', ours.ms, 'the same on 10 MB', base.ms, 1, {
        exitCode: ours.exitCode,
        outputLines: ours.lines,
        maxRssMB: Math.round(ours.maxRssMb),
        baselineMaxRssMB: Math.round(base.maxRssMb),
        memoryRatio: Math.round((ours.maxRssMb / base.maxRssMb) * 100) / 100,
        lastLine: ours.lastLine.slice(0, 120),
      }),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}

const childFile = process.env[CHILD_ENV];
if (childFile !== undefined) {
  childMain(childFile).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
