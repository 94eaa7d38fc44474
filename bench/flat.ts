// Benchmark: per-turn costs against session length (1k–1M entries, a capsule every 400): a whole turn, the meter and the Checkpoints tree refresh per appended entry, the chat snapshot, each as a ratio to `node -e 0` measured in the same run (and the views' former whole-branch folds beside them).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, type BenchRow } from './lib.js';
import { startFakeOpenAI } from '../test/fakes/openaiServer.js';
import { agentResponder, openSession } from '../test/unit/agent/agentHelpers.js';
import { writeLongSession } from '../test/support/longSession.js';
import { spanSinceCapsule } from '../src/engine/compaction/cut.js';
import { planOfBranch } from '../src/engine/compaction/ledger.js';
import { planFigureOf } from '../src/engine/compaction/planFigure.js';
import { momentIndexOf } from '../src/engine/transcript/momentIndex.js';
import { momentsOf } from '../src/engine/transcript/moments.js';
import type { SessionTree } from '../src/engine/transcript/tree.js';
import { TranscriptView } from '../src/vscode/projection/transcriptView.js';
import { pageOf } from '../src/vscode/projection/transcriptItems.js';
import { newestPage } from '../src/vscode/views/treePages.js';

/** Sizes and runs; CAPSULE_BENCH_FLAT_MAX caps the largest size (e.g. 100000 on a small machine). */
const PLAN: readonly { readonly entries: number; readonly turns: number; readonly refreshRuns: number }[] = [
  // A turn costs milliseconds at every size (what costs at 1M is writing the session and the former folds), so every
  // size runs enough turns for a median that one garbage collection does not move.
  { entries: 1_000, turns: 15, refreshRuns: 9 },
  { entries: 10_000, turns: 15, refreshRuns: 9 },
  { entries: 100_000, turns: 15, refreshRuns: 5 },
  { entries: 1_000_000, turns: 15, refreshRuns: 3 },
];

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
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

/** A row whose ratio is to the floor of this run (`x floor`: the cost in empty Node starts). */
function row(name: string, ms: number, runs: number, floorMs: number, extra: Readonly<Record<string, number | string>>): BenchRow {
  return {
    name,
    medianMs: ms,
    runs,
    baselineName: 'node -e 0',
    baselineMedianMs: floorMs,
    speedup: ms > 0 ? floorMs / ms : Number.POSITIVE_INFINITY,
    extra: { ...extra, xFloor: Number((ms / floorMs).toFixed(3)) },
  };
}

/** What the Checkpoints tree reads on a refresh of the open chat (src/vscode/views/checkpointsTree.ts): its newest page of moments. */
export function treeRefresh(tree: SessionTree): number {
  const page = newestPage(momentIndexOf(tree));
  return page.moments.filter((m) => m.message !== undefined && page.summarized(m.message.id)).length + page.others;
}

/** The test context openSession's temp-dir helper is not used here: the bench cleans up itself. */
async function measure(n: number, turns: number, refreshRuns: number, floorMs: number): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-flat-'));
  const server = await startFakeOpenAI({ window: 128_000 });
  try {
    await writeFile(join(dir, 'notes.txt'), 'a small file the agent reads\n');
    const path = join(dir, 'chat.jsonl');
    await writeLongSession(path, n, dir);
    server.setFallback(agentResponder(() => [{ name: 'read_file', arguments: { path: 'notes.txt' } }], 'It is a small file.'));
    const { session } = await openSession(server, dir, { sessionPath: path, window: 128_000, maxOutput: 4096, settings: {} });
    try {
      const label = n.toLocaleString('en-US');
      const store = session.store;
      const basis = session.basis();
      const view = new TranscriptView();
      // The open chat's views exist before the turns: the tree and the chat are built once when the chat opens.
      treeRefresh(store.tree);
      view.page(store, basis);
      const meter: number[] = [];
      const tree: number[] = [];
      const unlisten = session.store.onAppended(() => {
        meter.push(timed(() => session.budget()));
        tree.push(timed(() => treeRefresh(store.tree)));
      });
      const snapshot: number[] = [];
      const turn = async (): Promise<number> => {
        const t0 = performance.now();
        const r = await session.agent.runTurn({ userText: 'read the notes', signal: new AbortController().signal });
        if (r.status !== 'completed') throw new Error(`bench turn ${r.status}: ${r.error ?? ''}`);
        const ms = performance.now() - t0;
        // A snapshot as the chat sends it (src/vscode/projection/chatProjection.ts): its page serialized (cards built), and the plan.
        snapshot.push(timed(() => JSON.stringify({ transcript: view.page(store, basis), plan: planFigureOf(store.tree).plan() })));
        return ms;
      };
      await turn(); // the first turn writes the session's model entry and epoch base: not per-turn work
      meter.length = 0;
      tree.length = 0;
      snapshot.length = 0;
      const turnMs: number[] = [];
      for (let i = 0; i < turns; i++) turnMs.push(await turn());
      unlisten();
      // For comparison, in the same run: what both views did before (a fold of the whole branch, and of the whole tree).
      const treeBefore = median(
        Array.from({ length: refreshRuns }, () =>
          timed(() => {
            const own = store.tree.entries().filter((e) => e.subagent === undefined);
            const branch = store.tree.branch();
            momentsOf(own, branch);
            spanSinceCapsule(branch);
          }),
        ),
      );
      const snapshotBefore = median(
        Array.from({ length: refreshRuns }, () =>
          timed(() => {
            JSON.stringify({ transcript: pageOf(view.items(store, basis)), plan: planOfBranch(store.tree.branch()) });
          }),
        ),
      );
      const extra = { entries: store.entries().length };
      return [
        row(`whole turn, instant model (${label} entries)`, median(turnMs), turns, floorMs, extra),
        row(`meter per appended entry (${label} entries)`, median(meter), meter.length, floorMs, extra),
        row(`Checkpoints tree refresh per appended entry (${label} entries)`, median(tree), tree.length, floorMs, extra),
        row(`chat snapshot page + plan (${label} entries)`, median(snapshot), snapshot.length, floorMs, extra),
        row(`before: tree refresh, whole-tree fold (${label} entries)`, treeBefore, refreshRuns, floorMs, extra),
        row(`before: chat snapshot, whole-branch fold (${label} entries)`, snapshotBefore, refreshRuns, floorMs, extra),
      ];
    } finally {
      await session.close();
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

export async function run(): Promise<BenchRow[]> {
  const max = Number(process.env.CAPSULE_BENCH_FLAT_MAX ?? Number.POSITIVE_INFINITY);
  const rows: BenchRow[] = [];
  const floorMs = nodeFloor(9);
  for (const p of PLAN) {
    if (p.entries > max) continue;
    rows.push(...(await measure(p.entries, p.turns, p.refreshRuns, floorMs)));
    await new Promise((r) => setImmediate(r));
  }
  // Growth from 10k to the largest size measured: the goal is ≤ 1.5× for every per-turn row.
  const at = (prefix: string, n: number): BenchRow | undefined =>
    rows.find((r) => r.name.startsWith(prefix) && r.name.includes(`(${n.toLocaleString('en-US')} entries)`));
  const largest = Math.max(...PLAN.filter((p) => p.entries <= max).map((p) => p.entries));
  for (const prefix of [
    'whole turn',
    'meter per appended entry',
    'Checkpoints tree refresh',
    'chat snapshot',
    'before: tree refresh',
    'before: chat snapshot',
  ]) {
    const a = at(prefix, 10_000);
    const b = at(prefix, largest);
    if (a !== undefined && b !== undefined && largest > 10_000)
      rows.push({
        name: `${prefix}: ${largest.toLocaleString('en-US')} vs 10,000 entries`,
        medianMs: b.medianMs,
        runs: b.runs,
        baselineName: '10,000 entries',
        baselineMedianMs: a.medianMs,
        speedup: a.medianMs / b.medianMs,
        extra: { growth: Number((b.medianMs / a.medianMs).toFixed(2)) },
      });
  }
  return rows;
}
