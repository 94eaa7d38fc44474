// Cut planning (docs/behaviour.md#cut): unit boundaries, the retained tail, repeated compaction, active turns, escalation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  COMPACTION_EXHAUSTED_MESSAGE,
  type CompactionLevel,
  type CutPlan,
  LEVEL_FRACTIONS,
  MAX_COMPACTIONS_PER_TURN,
  escalationLevels,
  isEffective,
  isNothingToCompact,
  nextLevel,
  planCut,
} from '../../../src/engine/compaction/cut.js';
import { splitUnits } from '../../../src/engine/compaction/units.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { SessionBuilder, pbtSeed } from './sessionBuilder.js';

type Step =
  | { readonly k: 'user'; readonly t: number }
  | { readonly k: 'assistant'; readonly t: number }
  | { readonly k: 'tools'; readonly t: number; readonly results: readonly number[] }
  | { readonly k: 'checkpoint' }
  | { readonly k: 'turnEnd' };

const tok = fc.integer({ min: 0, max: 300 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('user' as const), t: tok }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('assistant' as const), t: tok }) },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('tools' as const), t: tok, results: fc.array(tok, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('checkpoint' as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('turnEnd' as const) }) },
);

const sessionArb = fc.record({
  before: fc.array(stepArb, { minLength: 0, maxLength: 20 }),
  after: fc.array(stepArb, { minLength: 0, maxLength: 14 }),
  withCapsule: fc.boolean(),
  firstKeptPick: fc.option(fc.nat(), { nil: null }),
  pinPrevious: fc.boolean(),
  inProgressLast: fc.boolean(),
  active: fc.boolean(),
  keep: fc.integer({ min: 0, max: 1500 }),
});
type Session = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

function play(b: SessionBuilder, steps: readonly Step[]): void {
  for (const s of steps) {
    if (s.k === 'user') b.user('ask', s.t);
    else if (s.k === 'assistant') b.assistant('answer', s.t);
    else if (s.k === 'tools')
      b.assistant(
        'using tools',
        s.t,
        s.results.map((r) => ({ name: 'read_file', args: { path: 'a.ts' }, resultTokens: r })),
      );
    else if (s.k === 'checkpoint') b.checkpoint();
    else b.turnEnd();
  }
}

function build(s: Session): { b: SessionBuilder; activeTurnId: string | undefined } {
  const b = new SessionBuilder();
  play(b, s.before);
  if (s.withCapsule) {
    const units = splitUnits(b.entries);
    const pick = s.firstKeptPick;
    const firstKept = pick === null || units.length === 0 ? null : (units[pick % units.length]?.entries[0]?.id ?? null);
    const fkIndex = firstKept === null ? b.entries.length : b.entries.findIndex((e) => e.id === firstKept);
    const users = b.entries.slice(0, fkIndex).filter((e) => e.type === 'user');
    const pin = s.pinPrevious ? users[users.length - 1] : undefined;
    b.capsule({ firstKeptEntryId: firstKept, pinnedEntryIds: pin ? [pin.id] : [] });
  }
  play(b, s.after);
  if (s.inProgressLast) b.assistant('working', 20, [{ name: 'run_command', args: { command: 'ls' }, noResult: true }]);
  return { b, activeTurnId: s.active ? b.currentTurnId : undefined };
}

/** What the model sees besides the previous capsule, computed independently of planCut. */
function expectedSpan(branch: readonly Entry[]): Entry[] {
  let ci = -1;
  branch.forEach((e, i) => {
    if (e.type === 'capsule') ci = i;
  });
  const cap = branch[ci];
  if (cap?.type !== 'capsule') return [...branch];
  const fk = cap.firstKeptEntryId === null ? -1 : branch.findIndex((e) => e.id === cap.firstKeptEntryId);
  const start = fk < 0 ? ci + 1 : fk;
  const pinned = branch.slice(0, start).filter((e) => cap.pinnedEntryIds.includes(e.id));
  return [...pinned, ...branch.slice(start).filter((e) => e.type !== 'capsule')];
}

const total = (es: readonly Entry[], tokensOf: (e: Entry) => number): number => es.reduce((a, e) => a + tokensOf(e), 0);

function checkPlan(branch: readonly Entry[], tokensOf: (e: Entry) => number, plan: CutPlan, activeTurnId: string | undefined): void {
  const span = expectedSpan(branch);
  // Coverage: summarized + kept is exactly the span, in order, each entry once: nothing silently dropped.
  assert.deepEqual(
    [...plan.summarize, ...plan.kept].map((e) => e.id),
    span.map((e) => e.id),
  );
  assert.equal(plan.firstKeptEntryId, plan.kept[0]?.id);
  assert.ok(plan.kept.length > 0 && plan.summarize.length > 0);
  // No cut separates a tool call from its results.
  const summarized = new Set(plan.summarize.map((e) => e.id));
  const callSide = new Map<string, boolean>();
  for (const e of plan.summarize.concat(plan.kept)) {
    if (e.type === 'assistant') for (const c of e.toolCalls) callSide.set(c.id, summarized.has(e.id));
  }
  for (const e of plan.kept.concat(plan.summarize)) {
    if (e.type === 'tool_result') assert.equal(callSide.get(e.toolCallId), summarized.has(e.id), `tool pair ${e.toolCallId} split`);
  }
  // The last unit (possibly in progress) is never summarized.
  const units = splitUnits(span);
  const lastUnit = units[units.length - 1];
  for (const e of lastUnit?.entries ?? []) assert.ok(!summarized.has(e.id), 'last unit summarized');
  // The active turn's task stays verbatim: kept, or pinned inside the span.
  const pinned = new Set(plan.pinnedEntryIds);
  for (const id of pinned) assert.ok(summarized.has(id));
  if (activeTurnId === undefined) assert.equal(pinned.size, 0);
  for (const e of plan.summarize) {
    if (e.type === 'user' && activeTurnId !== undefined && e.turnId === activeTurnId) assert.ok(pinned.has(e.id), 'active task not pinned');
  }
  // Token bookkeeping.
  assert.equal(plan.spanTokens, total(span, tokensOf));
  assert.equal(plan.keptTokens, total(plan.kept, tokensOf));
  assert.equal(plan.summarizedTokens + plan.pinnedTokens + plan.keptTokens, plan.spanTokens);
  assert.equal(plan.truncateResults, plan.level >= 2);
  // docs/behaviour.md#model-input after appending the capsule: the model sees exactly the pinned entries and the kept tail.
  const capsule = new SessionBuilder();
  const after: Entry[] = [
    ...branch,
    {
      ...capsule.capsule({ firstKeptEntryId: plan.firstKeptEntryId, pinnedEntryIds: plan.pinnedEntryIds }),
      id: 'c_new',
      parentId: branch[branch.length - 1]?.id ?? null,
    },
  ];
  const sent = buildModelInput(after, 'sys').entryIds;
  const expectedIds = [...plan.summarize.filter((e) => pinned.has(e.id)), ...plan.kept]
    .filter((e) => e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result')
    .map((e) => e.id);
  assert.deepEqual(sent, expectedIds);
}

test('property: every level cuts at unit boundaries, covers the span exactly once, and honours its size target', () => {
  const seed = pbtSeed('cut');
  fc.assert(
    fc.property(sessionArb, (s) => {
      const { b, activeTurnId } = build(s);
      const branch = b.entries;
      const span = expectedSpan(branch);
      const unitTokens = splitUnits(span).map((u) => total(u.entries, b.tokensOf));
      let previous: CutPlan | undefined;
      for (const level of escalationLevels()) {
        const r = planCut({ branch, tokensOf: b.tokensOf, keepRecentTokens: s.keep, level, activeTurnId });
        if (isNothingToCompact(r)) {
          if (level === 0) {
            const rest = unitTokens.slice(1).reduce((a, t) => a + t, 0);
            // Level 0 declines only when the tail it must keep swallows the whole span (or only pinned entries precede it).
            assert.ok(unitTokens.length < 2 || rest < s.keep || activeTurnId !== undefined, r.reason);
          }
          assert.equal(previous, undefined, 'a higher level found nothing after a lower one compacted');
          continue;
        }
        checkPlan(branch, b.tokensOf, r, activeTurnId);
        const keptUnits = splitUnits(r.kept);
        const firstKept = total(keptUnits[0]?.entries ?? [], b.tokensOf);
        if (level === 0) {
          assert.ok(r.keptTokens >= s.keep, `kept ${r.keptTokens} < keep ${s.keep}`);
          assert.ok(keptUnits.length === 1 || r.keptTokens - firstKept < s.keep, `kept ${r.keptTokens} overshoots by more than a unit`);
        } else {
          const fraction = LEVEL_FRACTIONS[level];
          const summarized = r.spanTokens - r.keptTokens;
          assert.ok(summarized >= fraction * r.spanTokens || keptUnits.length === 1, `level ${level} summarized ${summarized}/${r.spanTokens}`);
        }
        if (previous) assert.ok(r.summarize.length >= previous.summarize.length, 'escalation summarized less');
        previous = r;
      }
    }),
    { seed, numRuns: 1000 },
  );
});

test('repeated compaction starts at the previous firstKeptEntryId, so the previously retained tail is summarized, not lost', () => {
  const b = new SessionBuilder();
  b.user('first task', 100);
  b.assistant('done first', 100);
  const kept = b.user('second task', 100);
  b.assistant('done second', 100);
  const prev = b.capsule({ firstKeptEntryId: kept.id });
  b.user('third task', 100);
  b.assistant('done third', 100);
  const r = planCut({ branch: b.entries, tokensOf: b.tokensOf, keepRecentTokens: 100, level: 0 });
  assert.ok(!isNothingToCompact(r));
  assert.equal(r.previousCapsule?.id, prev.id);
  assert.deepEqual(
    r.summarize.map((e) => e.id),
    ['u3', 'a4', 'u6'],
  );
  assert.deepEqual(
    r.kept.map((e) => e.id),
    ['a7'],
  );
});

test('a previous capsule that kept nothing: the span starts right after it', () => {
  const b = new SessionBuilder();
  b.user('old', 100);
  b.assistant('old answer', 100);
  b.capsule({ firstKeptEntryId: null });
  b.user('new', 100);
  b.assistant('new answer', 100);
  const r = planCut({ branch: b.entries, tokensOf: b.tokensOf, keepRecentTokens: 50, level: 0 });
  assert.ok(!isNothingToCompact(r));
  assert.deepEqual(
    r.summarize.map((e) => e.id),
    ['u4'],
  );
  assert.deepEqual(
    r.kept.map((e) => e.id),
    ['a5'],
  );
});

test('during an active turn the task is pinned and the in-progress exchange stays', () => {
  const b = new SessionBuilder();
  b.user('earlier', 50);
  b.assistant('earlier answer', 50);
  const task = b.user('refactor everything', 50);
  for (let i = 0; i < 5; i++) b.assistant(`step ${i}`, 10, [{ name: 'read_file', args: { path: `f${i}.ts` }, resultTokens: 500 }]);
  const inProgress = b.assistant('more', 10, [{ name: 'run_command', args: { command: 'npm test' }, noResult: true }]);
  const r = planCut({ branch: b.entries, tokensOf: b.tokensOf, keepRecentTokens: 0, level: 3, activeTurnId: task.type === 'user' ? task.turnId : undefined });
  assert.ok(!isNothingToCompact(r));
  assert.deepEqual(r.pinnedEntryIds, [task.id]);
  assert.deepEqual(
    r.kept.map((e) => e.id),
    inProgress.map((e) => e.id),
  );
  assert.equal(r.truncateResults, true);
});

test('nothing to compact: empty history, a single exchange, or a history within keepRecentTokens', () => {
  const b = new SessionBuilder();
  const plan = (keep: number, level: CompactionLevel = 0) => planCut({ branch: b.entries, tokensOf: b.tokensOf, keepRecentTokens: keep, level });
  assert.ok(isNothingToCompact(plan(0)));
  b.user('hi', 10);
  assert.ok(isNothingToCompact(plan(0, 3)));
  b.assistant('hello', 10);
  const r = plan(100);
  assert.ok(isNothingToCompact(r) && /fits within keepRecentTokens/.test(r.reason));
  assert.ok(!isNothingToCompact(plan(100, 1)), 'escalation may cut into the keepRecentTokens tail');
});

test('non-message entries travel with the unit that follows them', () => {
  const b = new SessionBuilder();
  b.user('a', 100);
  b.assistant('b', 100);
  const ck = b.checkpoint();
  const u = b.user('c', 100);
  const end = b.turnEnd();
  const r = planCut({ branch: b.entries, tokensOf: b.tokensOf, keepRecentTokens: 10, level: 0 });
  assert.ok(!isNothingToCompact(r));
  assert.deepEqual(
    r.kept.map((e) => e.id),
    [ck.id, u.id, end.id],
  );
  assert.equal(r.firstKeptEntryId, ck.id);
});

test('escalation: four levels, 10% effectiveness, and the exhaustion message', () => {
  assert.deepEqual(escalationLevels(), [0, 1, 2, 3]);
  assert.equal(nextLevel(0), 1);
  assert.equal(nextLevel(3), undefined);
  assert.equal(isEffective(1000, 900), true);
  assert.equal(isEffective(1000, 901), false);
  assert.equal(isEffective(0, 0), false);
  assert.equal(MAX_COMPACTIONS_PER_TURN, 4);
  assert.match(COMPACTION_EXHAUSTED_MESSAGE, /^context compaction exhausted: /);
});

test('truncation works by size too: a single huge line keeps head + tail around a marker', async () => {
  const { truncateToolResult, TRUNCATE_MAX_CHARS } = await import('../../../src/engine/transcript/truncation.js');
  const line = 'x'.repeat(100_000);
  const out = truncateToolResult(line);
  assert.ok(out.length < TRUNCATE_MAX_CHARS + 100, `${out.length}`);
  assert.match(out, /\n\[\.\.\. \d+ characters truncated \.\.\.\]\n/);
  assert.ok(out.startsWith('xxx') && out.endsWith('xxx'));
  const lines = Array.from({ length: 60 }, (_, i) => `${i}:${'y'.repeat(2_000)}`).join('\n');
  assert.ok(truncateToolResult(lines).length < TRUNCATE_MAX_CHARS + 100, 'forty long lines are bounded as well');
  assert.equal(truncateToolResult('short\nresult'), 'short\nresult');
});
