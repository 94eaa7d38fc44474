// Test helper: realistic sessions (real token counts), the compaction ports wired in memory, and a barrier over them.
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import { PreflightBarrier, type BarrierEvent } from '../../../src/engine/compaction/barrier.js';
import type { CompactionDeps } from '../../../src/engine/compaction/compactor.js';
import type { FlightRecord } from '../../../src/engine/compaction/flightRecord.js';
import { TriggerState } from '../../../src/engine/compaction/triggers.js';
import { resolveSettings, type CompactionSettings, type ResolvedSettings } from '../../../src/engine/config.js';
import type { ChatModel, ToolSchema } from '../../../src/engine/ports.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { fakeClock, MemoryArchive, MemoryStore, seqIds } from './memoryStore.js';

export const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  {
    name: 'run_command',
    description: 'Run a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

export const GOOD_SUMMARY = [
  '## Goal',
  'Fix the failing modules one by one.',
  '## Constraints & Preferences',
  'Keep changes small.',
  '## Progress',
  '### Done',
  '- Read src/mod1.ts and ran the tests.',
  '### In progress',
  '- The latest module.',
  '### Blocked',
  '- Nothing.',
  '## Key Decisions',
  '- Fix in place: because the API must not change.',
  '## Next Steps',
  '- Continue with the next module.',
  '## Critical Context',
  '- Tests run with npm test.',
  '## Relevant Files',
  '- src/mod1.ts: first module fixed.',
].join('\n');

/** `n` lines of tool output, about 12 tokens each. */
export function lines(n: number, tag: string): string {
  return Array.from({ length: n }, (_, i) => `${tag} line ${i}: lorem ipsum dolor sit amet, consectetur adipiscing elit`).join('\n');
}

/** A linear session: each turn reads a file, runs the tests, answers; the last turn may be left open (no final answer). */
export class Chain {
  readonly entries: Entry[] = [];
  private n = 0;
  turnId: string | undefined;

  private base(): { id: string; parentId: string | null; timestamp: string } {
    this.n++;
    return { id: `x${this.n}`, parentId: this.entries[this.entries.length - 1]?.id ?? null, timestamp: '2025-01-01T00:00:00.000Z' };
  }

  add(e: Entry): Entry {
    this.entries.push(e);
    return e;
  }

  user(content: string): Entry {
    this.turnId = `t${this.n + 1}`;
    return this.add({ ...this.base(), type: 'user', content, turnId: this.turnId });
  }

  assistant(content: string): Entry {
    return this.add({ ...this.base(), type: 'assistant', content, toolCalls: [], ...(this.turnId ? { turnId: this.turnId } : {}) });
  }

  /** An assistant message with one tool call and its result. */
  tool(name: string, args: Readonly<Record<string, unknown>>, result: string, isError = false): void {
    const callId = `call_${this.n + 1}`;
    this.add({
      ...this.base(),
      type: 'assistant',
      content: '',
      toolCalls: [{ id: callId, name, arguments: JSON.stringify(args) }],
      ...(this.turnId ? { turnId: this.turnId } : {}),
    });
    this.add({
      ...this.base(),
      type: 'tool_result',
      toolCallId: callId,
      toolName: name,
      content: result,
      isError,
      ...(this.turnId ? { turnId: this.turnId } : {}),
    });
  }

  turn(i: number, resultLines: number, open = false): void {
    this.user(`Please fix bug #${i} in src/mod${i}.ts`);
    this.tool('read_file', { path: `src/mod${i}.ts` }, lines(resultLines, `mod${i}`));
    this.tool('run_command', { command: 'npm test' }, `exit code ${i % 3 === 0 ? 1 : 0}\n${lines(5, `test${i}`)}`);
    if (!open) this.assistant(`Fixed bug #${i} in src/mod${i}.ts.`);
  }
}

/** `turns` completed turns with `resultLines`-line file reads (about 12 × resultLines + 150 tokens a turn). */
export function session(turns: number, resultLines: number): Entry[] {
  const c = new Chain();
  for (let i = 1; i <= turns; i++) c.turn(i, resultLines);
  return c.entries;
}

export interface HarnessOptions {
  readonly model?: ChatModel;
  readonly settings?: Partial<CompactionSettings>;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly env?: Readonly<Record<string, string>>;
}

const TEST_SETTINGS: Partial<CompactionSettings> = {
  keepRecentTokens: 2000,
  minReclaimableTokens: 1000,
  minSavingsRatio: 0.25,
  safetyReserveTokens: 1000,
  minTokensForAutoCompact: 0,
  timeoutMs: 2000,
};

export function harness(entries: readonly Entry[], opts: HarnessOptions = {}) {
  const store = new MemoryStore(entries);
  const archive = new MemoryArchive();
  const clock = fakeClock();
  const ids = seqIds();
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const flights: FlightRecord[] = [];
  const events: BarrierEvent[] = [];
  const contextWindow = opts.contextWindow ?? 20_000;
  const maxOutputTokens = opts.maxOutputTokens ?? 2_000;
  const resolved: ResolvedSettings = resolveSettings({
    raw: { ...TEST_SETTINGS, ...opts.settings },
    env: opts.env ?? {},
    model: { contextWindow, maxOutputTokens },
  });
  if (resolved.errors.length > 0) throw new Error(resolved.errors.join('; '));
  const triggers = new TriggerState();
  const deps: CompactionDeps = {
    store,
    archive,
    clock,
    ids,
    cache,
    ...(opts.model ? { model: opts.model } : {}),
    tools: TOOLS,
    defaultSystem: DEFAULT_SYSTEM_PROMPT,
    settings: resolved.settings,
    maxOutputTokens,
    recordFlight: (r) => {
      flights.push(r);
    },
  };
  const barrier = new PreflightBarrier({
    ...deps,
    resolved,
    modelInfo: { provider: 'fake', model: 'gpt-4o', contextWindow, maxOutputTokens },
    triggers,
    listener: (e) => events.push(e),
  });
  return { store, archive, clock, ids, cache, flights, events, resolved, triggers, deps, barrier, contextWindow, maxOutputTokens };
}
