// Benchmark: the preflight after one new entry (tail walk + model input + estimate) at 1k–1M entries, vs the whole-branch build and vs re-tokenizing the branch.
import { compare, median, type BenchRow } from './lib.js';
import type { ToolSchema, TranscriptStore } from '../src/engine/ports.js';
import { BranchReader } from '../src/engine/compaction/branchReader.js';
import { EntryTokenCache } from '../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../src/engine/tokens/estimate.js';
import { countMessage } from '../src/engine/tokens/messageTokens.js';
import { counterForModel } from '../src/node/tokenCounter.js';
import { buildModelInput, toModelMessage } from '../src/engine/transcript/modelInput.js';
import type { Entry } from '../src/engine/transcript/schema.js';
import { SessionTree } from '../src/engine/transcript/tree.js';

const SYSTEM = "You are Capsule, a coding agent working in the user's VS Code workspace. Be precise and brief.";
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a workspace file', parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } } },
  {
    name: 'run_command',
    description: 'Run a shell command',
    parameters: { type: 'object', required: ['command'], properties: { command: { type: 'string' } } },
  },
];
const WORDS =
  'the a function returns value module test build error file path config update fix import export const let async await promise string number array object index src lib util parse render token cache entry branch capsule'.split(
    ' ',
  );
/** A long session compacts now and then: a capsule keeping the last KEEP entries, then a new epoch base. */
const COMPACT_EVERY = 400;
const KEEP = 100;

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
  #turn = 0;

  #base(): { id: string; parentId: string | null; timestamp: string } {
    this.#n++;
    return { id: `e${this.#n}`, parentId: this.entries.at(-1)?.id ?? null, timestamp: new Date(1_700_000_000_000 + this.#n * 1000).toISOString() };
  }

  #push(e: Entry): Entry {
    this.entries.push(e);
    return e;
  }

  /** One entry of a typical agent turn (ask, tool call, tool result, answer); a compaction every COMPACT_EVERY entries. */
  next(): Entry {
    if (this.entries.length > 0 && this.entries.length % COMPACT_EVERY === 0) {
      const keep = this.entries[this.entries.length - KEEP]?.id ?? null;
      this.#push({
        ...this.#base(),
        type: 'capsule',
        summary: this.#text.words(600),
        firstKeptEntryId: keep,
        pinnedEntryIds: [],
        tokensBefore: 1,
        tokensAfter: 1,
        trigger: 'auto_threshold',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: `ck_${this.#n}`,
        details: {},
      });
      return this.#push({ ...this.#base(), type: 'system_update', mode: 'base', content: SYSTEM, reason: 'compaction' });
    }
    const k = this.#turn++ % 4;
    const base = this.#base();
    const e: Entry =
      k === 0
        ? { ...base, type: 'user', content: this.#text.words(12) }
        : k === 1
          ? {
              ...base,
              type: 'assistant',
              content: this.#text.words(8),
              toolCalls: [{ id: `call_${this.#n}`, name: 'read_file', arguments: `{"path":"src/m${this.#n % 97}.ts"}` }],
            }
          : k === 2
            ? { ...base, type: 'tool_result', toolCallId: `call_${this.#n - 1}`, toolName: 'read_file', content: this.#text.words(40), isError: false }
            : { ...base, type: 'assistant', content: this.#text.words(15), toolCalls: [] };
    return this.#push(e);
  }
}

/** The store port as BranchReader reads it: the entries so far and the leaf (always the last entry here). */
function storeOf(gen: SessionGen): TranscriptStore {
  return { entries: () => gen.entries, leafId: () => gen.entries.at(-1)?.id ?? null } as unknown as TranscriptStore;
}

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Re-tokenizing the branch: every message on it counted from scratch, as a preflight without a cache would. */
function retokenize(branch: readonly Entry[]): void {
  const counter = counterForModel('gpt-4o');
  for (const e of branch) {
    const m = toModelMessage(e);
    if (m !== undefined) countMessage(counter, m);
  }
}

const PLAN: readonly { readonly entries: number; readonly runs: number; readonly wholeRuns: number; readonly retokenizeRuns: number }[] = [
  { entries: 1_000, runs: 31, wholeRuns: 15, retokenizeRuns: 5 },
  { entries: 10_000, runs: 31, wholeRuns: 9, retokenizeRuns: 3 },
  { entries: 100_000, runs: 31, wholeRuns: 5, retokenizeRuns: 1 },
  // Re-tokenizing a million entries takes over a minute on these machines: that baseline stops at 100k.
  { entries: 1_000_000, runs: 31, wholeRuns: 3, retokenizeRuns: 0 },
];

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const p of PLAN) {
    const gen = new SessionGen();
    while (gen.entries.length < p.entries) gen.next();
    const reader = new BranchReader(storeOf(gen));
    const cache = new EntryTokenCache(counterForModel('gpt-4o'));
    const preflight = (): number => {
      gen.next();
      return timed(() => estimateRequest(buildModelInput(reader.tail(), SYSTEM), TOOLS, cache, 4096));
    };
    preflight(); // warms the cache and the reader's tree, unmeasured
    preflight();
    const ours = median(Array.from({ length: p.runs }, preflight));
    const calls0 = cache.counter.calls;
    preflight();
    const callsPerPreflight = cache.counter.calls - calls0;
    const tree = SessionTree.from(gen.entries);
    const whole = median(
      Array.from({ length: p.wholeRuns }, () => {
        const e = gen.next();
        tree.add(e);
        return timed(() => estimateRequest(buildModelInput(tree.branch(), SYSTEM), TOOLS, cache, 4096));
      }),
    );
    const tailLength = reader.tail().length;
    const extra = { entries: p.entries, tailEntries: tailLength, tokenizerCallsPerPreflight: callsPerPreflight, wholeBranchBuildMs: Number(whole.toFixed(3)) };
    if (p.retokenizeRuns > 0) {
      const branch = tree.branch();
      const base = median(Array.from({ length: p.retokenizeRuns }, () => timed(() => retokenize(branch))));
      rows.push(
        compare(`preflight after 1 new entry (${p.entries.toLocaleString('en-US')} entries)`, ours, 're-tokenize the branch', base, p.runs, {
          ...extra,
          baselineRuns: p.retokenizeRuns,
        }),
      );
    } else {
      rows.push(
        compare(
          `preflight after 1 new entry (${p.entries.toLocaleString('en-US')} entries)`,
          ours,
          'whole-branch build + estimate (warm cache)',
          whole,
          p.runs,
          extra,
        ),
      );
    }
    await new Promise((r) => setImmediate(r)); // let the event loop breathe between sizes
  }
  return rows;
}
