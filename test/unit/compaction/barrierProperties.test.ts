// Property tests of the preflight barrier (docs/behaviour.md#barrier, #cut): fits or blocked with nothing sent, no capsule after an abort or leaf change, no split tool pair, nothing dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { BarrierEvent, PreflightResult } from '../../../src/engine/compaction/barrier.js';
import type { TokenCounter } from '../../../src/engine/tokens/tokenizer.js';
import type { ModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { MemoryArchive, MemoryStore } from './memoryStore.js';
import { rig } from './scenarioRig.js';
import { pbtSeed, SessionBuilder } from './sessionBuilder.js';

interface CallSpec {
  readonly lines: number;
  readonly command: boolean;
  readonly isError: boolean;
  /** A call whose result never came (a cancelled exchange in the history). */
  readonly lost: boolean;
}
interface TurnSpec {
  readonly askWords: number;
  readonly exchanges: readonly (readonly CallSpec[])[];
  readonly answered: boolean;
}
interface Injection {
  readonly phase: 1 | 2;
  /** Index of the compaction_progress event (within the phase) at which it happens. */
  readonly at: number;
  readonly kind: 'abort' | 'leaf';
}

const callArb: fc.Arbitrary<CallSpec> = fc.record({
  // Short results, and results long enough (>= 40 lines) for level-2 truncation.
  lines: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 38, max: 90 })),
  command: fc.boolean(),
  isError: fc.boolean(),
  lost: fc.integer({ min: 0, max: 19 }).map((r) => r === 0),
});
const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  askWords: fc.integer({ min: 1, max: 60 }),
  exchanges: fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 4 }),
  answered: fc.boolean(),
});
const caseArb = fc.record({
  first: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
  second: fc.array(turnArb, { minLength: 1, maxLength: 3 }),
  contextWindow: fc.integer({ min: 1600, max: 4000 }),
  maxOutputTokens: fc.integer({ min: 100, max: 600 }),
  safetyReserveTokens: fc.integer({ min: 50, max: 400 }),
  keepShare: fc.double({ min: 0, max: 0.6, noNaN: true }),
  minReclaimableTokens: fc.integer({ min: 0, max: 400 }),
  injection: fc.option(
    fc.record({ phase: fc.constantFrom(1 as const, 2 as const), at: fc.nat(12), kind: fc.constantFrom('abort' as const, 'leaf' as const) }),
    { nil: undefined, freq: 3 },
  ),
});
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** Short numbered lines (about 5 tokens each): cheap to tokenize, and >= 40 of them can be truncated. */
const output = (n: number, tag: string): string => Array.from({ length: n }, (_, i) => `${tag}:${i} ok`).join('\n');

function playTurn(b: SessionBuilder, t: TurnSpec, n: number): void {
  b.user(`Task ${n}: ${'please '.repeat(t.askWords)}`);
  t.exchanges.forEach((calls, i) => {
    b.assistant(
      i === 0 ? 'Looking.' : '',
      10,
      calls.map((c, j) => ({
        name: c.command ? 'run_command' : 'read_file',
        args: c.command ? { command: `npm test -- part${j}` } : { path: `src/t${n}_${i}_${j}.ts` },
        result: c.command ? `exit code ${c.isError ? 1 : 0}\n${output(c.lines, `run${n}`)}` : output(c.lines, `f${n}`),
        isError: c.isError && !c.command,
        noResult: c.lost,
      })),
    );
  });
  if (t.answered) b.assistant(`Done with task ${n}.`);
}

/** Every tool message answers a call made earlier in the input; every call whose result exists on the branch has it in the input. */
function assertNoSplitPair(input: ModelInput, branch: readonly Entry[]): void {
  const resultOf = new Set(branch.flatMap((e) => (e.type === 'tool_result' ? [e.toolCallId] : [])));
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const m of input.messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) called.add(c.id);
    if (m.role === 'tool') {
      assert.ok(called.has(m.toolCallId), `tool result ${m.toolCallId} without its call`);
      answered.add(m.toolCallId);
    }
  }
  for (const id of called) if (resultOf.has(id)) assert.ok(answered.has(id), `call ${id} without its result`);
}

/** Nothing silently dropped: every message on the branch is sent, or excluded by a capsule of this branch (archived evidence). */
function assertCovered(input: ModelInput, branch: readonly Entry[], archive: MemoryArchive): void {
  const installed = new Set(branch.flatMap((e) => (e.type === 'capsule' ? [e.checkpointId] : [])));
  const seen = new Set(input.entryIds);
  for (const snap of archive.saved.values()) {
    if (!installed.has(snap.checkpointId)) continue;
    for (const m of snap.excluded) if (m.entryId !== undefined) seen.add(m.entryId);
  }
  for (const e of branch) {
    if (e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result')
      assert.ok(seen.has(e.id), `${e.type} ${e.id} neither sent nor in any installed capsule's evidence`);
  }
}

/** True when `id` is `ancestor` or below it. */
function descendsFrom(store: MemoryStore, id: string | null, ancestor: string): boolean {
  for (let cur = id; cur !== null; cur = store.tree.get(cur)?.parentId ?? null) if (cur === ancestor) return true;
  return false;
}

const BLOCKED = /^(context compaction exhausted|The turn was cancelled|The session changed|Automatic summarization did not complete)/;

interface Tally {
  proceeded: number;
  compactedAndProceeded: number;
  blocked: number;
  exhausted: number;
  injected: number;
}

async function runCase(c: Case, tally: Tally, counter: TokenCounter | undefined): Promise<void> {
  const b = new SessionBuilder();
  c.first.forEach((t, i) => playTurn(b, t, i + 1));
  const store = new MemoryStore(b.entries);
  const archive = new MemoryArchive();
  const hard = c.contextWindow - c.maxOutputTokens - c.safetyReserveTokens;
  let phase: 1 | 2 = 1;
  let progress = 0;
  let ctrl = new AbortController();
  let injectedAt: number | undefined;
  let foreign = 0;
  const inject = (e: BarrierEvent): void => {
    const inj: Injection | undefined = c.injection;
    if (e.type !== 'compaction_progress' || inj === undefined || inj.phase !== phase || injectedAt !== undefined) return;
    if (progress++ !== inj.at) return;
    injectedAt = store.entries().length;
    if (inj.kind === 'abort') ctrl.abort();
    // Another writer (or a rewind) moves the leaf while the summary is being made; the append is synchronous.
    else
      void store
        .append({
          type: 'user',
          id: `foreign${++foreign}`,
          parentId: store.leafId(),
          timestamp: '2025-01-01T00:09:00.000Z',
          content: 'typed meanwhile',
          turnId: 'tx',
        })
        .catch(() => undefined);
  };
  const appendedAfterInjection: Entry[] = [];
  store.afterAppend = (e) => {
    if (injectedAt !== undefined) appendedAfterInjection.push(e);
  };
  const r = rig(store, {
    contextWindow: c.contextWindow,
    maxOutputTokens: c.maxOutputTokens,
    settings: {
      safetyReserveTokens: c.safetyReserveTokens,
      keepRecentTokens: Math.floor(hard * c.keepShare),
      minReclaimableTokens: Math.min(c.minReclaimableTokens, hard - 1),
      minTokensForAutoCompact: 0,
    },
    archive,
    onEvent: inject,
    ...(counter === undefined ? {} : { counter }),
  });
  assert.equal(r.hardLimit, hard);

  const check = (result: PreflightResult, requestsBefore: number): void => {
    const branch = r.barrier.measure().branch;
    const input = r.inputNow();
    if (result.mayProceed) {
      assert.ok(r.tokensOf(input) <= hard, `proceeded with ${r.tokensOf(input)} > ${hard}`);
      tally.proceeded++;
      if (result.outcomes.some((o) => o.outcome === 'completed')) tally.compactedAndProceeded++;
    } else {
      assert.match(result.error ?? '', BLOCKED);
      assert.equal(r.agent.requests.length, requestsBefore, 'a blocked request was sent');
      tally.blocked++;
      if (result.exhausted) tally.exhausted++;
    }
    // A compaction that was cancelled or went stale always blocks the request (docs/behaviour.md#barrier).
    if (result.outcomes.some((o) => o.outcome === 'cancelled' || o.outcome === 'stale')) assert.equal(result.mayProceed, false);
    // After an abort no capsule is appended (a lone checkpoint is allowed, docs/behaviour.md#barrier, #rewind); after a leaf change only a
    // compaction planned against the new leaf may append one.
    for (const e of appendedAfterInjection) {
      if (e.type !== 'capsule') continue;
      assert.notEqual(c.injection?.kind, 'abort', `capsule ${e.id} appended after the abort`);
      const planLeaf = store.tree.get(e.parentId ?? '')?.parentId ?? null;
      assert.ok(descendsFrom(store, planLeaf, `foreign${foreign}`), `capsule ${e.id} planned at ${planLeaf ?? 'root'} before the leaf change`);
    }
    assertNoSplitPair(input, branch);
    assertCovered(input, branch, archive);
  };

  const r1 = await r.infer(b.currentTurnId, ctrl.signal);
  check(r1.result, 0);

  // The next turn: more entries after whatever the leaf is now (a capsule, or a foreign entry), then another preflight.
  phase = 2;
  progress = 0;
  if (injectedAt !== undefined) tally.injected++;
  injectedAt = undefined;
  appendedAfterInjection.length = 0;
  ctrl = new AbortController();
  const before = b.entries.length;
  c.second.forEach((t, i) => playTurn(b, t, c.first.length + i + 1));
  for (const [i, e] of b.entries.slice(before).entries()) await store.append(i === 0 ? { ...e, parentId: store.leafId() } : e);
  const requests = r.agent.requests.length;
  const r2 = await r.infer(b.currentTurnId, ctrl.signal);
  check(r2.result, requests);
  if (injectedAt !== undefined) tally.injected++;
}

/**
 * About four characters a token: the barrier only needs a consistent counter, and the BPE tokenizer would make
 * a thousand runs of four fallback capsules each take half a minute. The second test uses the real one.
 */
function charCounter(): TokenCounter {
  let calls = 0;
  return {
    encoding: 'chars/4',
    get calls() {
      return calls;
    },
    count(text: string): number {
      calls++;
      return Math.ceil(text.length / 4);
    },
  };
}

const PROPERTY =
  'after preflight the request fits the hard limit, or the turn is blocked and nothing is sent; no capsule after an abort or leaf change; no split tool pair; nothing dropped';

async function check(name: string, numRuns: number, counter: () => TokenCounter | undefined): Promise<void> {
  const seed = pbtSeed(name);
  const tally: Tally = { proceeded: 0, compactedAndProceeded: 0, blocked: 0, exhausted: 0, injected: 0 };
  await fc.assert(
    fc.asyncProperty(caseArb, (c) => runCase(c, tally, counter())),
    { seed, numRuns },
  );
  console.log(
    `[${name}] preflights: ${tally.proceeded} proceeded (${tally.compactedAndProceeded} after compacting), ${tally.blocked} blocked (${tally.exhausted} exhausted), ${tally.injected} with an injected abort or leaf change`,
  );
  // The generator must reach every kind of outcome, or the property says little.
  assert.ok(tally.compactedAndProceeded > 0 && tally.exhausted > 0 && tally.injected > 0, JSON.stringify(tally));
}

test(`property (1,000 runs, character counter): ${PROPERTY}`, () => check('barrier', 1000, charCounter));

test(`property (50 runs, gpt-4o tokenizer): ${PROPERTY}`, () => check('barrier-bpe', 50, () => undefined));
