// Benchmark: `capsule import` of a 100 MB Claude Code session vs `JSON.parse` of its lines in the same run (time and peak RSS / file size, each in its own process).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeClaudeCodeSession } from './importGen.js';
import { median, type BenchRow } from './lib.js';

const ROOT = resolve(__dirname, '..');
/** CAPSULE_BENCH_IMPORT_ROOT measures another checkout (say, the commit before) with this bench and this fixture. */
const TARGET = process.env.CAPSULE_BENCH_IMPORT_ROOT ?? ROOT;
const CLI = join(TARGET, 'dist', 'cli.js');
const MB = 1024 * 1024;
const FIXTURES = join(tmpdir(), 'capsule-bench-import-fixtures');
const RUNS = Number(process.env.CAPSULE_BENCH_IMPORT_RUNS ?? 3);
const SIZE_MB = Number(process.env.CAPSULE_BENCH_IMPORT_MB ?? 100);

/**
 * The floor: JSON.parse of every line, timed alone inside the child (printed as PARSE_MS), with the file already
 * read and split; the child's wall time (reading, splitting and parsing the lines) is reported beside it.
 */
const PARSE_LINES =
  "const t = require('fs').readFileSync(process.argv[1], 'utf8').split('\\n'); const t0 = performance.now(); const c0 = process.cpuUsage(); let n = 0; for (const l of t) if (l !== '') { JSON.parse(l); n++; } const c = process.cpuUsage(c0); process.stderr.write('PARSE_MS=' + (performance.now() - t0) + ' PARSE_CPU_MS=' + (c.user + c.system) / 1000 + '\\n'); if (n === 0) process.exit(2);";

interface Run {
  /** Wall time of the child process. */
  readonly ms: number;
  /** What the child timed itself, if it did. */
  readonly innerMs: number;
  /** CPU time (all threads) of the child, or of what it timed itself: less swayed by other processes than wall time. */
  readonly cpuMs: number;
  readonly rssMb: number;
}

function timed(args: readonly string[], rssFile: string): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', rssFile, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ').slice(0, 200)} failed (${String(r.status)}): ${r.stdout.slice(-500)} ${r.stderr.slice(-500)}`);
  const m = /RSS_KB=(\d+)/.exec(r.stderr);
  const parsed = /PARSE_MS=([\d.]+) PARSE_CPU_MS=([\d.]+)/.exec(r.stderr);
  const cpu = /CPU_MS=([\d.]+)/.exec(r.stderr);
  return {
    ms,
    innerMs: parsed ? Number(parsed[1]) : Number.NaN,
    cpuMs: Number((parsed ? parsed[2] : cpu?.[1]) ?? Number.NaN),
    rssMb: m ? Number(m[1]) / 1024 : Number.NaN,
  };
}

const fixed = (n: number, d = 2): number => Number(n.toFixed(d));

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  mkdirSync(FIXTURES, { recursive: true });
  const session = join(FIXTURES, `claude-code-${SIZE_MB}mb.jsonl`);
  if (!existsSync(`${session}.done`)) {
    await writeClaudeCodeSession(session, SIZE_MB * MB);
    writeFileSync(`${session}.done`, '');
  }
  const fileMb = statSync(session).size / MB;
  const tmp = mkdtempSync(join(tmpdir(), 'capsule-bench-import-'));
  const rssFile = join(tmp, 'rss.cjs');
  writeFileSync(
    rssFile,
    "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write(`RSS_KB=${u.maxRSS} CPU_MS=${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`); });\n",
  );
  try {
    const parse = (): Run => timed(['-e', PARSE_LINES, session], rssFile);
    const imp = (i: number): Run => timed([CLI, 'import', session, '-o', join(tmp, `out${i}.jsonl`)], rssFile);
    parse(); // warm the page cache
    const parses: Run[] = [];
    const imports: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      parses.push(parse());
      imports.push(imp(i));
      rmSync(join(tmp, `out${i}.jsonl`), { force: true });
    }
    const importMs = median(imports.map((r) => r.ms));
    const parseMs = median(parses.map((r) => r.innerMs));
    const readParseMs = median(parses.map((r) => r.ms));
    const importRss = median(imports.map((r) => r.rssMb));
    return [
      {
        name: `capsule import, ${Math.round(fileMb)} MB Claude Code session`,
        medianMs: importMs,
        runs: RUNS,
        baselineName: 'JSON.parse of its lines (lines already in memory)',
        baselineMedianMs: parseMs,
        speedup: parseMs / importMs,
        extra: {
          xJsonParse: fixed(importMs / parseMs),
          // The same ratio in CPU time: the import's process (all its threads) over the parse loop's.
          xJsonParseCpu: fixed(median(imports.map((r) => r.cpuMs)) / median(parses.map((r) => r.cpuMs))),
          xReadSplitParse: fixed(importMs / readParseMs),
          fileMB: Math.round(fileMb),
          peakRssMB: Math.round(importRss),
          rssOverFile: fixed(importRss / fileMb),
          parseRssMB: Math.round(median(parses.map((r) => r.rssMb))),
        },
      },
    ];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  // `node --import tsx bench/import.ts` runs just this benchmark and prints its rows as JSON.
  run().then(
    (rows) => process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
