// Test helper for the seed scenarios: a barrier over any TranscriptStore, a scripted agent model that only gets what the barrier allows, and layouts.
import { PreflightBarrier, type BarrierEvent, type PreflightResult } from '../../../src/engine/compaction/barrier.js';
import { BranchReader } from '../../../src/engine/compaction/branchReader.js';
import { TriggerState } from '../../../src/engine/compaction/triggers.js';
import { resolveSettings, type CompactionSettings } from '../../../src/engine/config.js';
import type { ChatModel, ChatRequest, EvidenceArchive, TranscriptStore } from '../../../src/engine/ports.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { counterForModel, type TokenCounter } from '../../../src/node/tokenCounter.js';
import { buildModelInput, type ModelInput } from '../../../src/engine/transcript/modelInput.js';
import { lines, TOOLS } from './harness.js';
import { fakeClock, MemoryArchive, ScriptedModel, seqIds } from './memoryStore.js';
import type { SessionBuilder } from './sessionBuilder.js';

export const SYSTEM = "You are Capsule, a coding agent working in the user's VS Code workspace.";

export interface RigOptions {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** Raw settings; anything left out takes the product default (docs/behaviour.md#settings). */
  readonly settings?: Partial<CompactionSettings>;
  /** The summarizer; undefined means the deterministic fallback capsule. */
  readonly summarizer?: ChatModel;
  readonly archive?: EvidenceArchive;
  readonly defaultSystem?: string;
  /** Sees every barrier event as it is emitted (tests inject aborts and leaf changes here). */
  readonly onEvent?: (e: BarrierEvent) => void;
  /** The tokenizer; gpt-4o's by default. */
  readonly counter?: TokenCounter;
}

/** What one turn's request looked like, when the barrier let it go. */
export interface Sent {
  readonly request: ChatRequest;
  readonly input: ModelInput;
  /** estimateRequest(...).total of exactly what was sent. */
  readonly tokens: number;
}

export function rig(store: TranscriptStore, o: RigOptions) {
  const cache = new EntryTokenCache(o.counter ?? counterForModel('gpt-4o'));
  const resolved = resolveSettings({ raw: { ...o.settings }, env: {}, model: { contextWindow: o.contextWindow, maxOutputTokens: o.maxOutputTokens } });
  if (resolved.errors.length > 0) throw new Error(resolved.errors.join('; '));
  const events: BarrierEvent[] = [];
  const defaultSystem = o.defaultSystem ?? SYSTEM;
  const barrier = new PreflightBarrier({
    store,
    archive: o.archive ?? new MemoryArchive(),
    clock: fakeClock(),
    ids: seqIds(),
    cache,
    ...(o.summarizer ? { model: o.summarizer } : {}),
    tools: TOOLS,
    defaultSystem,
    resolved,
    modelInfo: { provider: 'fake', model: 'gpt-4o', contextWindow: o.contextWindow, maxOutputTokens: o.maxOutputTokens },
    triggers: new TriggerState(),
    listener: (e) => {
      events.push(e);
      o.onEvent?.(e);
    },
  });
  /** The turn's own model: it receives a request only when the barrier says the request may go. */
  const agent = new ScriptedModel([{ text: 'Continuing with the task.' }]);
  const branches = new BranchReader(store);
  const inputNow = (): ModelInput => buildModelInput(branches.branch(), defaultSystem);
  const tokensOf = (input: ModelInput): number => estimateRequest(input, TOOLS, cache, o.maxOutputTokens).total;

  /** One inference of the agent loop: preflight, then send exactly what the store's branch builds, or nothing. */
  async function infer(turnId: string | undefined, signal: AbortSignal = new AbortController().signal): Promise<{ result: PreflightResult; sent?: Sent }> {
    const result = await barrier.preflight({ signal, ...(turnId === undefined ? {} : { turnId }) });
    // A cancelled turn sends nothing, whatever the barrier concluded.
    if (!result.mayProceed || signal.aborted) return { result };
    const input = inputNow();
    const request: ChatRequest = {
      system: input.system,
      messages: input.messages,
      tools: TOOLS,
      toolChoice: 'auto',
      maxOutputTokens: o.maxOutputTokens,
      stream: true,
    };
    for await (const ev of agent.chat(request, signal)) void ev;
    return { result, sent: { request, input, tokens: tokensOf(input) } };
  }

  return { store, barrier, cache, events, agent, resolved, hardLimit: barrier.limits().hardLimit, defaultSystem, inputNow, tokensOf, infer };
}

/** A tool result of `n` numbered lines, about 16 tokens each. */
export const output = (n: number, tag: string): string => lines(n, tag);

/** Completed earlier turns: ask, read a file, run the tests, answer (about 150 + 16 × readLines tokens each). */
export function earlierTurns(b: SessionBuilder, turns: number, readLines: number): void {
  for (let i = 1; i <= turns; i++) {
    b.user(`Please fix bug #${i} in src/mod${i}.ts`);
    b.assistant('', 10, [{ name: 'read_file', args: { path: `src/mod${i}.ts` }, result: output(readLines, `mod${i}`) }]);
    b.assistant('', 10, [{ name: 'run_command', args: { command: 'npm test' }, result: `exit code 0\n${output(5, `test${i}`)}` }]);
    b.assistant(`Fixed bug #${i} in src/mod${i}.ts.`);
  }
}

/** `count` completed tool exchanges inside the current turn, each a file read of `readLines` lines. */
export function exchanges(b: SessionBuilder, count: number, readLines: number, tag = 'step'): void {
  for (let i = 0; i < count; i++) {
    b.assistant(`Reading the next file (${tag} ${i}).`, 10, [
      { name: 'read_file', args: { path: `src/${tag}${i}.ts` }, result: output(readLines, `${tag}${i}`) },
    ]);
  }
}

/** One assistant message with `calls` parallel reads of `readLines` lines each: one indivisible unit (docs/behaviour.md#cut). */
export function parallelReads(b: SessionBuilder, calls: number, readLines: number, tag: string): void {
  b.assistant(
    `Reading ${calls} files at once.`,
    10,
    Array.from({ length: calls }, (_, i) => ({ name: 'read_file', args: { path: `${tag}/${i}.log` }, result: output(readLines, `${tag}${i}`) })),
  );
}
