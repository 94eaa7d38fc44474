// Runs every benchmark module, prints one table of medians and same-run ratios, and writes bench/results.json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import type { BenchRow } from './lib.js';

interface BenchModule {
  run(): Promise<BenchRow[]>;
}

const MODULES: Readonly<Record<string, () => Promise<BenchModule>>> = {
  preflight: () => import('./preflight.js'),
  flat: () => import('./flat.js'),
  counted: () => import('./counted.js'),
  tail: () => import('./tail.js'),
  load: () => import('./load.js'),
  webview: () => import('./webview.js'),
  compaction: () => import('./compaction.js'),
  activation: () => import('./activation.js'),
  counting: () => import('./counting.js'),
  cache: () => import('./cache.js'),
  vsix: () => import('./vsix.js'),
  snapshots: () => import('./snapshots.js'),
  garbage: () => import('./garbage.js'),
  longTurn: () => import('./longTurn.js'),
  effects: () => import('./effects.js'),
  mcp: () => import('./mcp.js'),
  import: () => import('./import.js'),
};

function fmt(n: number | undefined, digits = 2): string {
  return n === undefined || Number.isNaN(n) ? '' : n.toFixed(digits);
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const results: Record<string, BenchRow[]> = {};
  for (const [name, load] of Object.entries(MODULES)) {
    if (only.length > 0 && !only.includes(name)) continue;
    process.stderr.write(`bench: ${name} ...\n`);
    results[name] = await (await load()).run();
  }
  const rows = Object.entries(results).flatMap(([group, rs]) => rs.map((r) => ({ group, ...r })));
  console.table(
    rows.map((r) => ({
      group: r.group,
      name: r.name,
      'median ms': fmt(r.medianMs, 3),
      runs: r.runs,
      'baseline ms': fmt(r.baselineMedianMs, 3),
      'x faster': fmt(r.speedup, 1),
      extra: r.extra
        ? Object.entries(r.extra)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')
        : '',
    })),
  );
  const out = join(__dirname, 'results.json');
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, results }, null, 2));
  console.log(`wrote ${out}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
