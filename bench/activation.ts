// Benchmark: extension bundle load + activate, and CLI `--help` / `verify`, with lazy encodings vs both tables built at load.
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compare, median, type BenchRow } from './lib.js';

const ROOT = resolve(__dirname, '..');
const DIST = join(ROOT, 'dist');
const RUNS = 7;
/** The goal of the load + activate row, in ms (median, this machine). */
const ACTIVATION_GOAL_MS = 150;
/** `capsule --help` within this many times an empty Node process (wall clock, same run). */
const HELP_GOAL_X_NODE = 1.3;

interface Activation {
  readonly loadMs: number;
  readonly activateMs: number;
  readonly totalMs: number;
  readonly cpuMs: number;
  readonly heapMb: number;
}

/**
 * The child as one plain CommonJS file, run by plain `node`: under `--import tsx` every `require` of a `.js` file,
 * dist/extension.js too, goes through tsx's hooks, which added about 60 ms to the load the extension host never pays.
 */
function buildChild(tmp: string): string {
  const outfile = join(tmp, 'activationChild.cjs');
  buildSync({
    entryPoints: [join(__dirname, 'activationChild.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

function activation(child: string, mode: 'lazy' | 'eager'): Activation {
  const r = spawnSync(process.execPath, [child, join(DIST, 'extension.js'), mode], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`activation child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Activation;
}

/** Wall time and max RSS of one CLI run; `preload` simulates the eager bundle by building both tables first. */
function cli(args: readonly string[], preload: string | undefined, rssFile: string): { ms: number; rssMb: number } {
  const pre = preload === undefined ? [] : ['--require', preload];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', rssFile, ...pre, join(DIST, 'cli.js'), ...args], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  const m = /RSS_KB=(\d+)/.exec(r.stderr);
  return { ms, rssMb: m ? Number(m[1]) / 1024 : Number.NaN };
}

export async function run(): Promise<BenchRow[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-bench-activation-'));
  try {
    const rssFile = join(tmp, 'rss.cjs');
    writeFileSync(rssFile, "process.on('exit', () => process.stderr.write(`RSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");
    const eager = join(tmp, 'eager.cjs');
    writeFileSync(eager, `for (const n of ['o200k_base', 'cl100k_base']) require(${JSON.stringify(join(DIST, 'encodings'))} + '/' + n + '.js');\n`);
    const session = join(tmp, 'chat.jsonl');
    writeFileSync(
      session,
      `${JSON.stringify({ type: 'session', version: 1, id: 's_bench', createdAt: '2026-01-01T00:00:00.000Z', cwd: tmp })}\n${JSON.stringify({ type: 'user', id: 'e1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', content: 'hello' })}\n`,
    );

    const rows: BenchRow[] = [];
    const child = buildChild(tmp);
    const lazyRuns: Activation[] = [];
    const eagerRuns: Activation[] = [];
    for (let i = 0; i < RUNS; i++) {
      lazyRuns.push(activation(child, 'lazy'));
      eagerRuns.push(activation(child, 'eager'));
    }
    const med = (xs: readonly Activation[], k: keyof Activation): number => median(xs.map((x) => x[k]));
    rows.push(
      compare('extension bundle load + activate (stub vscode)', med(lazyRuns, 'totalMs'), 'both BPE tables built at load', med(eagerRuns, 'totalMs'), RUNS, {
        loadMs: Number(med(lazyRuns, 'loadMs').toFixed(1)),
        activateMs: Number(med(lazyRuns, 'activateMs').toFixed(1)),
        cpuMs: Number(med(lazyRuns, 'cpuMs').toFixed(0)),
        heapMb: Number(med(lazyRuns, 'heapMb').toFixed(1)),
        eagerHeapMb: Number(med(eagerRuns, 'heapMb').toFixed(1)),
        goalMs: ACTIVATION_GOAL_MS,
      }),
    );
    for (const args of [['--help'], ['verify', session]]) {
      // What an empty Node process costs on this machine: the floor under the CLI figures, interleaved with them so a
      // busy moment lands on both.
      const floor: number[] = [];
      const lazy: { ms: number; rssMb: number }[] = [];
      const base: { ms: number; rssMb: number }[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        spawnSync(process.execPath, ['-e', '0']);
        floor.push(performance.now() - t0);
        lazy.push(cli(args, undefined, rssFile));
        base.push(cli(args, eager, rssFile));
      }
      const nodeFloor = median(floor);
      rows.push(
        compare(`capsule ${args[0]}`, median(lazy.map((r) => r.ms)), 'both BPE tables built at load', median(base.map((r) => r.ms)), RUNS, {
          rssMb: Number(median(lazy.map((r) => r.rssMb)).toFixed(0)),
          eagerRssMb: Number(median(base.map((r) => r.rssMb)).toFixed(0)),
          nodeStartupMs: Number(nodeFloor.toFixed(0)),
          // The same-run ratio the start-up goal is stated in (`capsule --help` within 1.3× `node -e 0`); CPU time in `counted`.
          vsNodeStartup: Number((median(lazy.map((r) => r.ms)) / nodeFloor).toFixed(2)),
          ...(args[0] === '--help' ? { goalVsNodeStartup: HELP_GOAL_X_NODE } : {}),
        }),
      );
    }
    return rows;
  } finally {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
}
