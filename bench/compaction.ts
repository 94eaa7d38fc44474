// Benchmark: non-LLM compaction overhead (plan, ledger, fallback capsule, evidence archive write; and runCompaction end to end) vs re-tokenizing the same branch.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCompaction } from '../src/engine/compaction/compactor.js';
import { planCut, isNothingToCompact, type CutPlan } from '../src/engine/compaction/cut.js';
import { makePlan } from '../src/engine/compaction/plan.js';
import { buildFallbackCapsule } from '../src/engine/compaction/fallback.js';
import { buildLedger, EMPTY_LEDGER, type Ledger } from '../src/engine/compaction/ledger.js';
import type { ToolSchema, TranscriptStore } from '../src/engine/ports.js';
import { EntryTokenCache } from '../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../src/engine/tokens/estimate.js';
import { counterForModel } from '../src/node/tokenCounter.js';
import { buildModelInput, toModelMessage, type ModelMessage } from '../src/engine/transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../src/engine/transcript/schema.js';
import { reachableTail } from '../src/engine/transcript/tail.js';
import { SessionTree } from '../src/engine/transcript/tree.js';
import { LEDGER_DETAILS_KEY, ledgerFromDetails } from '../src/engine/compaction/ledger.js';
import { FileEvidenceArchive } from '../src/node/evidenceArchive.js';
import { compare, median, type BenchRow } from './lib.js';

const SYSTEM = "You are Capsule, a coding agent working in the user's VS Code workspace. Be precise and brief.";
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a workspace file', parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } } },
  {
    name: 'edit_file',
    description: 'Edit a workspace file',
    parameters: { type: 'object', required: ['path', 'patch'], properties: { path: { type: 'string' }, patch: { type: 'string' } } },
  },
  {
    name: 'run_command',
    description: 'Run a shell command',
    parameters: { type: 'object', required: ['command'], properties: { command: { type: 'string' } } },
  },
];
const MAX_OUTPUT = 8000;
const KEEP_RECENT = 20_000;
const WORDS =
  'const let function return await async import export from type interface value index parse render token cache entry branch capsule module test build error file path config update fix string number array object promise'.split(
    ' ',
  );

/** Deterministic, varied text so every run benchmarks the same session and the tokenizer's caches do not make it free. */
class TextSource {
  #seed = 20250101;
  words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      this.#seed = (Math.imul(this.#seed, 1103515245) + 12345) >>> 0;
      const w = WORDS[this.#seed % WORDS.length] ?? 'x';
      out.push(this.#seed % 5 === 0 ? `${w}${this.#seed % 997}` : w);
    }
    return out.join(' ');
  }
  code(lines: number): string {
    return Array.from({ length: lines }, (_, i) => `${String(i + 1).padStart(4)}  ${this.words(9)};`).join('\n');
  }
}

/** An entry before it is linked into the chain. */
type Draft = Entry extends infer E ? (E extends Entry ? Omit<E, 'id' | 'parentId' | 'timestamp'> : never) : never;

/** A long agent session: each turn asks, reads a file, edits it, runs the tests, answers (about 1.2k tokens). */
function makeSession(targetTokens: number, tokensOf: (e: Entry) => number): { entries: Entry[]; tokens: number; lastTurn: string } {
  const text = new TextSource();
  const entries: Entry[] = [];
  let n = 0;
  let tokens = 0;
  let turn = 0;
  const add = (e: Draft): void => {
    n++;
    const full = { ...e, id: `e${n}`, parentId: entries.at(-1)?.id ?? null, timestamp: new Date(1_735_689_600_000 + n * 1000).toISOString() } as Entry;
    entries.push(full);
    tokens += tokensOf(full);
  };
  while (tokens < targetTokens) {
    turn++;
    const turnId = `t${turn}`;
    const file = `src/area${turn % 37}/module${turn}.ts`;
    add({ type: 'user', content: `Please fix the ${text.words(12)} in ${file}.`, turnId });
    add({ type: 'assistant', content: '', toolCalls: [{ id: `r${turn}`, name: 'read_file', arguments: JSON.stringify({ path: file }) }], turnId });
    add({ type: 'tool_result', toolCallId: `r${turn}`, toolName: 'read_file', content: text.code(60), isError: false, turnId });
    add({
      type: 'assistant',
      content: '',
      toolCalls: [{ id: `w${turn}`, name: 'edit_file', arguments: JSON.stringify({ path: file, patch: text.words(30) }) }],
      turnId,
    });
    add({ type: 'tool_result', toolCallId: `w${turn}`, toolName: 'edit_file', content: `Edited ${file}`, isError: false, turnId });
    add({ type: 'assistant', content: '', toolCalls: [{ id: `c${turn}`, name: 'run_command', arguments: JSON.stringify({ command: 'npm test' }) }], turnId });
    add({
      type: 'tool_result',
      toolCallId: `c${turn}`,
      toolName: 'run_command',
      content: `exit code ${turn % 4 === 0 ? 1 : 0}\n${text.code(8)}`,
      isError: false,
      turnId,
    });
    add({ type: 'assistant', content: `Fixed ${file}: ${text.words(25)}`, toolCalls: [], turnId });
  }
  return { entries, tokens, lastTurn: `t${turn}` };
}

/** What the compactor archives as excluded: the summarized entries that are not pinned, as model messages. */
function excluded(cut: CutPlan): ModelMessage[] {
  const pinned = new Set(cut.pinnedEntryIds);
  return cut.summarize.flatMap((e) => {
    const m = pinned.has(e.id) ? undefined : toModelMessage(e);
    return m ? [m] : [];
  });
}

interface Phases {
  readonly planMs: number;
  readonly ledgerMs: number;
  readonly fallbackMs: number;
  readonly archiveMs: number;
  readonly totalMs: number;
  /** CPU time of the process over the whole compaction (user + system): steadier than wall time on a shared machine. */
  readonly cpuMs: number;
  readonly capsuleTokens: number;
}

/**
 * One compaction without the model, phase by phase, as runCompaction does it with a warm token cache (counts are
 * cached by entry id when entries are appended). `branch` is a fresh copy per run: what the engine memoizes on the
 * entry objects themselves (parsed tool calls, result statuses) is cold, as at a session's first compaction.
 */
async function compactOnce(branch: readonly Entry[], cache: EntryTokenCache, lastTurn: string, archive: FileEvidenceArchive, op: number): Promise<Phases> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const cut = planCut({ branch, tokensOf: (e) => cache.tokensOf(e), keepRecentTokens: KEEP_RECENT, level: 0, activeTurnId: lastTurn });
  if (isNothingToCompact(cut)) throw new Error(`bench session has nothing to compact: ${cut.reason}`);
  const t1 = performance.now();
  const firstAsk = branch.find((e) => e.type === 'user');
  const previous: Ledger = { ...EMPTY_LEDGER, originalTask: firstAsk?.type === 'user' ? firstAsk.content : null };
  const ledger = buildLedger([...cut.summarize, ...cut.kept], previous);
  const t2 = performance.now();
  // A reason of its own per run, so no run reuses the count of an earlier run's identical capsule text.
  const capsule = buildFallbackCapsule({ span: cut.summarize, ledger, reason: `benchmark run ${op}: no summarizer model` });
  const capsuleTokens = cache.capsulePair(capsule.text);
  const t3 = performance.now();
  await archive.save({
    operationId: `op_bench${op}`,
    checkpointId: `ck_bench${op}`,
    createdAt: new Date(0).toISOString(),
    excluded: excluded(cut),
    summarizerInput: [],
  });
  const t4 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return {
    planMs: t1 - t0,
    ledgerMs: t2 - t1,
    fallbackMs: t3 - t2,
    archiveMs: t4 - t3,
    totalMs: t4 - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    capsuleTokens,
  };
}

/**
 * The same session after an earlier compaction: a new base instruction and a capsule that kept the last ~60k
 * tokens. A later compaction reads only the reachable tail (the span since that capsule) and the capsule's ledger.
 */
function withPreviousCapsule(entries: readonly Entry[], tokensOf: (e: Entry) => number): SessionTree {
  const tree = SessionTree.from(entries);
  let kept = 0;
  let first = entries.length - 1;
  while (first > 0 && kept < 60_000) kept += tokensOf(entries[first--] as Entry);
  const firstKept = entries[first + 1];
  const last = entries.at(-1);
  if (!firstKept || !last) throw new Error('bench session too small');
  const base: Entry = { type: 'system_update', id: 'sys_later', parentId: last.id, timestamp: last.timestamp, mode: 'base', content: SYSTEM };
  const capsule: CapsuleEntry = {
    type: 'capsule',
    id: 'cap_prev',
    parentId: base.id,
    timestamp: last.timestamp,
    summary: 'Earlier work, summarized.',
    firstKeptEntryId: firstKept.id,
    pinnedEntryIds: [],
    tokensBefore: 0,
    tokensAfter: 0,
    trigger: 'auto_threshold',
    level: 0,
    quality: 'full',
    truncateResults: false,
    checkpointId: 'ck_prev',
    details: { [LEDGER_DETAILS_KEY]: buildLedger(entries.slice(0, first + 1)) },
  };
  tree.add(base);
  tree.add(capsule);
  return tree;
}

/** A later compaction as runCompaction does it: plan from the reachable tail, ledger rolled from the previous one. */
async function compactLater(tree: SessionTree, cache: EntryTokenCache, archive: FileEvidenceArchive, op: number): Promise<number> {
  const t0 = performance.now();
  const tail = reachableTail(tree, tree.leafId);
  const cut = planCut({ branch: tail, tokensOf: (e) => cache.tokensOf(e), keepRecentTokens: KEEP_RECENT, level: 0 });
  if (isNothingToCompact(cut) || !cut.previousCapsule) throw new Error('bench: the later compaction has nothing to compact');
  const ledger = buildLedger([...cut.summarize, ...cut.kept], ledgerFromDetails(cut.previousCapsule.details));
  const capsule = buildFallbackCapsule({
    span: cut.summarize,
    previousCapsule: cut.previousCapsule,
    ledger,
    reason: `benchmark run ${op}: no summarizer model`,
  });
  cache.capsulePair(capsule.text);
  await archive.save({
    operationId: `op_later${op}`,
    checkpointId: `ck_later${op}`,
    createdAt: new Date(0).toISOString(),
    excluded: excluded(cut),
    summarizerInput: [],
  });
  return performance.now() - t0;
}

/** A session held in memory: appends go to the tree, nothing is written (the JSONL store is measured by the load bench). */
function memoryStore(entries: readonly Entry[]): TranscriptStore {
  const tree = SessionTree.from(entries);
  return {
    header: { type: 'session', version: 1, id: 's_bench', createdAt: new Date(0).toISOString(), cwd: '/bench' },
    readOnly: false,
    entries: () => tree.entries(),
    leafId: () => tree.leafId,
    get: (id) => tree.get(id),
    append: async (e) => {
      tree.add(e);
    },
    close: async () => undefined,
  };
}

/**
 * The real apply step, as `capsule compact --fallback` runs it: runCompaction with no summarizer model. Each run
 * gets its own token cache, warmed with the entries outside the timing (as appends do), so the capsule's count is
 * not remembered from the run before.
 */
async function runFallback(branch: readonly Entry[], lastTurn: string, archive: FileEvidenceArchive, op: number): Promise<number> {
  const store = memoryStore(branch);
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  for (const e of branch) cache.tokensOf(e);
  let n = 0;
  const t0 = performance.now();
  const plan = makePlan({
    operationId: `op_e2e${op}`,
    trigger: 'user',
    mandatory: false,
    roiExempt: true,
    branch,
    leafAtPlan: store.leafId(),
    level: 0,
    tokensOf: (e) => cache.tokensOf(e),
    tokensBefore: 0,
    tokensSource: 'estimated',
    limits: { contextWindow: 1_000_000, hardLimit: 900_000, softLimit: 800_000 },
    keepRecentTokens: KEEP_RECENT,
    turnId: lastTurn,
  });
  const outcome = await runCompaction(
    {
      store,
      archive,
      cache,
      tools: TOOLS,
      defaultSystem: SYSTEM,
      maxOutputTokens: MAX_OUTPUT,
      clock: { now: () => 0, sleep: async () => undefined },
      ids: { next: (prefix) => `${prefix}${op}_${++n}` },
      settings: { timeoutMs: 60_000, minReclaimableTokens: 0, minSavingsRatio: 0 },
    },
    plan,
    new AbortController().signal,
  );
  const ms = performance.now() - t0;
  if (outcome.outcome !== 'completed')
    throw new Error(`bench: the end-to-end compaction ended ${outcome.outcome}: ${'reason' in outcome ? outcome.reason : ''}`);
  return ms;
}

/** The baseline: one full estimate of the same branch with a fresh cache, i.e. re-tokenizing every message. */
function reTokenize(branch: readonly Entry[]): number {
  const t0 = performance.now();
  estimateRequest(buildModelInput(branch, SYSTEM), TOOLS, new EntryTokenCache(counterForModel('gpt-4o')), MAX_OUTPUT);
  return performance.now() - t0;
}

/** Sizes with run counts; fewer for 1M so the whole benchmark stays well under a minute on a shared 2-core machine. */
const PLAN: readonly { readonly label: string; readonly tokens: number; readonly runs: number; readonly baselineRuns: number }[] = [
  { label: '50k', tokens: 50_000, runs: 9, baselineRuns: 5 },
  { label: '200k', tokens: 200_000, runs: 7, baselineRuns: 5 },
  { label: '1M', tokens: 1_000_000, runs: 5, baselineRuns: 3 },
];

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'capsule-bench-compaction-'));
  try {
    let op = 0;
    for (const p of PLAN) {
      const cache = new EntryTokenCache(counterForModel('gpt-4o'));
      const { entries, tokens, lastTurn } = makeSession(p.tokens, (e) => cache.tokensOf(e));
      const archive = new FileEvidenceArchive(join(dir, p.label));
      await compactOnce(entries, cache, lastTurn, archive, ++op); // JIT and file-system warm-up, unmeasured
      const phases: Phases[] = [];
      for (let i = 0; i < p.runs; i++) phases.push(await compactOnce(structuredClone(entries), cache, lastTurn, archive, ++op));
      const baseline = Array.from({ length: p.baselineRuns }, () => reTokenize(entries));
      const stringify = Array.from({ length: p.runs }, () => {
        const t0 = performance.now();
        JSON.stringify(entries);
        return performance.now() - t0;
      });
      const m = (k: keyof Phases): number => Number(median(phases.map((x) => x[k])).toFixed(3));
      const snapshot = await stat(join(dir, p.label, `op_bench${op}.json`));
      rows.push(
        compare(
          `compaction overhead without the model, ${p.label} tokens (plan + ledger + fallback capsule + archive write)`,
          m('totalMs'),
          're-tokenize the whole branch (fresh cache)',
          median(baseline),
          p.runs,
          {
            tokens,
            entries: entries.length,
            baselineRuns: p.baselineRuns,
            planMs: m('planMs'),
            ledgerMs: m('ledgerMs'),
            fallbackCapsuleMs: m('fallbackMs'),
            archiveWriteMs: m('archiveMs'),
            cpuMs: m('cpuMs'),
            jsonStringifyBranchMs: Number(median(stringify).toFixed(3)),
            capsuleTokens: m('capsuleTokens'),
            archiveKb: Math.round(snapshot.size / 1024),
          },
        ),
      );
      const later = withPreviousCapsule(entries, (e) => cache.tokensOf(e));
      await compactLater(later, cache, archive, ++op); // warm-up, unmeasured
      const laterMs: number[] = [];
      // A fresh copy of the session each run: nothing memoized on the entries carries over from the run before.
      for (let i = 0; i < p.runs; i++)
        laterMs.push(
          await compactLater(
            withPreviousCapsule(structuredClone(entries), (e) => cache.tokensOf(e)),
            cache,
            archive,
            ++op,
          ),
        );
      rows.push(
        compare(
          `later compaction without the model, ${p.label}-token session, previous capsule kept ~60k (plan from the tail + ledger + fallback + archive)`,
          Number(median(laterMs).toFixed(3)),
          'first compaction of the same session (row above)',
          m('totalMs'),
          p.runs,
          {
            tailEntries: reachableTail(later, later.leafId).length,
            branchEntries: later.branch().length,
          },
        ),
      );
      const endToEnd: number[] = [];
      await runFallback(structuredClone(entries), lastTurn, archive, ++op); // warm-up, unmeasured
      for (let i = 0; i < p.runs; i++) endToEnd.push(await runFallback(structuredClone(entries), lastTurn, archive, ++op));
      rows.push(
        compare(
          `runCompaction end to end without the model, ${p.label} tokens (fallback capsule, retention, exact re-measure, archive; session file in memory)`,
          Number(median(endToEnd).toFixed(3)),
          'first compaction by phases (row above the later one)',
          m('totalMs'),
          p.runs,
        ),
      );
      await Promise.resolve(); // let the event loop breathe between sizes
    }
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
  return rows;
}
