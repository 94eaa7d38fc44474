// Benchmark: `capsule budget` on a session whose token counts are persisted (no tokenizer built) against the same session without them and against `capsule verify` (the load alone), and `capsule --help`, as CPU-time ratios to `node -e 0` in the same run.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, type BenchRow } from './lib.js';
import { writeLongSession } from '../test/support/longSession.js';
import { countsSidecarPath } from '../src/node/countsFile.js';

const RUNS = Number(process.env.CAPSULE_BENCH_RUNS ?? 7);
const CLI = join(__dirname, '..', 'dist', 'cli.js');
const SIZES = [1_000, 10_000] as const;
/** The goals, in CPU time against `node -e 0` in the same run: the budget with persisted counts, and `--help`. */
const BUDGET_GOAL_X_NODE = 2;
const HELP_GOAL_X_NODE = 1.3;

interface Sample {
  /** User + system CPU seconds of the child, as the shell's `times` reports them, in ms. */
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** `times` prints the shell's, then its children's user and system time (e.g. `0m0.110s 0m0.030s`). */
function childCpuMs(out: string): number {
  const line = out.trim().split('\n').at(-1) ?? '';
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000);
  if (parts.length !== 2) throw new Error(`bench: cannot read the child's CPU time from "${line}"`);
  return (parts[0] ?? 0) + (parts[1] ?? 0);
}

/**
 * Runs `node args…` under bash and reads its CPU time; before() runs first, unmeasured (e.g. removing the sidecar).
 * `anyExit`: the command's exit code is not checked (`verify` exits 1 when it reports problems).
 */
function sample(args: readonly string[], before?: () => void, anyExit = false): Sample {
  before?.();
  const quoted = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `${quoted} >/dev/null ${anyExit ? ';' : '|| exit 3;'} times`], { encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`bench: ${args.join(' ')} failed (${String(r.status)}): ${r.stderr}`);
  return { cpuMs: childCpuMs(r.stdout), wallMs };
}

function medians(samples: readonly Sample[]): Sample {
  return { cpuMs: median(samples.map((s) => s.cpuMs)), wallMs: median(samples.map((s) => s.wallMs)) };
}

function row(name: string, s: Sample, floor: Sample, extra: Readonly<Record<string, number | string>> = {}): BenchRow {
  return {
    name,
    medianMs: s.cpuMs,
    runs: RUNS,
    baselineName: 'node -e 0 (CPU)',
    baselineMedianMs: floor.cpuMs,
    speedup: s.cpuMs > 0 ? floor.cpuMs / s.cpuMs : Number.POSITIVE_INFINITY,
    extra: {
      ...extra,
      xNode: Number((s.cpuMs / floor.cpuMs).toFixed(2)),
      wallMs: Number(s.wallMs.toFixed(0)),
      wallXNode: Number((s.wallMs / floor.wallMs).toFixed(2)),
    },
  };
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(CLI)) throw new Error('bench: dist/cli.js is missing; run `npm run build` first');
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-counted-'));
  try {
    const rows: BenchRow[] = [];
    // Interleaved, so a busy moment on the machine lands on every figure alike.
    const floor: Sample[] = [];
    const help: Sample[] = [];
    const bySize = new Map<number, { readonly counted: Sample[]; readonly uncounted: Sample[]; readonly verify: Sample[] }>();
    const paths = new Map<number, string>();
    for (const n of SIZES) {
      const path = join(dir, `s${n}.jsonl`);
      await writeLongSession(path, n, dir);
      paths.set(n, path);
      bySize.set(n, { counted: [], uncounted: [], verify: [] });
      sample([CLI, 'budget', path]); // writes the counts the "with counts" runs read
    }
    const drop = (path: string) => () => rmSync(countsSidecarPath(path), { force: true });
    for (let i = 0; i < RUNS; i++) {
      floor.push(sample(['-e', '0']));
      help.push(sample([CLI, '--help']));
      for (const n of SIZES) {
        const path = paths.get(n) ?? '';
        const s = bySize.get(n);
        if (s === undefined) continue;
        s.counted.push(sample([CLI, 'budget', path]));
        // Reading and checking the session alone: the floor under any command on it.
        s.verify.push(sample([CLI, 'verify', path], undefined, true));
        // Without counts: the sidecar is removed first, so the run tokenizes the history (and writes the counts again).
        s.uncounted.push(sample([CLI, 'budget', path], drop(path)));
        // Leave the counts in place for the next "with counts" run.
        sample([CLI, 'budget', path]);
      }
    }
    const f = medians(floor);
    rows.push(row('node -e 0', f, f));
    rows.push(row('capsule --help', medians(help), f, { goalXNode: HELP_GOAL_X_NODE }));
    for (const n of SIZES) {
      const s = bySize.get(n);
      if (s === undefined) continue;
      const label = n.toLocaleString('en-US');
      const counted = medians(s.counted);
      const uncounted = medians(s.uncounted);
      const verify = medians(s.verify);
      rows.push(
        row(`capsule budget, counts persisted (${label} entries)`, counted, f, {
          goalXNode: BUDGET_GOAL_X_NODE,
          vsVerify: Number((counted.cpuMs / verify.cpuMs).toFixed(2)),
        }),
      );
      rows.push(row(`capsule budget, no counts yet (${label} entries)`, uncounted, f, { vsCounted: Number((uncounted.cpuMs / counted.cpuMs).toFixed(2)) }));
      rows.push(row(`capsule verify, the load alone (${label} entries)`, verify, f));
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}
