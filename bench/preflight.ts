// Benchmark: a preflight estimate after one new entry with a warm EntryTokenCache vs re-tokenizing the whole branch.
import { compare, median, type BenchRow } from './lib.js';
import type { ToolSchema } from '../src/engine/ports.js';
import { EntryTokenCache } from '../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../src/engine/tokens/estimate.js';
import { counterForModel } from '../src/node/tokenCounter.js';
import { buildModelInput } from '../src/engine/transcript/modelInput.js';
import type { Entry } from '../src/engine/transcript/schema.js';

const SYSTEM = 'You are Capsule, a coding agent working in the user\'s VS Code workspace. Be precise and brief.';
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a workspace file', parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } } },
  { name: 'run_command', description: 'Run a shell command', parameters: { type: 'object', required: ['command'], properties: { command: { type: 'string' } } } },
];
const WORDS = 'the a function returns value module test build error file path config update fix import export const let async await promise string number array object index src lib util parse render token cache entry branch capsule'.split(' ');

/** Deterministic text so runs are comparable, varied enough that the tokenizer's merge cache does not make it free. */
class TextSource {
  #seed = 12345;
  words(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      this.#seed = (Math.imul(this.#seed, 1103515245) + 12345) >>> 0;
      const w = WORDS[this.#seed % WORDS.length] ?? 'x';
      out.push(this.#seed % 7 === 0 ? `${w}${this.#seed % 1000}` : w);
    }
    return out.join(' ');
  }
}

class SessionGen {
  readonly entries: Entry[] = [];
  readonly #text = new TextSource();
  #n = 0;

  #base(): { id: string; parentId: string | null; timestamp: string } {
    this.#n++;
    return { id: `e${this.#n}`, parentId: this.entries.at(-1)?.id ?? null, timestamp: new Date(1_700_000_000_000 + this.#n * 1000).toISOString() };
  }

  /** One entry of a typical agent turn: user ask, tool call, tool result (the bulk), short answer. */
  next(): Entry {
    const k = this.#n % 4;
    const base = this.#base();
    const e: Entry =
      k === 0
        ? { ...base, type: 'user', content: this.#text.words(20) }
        : k === 1
          ? { ...base, type: 'assistant', content: this.#text.words(10), toolCalls: [{ id: `call_${this.#n}`, name: 'read_file', arguments: `{"path":"src/m${this.#n % 97}.ts"}` }] }
          : k === 2
            ? { ...base, type: 'tool_result', toolCallId: `call_${this.#n - 1}`, toolName: 'read_file', content: this.#text.words(120), isError: false }
            : { ...base, type: 'assistant', content: this.#text.words(30), toolCalls: [] };
    this.entries.push(e);
    return e;
  }
}

interface Timing {
  readonly buildMs: number;
  readonly estimateMs: number;
  readonly calls: number;
}

/** One preflight after one new entry: build the model input (same cost either way), then estimate it. */
function preflight(gen: SessionGen, cache: () => EntryTokenCache): Timing {
  gen.next();
  const c = cache();
  const calls0 = c.counter.calls;
  const t0 = performance.now();
  const input = buildModelInput(gen.entries, SYSTEM);
  const t1 = performance.now();
  estimateRequest(input, TOOLS, c, 4096);
  const t2 = performance.now();
  return { buildMs: t1 - t0, estimateMs: t2 - t1, calls: c.counter.calls - calls0 };
}

function repeat(runs: number, fn: () => Timing): Timing[] {
  return Array.from({ length: runs }, fn);
}

/** Sizes with run counts: fewer for 100k so the whole benchmark stays around a minute on a shared 2-core machine. */
const PLAN: readonly { readonly entries: number; readonly warmRuns: number; readonly coldRuns: number }[] = [
  { entries: 1_000, warmRuns: 21, coldRuns: 9 },
  { entries: 10_000, warmRuns: 15, coldRuns: 5 },
  { entries: 100_000, warmRuns: 9, coldRuns: 3 },
];

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const p of PLAN) {
    const gen = new SessionGen();
    while (gen.entries.length < p.entries) gen.next();
    const warmCache = new EntryTokenCache(counterForModel('gpt-4o'));
    estimateRequest(buildModelInput(gen.entries, SYSTEM), TOOLS, warmCache, 4096);
    preflight(gen, () => warmCache); // JIT warm-up, unmeasured

    const warm = repeat(p.warmRuns, () => preflight(gen, () => warmCache));
    const cold = repeat(p.coldRuns, () => preflight(gen, () => new EntryTokenCache(counterForModel('gpt-4o'))));
    const est = (ts: readonly Timing[]): number => median(ts.map((t) => t.estimateMs));
    const build = (ts: readonly Timing[]): number => median(ts.map((t) => t.buildMs));
    rows.push(
      compare(`token estimate after 1 new entry, warm cache (${p.entries.toLocaleString('en-US')} entries)`, est(warm), 're-tokenize the whole branch (fresh cache)', est(cold), p.warmRuns, {
        entries: p.entries,
        baselineRuns: p.coldRuns,
        tokenizerCallsWarm: median(warm.map((t) => t.calls)),
        tokenizerCallsCold: median(cold.map((t) => t.calls)),
        buildModelInputMs: Number(build(warm).toFixed(3)),
        preflightWithBuildMs: Number((est(warm) + build(warm)).toFixed(3)),
      }),
    );
    await Promise.resolve(); // let the event loop breathe between sizes
  }
  return rows;
}
