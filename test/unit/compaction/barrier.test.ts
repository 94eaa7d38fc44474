// The preflight barrier (docs/behaviour.md#triggers, #barrier, #cut, #roi, #overflow): triggers, events, the result line, escalation, exhaustion, nothing oversized sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BarrierEvent } from '../../../src/engine/compaction/barrier.js';
import { MAX_COMPACTIONS_PER_TURN } from '../../../src/engine/compaction/cut.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { Chain, GOOD_SUMMARY, harness, lines, session } from './harness.js';
import { ScriptedModel } from './memoryStore.js';

const signal = (): AbortSignal => new AbortController().signal;
const RESULT_LINE = /^Context compacted \((\w+)(?:, level \d)?\): [\d,]+ → [\d,]+ tokens, reclaimed \d+% · ck_\w+/;

function ofType<T extends BarrierEvent['type']>(events: readonly BarrierEvent[], type: T): Extract<BarrierEvent, { type: T }>[] {
  return events.filter((e): e is Extract<BarrierEvent, { type: T }> => e.type === type);
}

test('under the soft limit with nothing pending, the barrier does nothing and the request may go', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = harness(session(5, 100), { model });
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't9' });
  assert.equal(r.mayProceed, true);
  assert.deepEqual(r.outcomes, []);
  assert.deepEqual(h.events, []);
  assert.equal(model.requests.length, 0);
});

test('auto_threshold: start, rising progress, one completed end event and the persistent result line', async () => {
  const h = harness(session(8, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  const before = h.barrier.measure().tokens;
  assert.ok(before >= h.barrier.limits().softLimit && before <= h.barrier.limits().hardLimit, `${before}`);
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't9' });
  assert.equal(r.mayProceed, true);
  assert.equal(r.outcomes.length, 1);
  const o = r.outcomes[0];
  assert.equal(o?.outcome, 'completed');
  assert.match(r.lines[0] ?? '', RESULT_LINE);
  assert.match(r.lines[0] ?? '', /^Context compacted \(auto_threshold\)/);
  console.log(r.lines[0]);
  const [start] = ofType(h.events, 'compaction_start');
  assert.equal(start?.plan.trigger, 'auto_threshold');
  assert.equal(start?.plan.tokensBefore, before);
  const progress = ofType(h.events, 'compaction_progress');
  assert.ok(progress.length >= 4);
  assert.deepEqual(
    progress.map((p) => p.percent),
    [...progress.map((p) => p.percent)].sort((a, b) => a - b),
    'never goes backwards',
  );
  assert.equal(progress[progress.length - 1]?.percent, 100);
  assert.match(progress[0]?.label ?? '', /^Compacting context before response · \d+%$/);
  const ends = ofType(h.events, 'compaction_end');
  assert.equal(ends.length, 1);
  assert.equal(ends[0]?.outcome, 'completed');
  assert.equal(ends[0]?.line, r.lines[0]);
  assert.equal(ends[0]?.effective, true);
  assert.equal(h.events[0]?.type, 'compaction_start');
  assert.equal(h.events[h.events.length - 1]?.type, 'compaction_end');
  assert.ok(r.tokens < before);
});

test('the summary request starts with exactly the messages of the last request the agent sent', async () => {
  const c = new Chain();
  for (let i = 1; i <= 7; i++) c.turn(i, 100);
  c.user('Please fix bug #8 in src/mod8.ts');
  c.tool('read_file', { path: 'src/mod8.ts' }, lines(100, 'mod8'));
  // The agent's last request was built here; the reply (a tool call) and its result came after it.
  const lastSent = buildModelInput(c.entries, 'unused').messages;
  c.tool('run_command', { command: 'npm test' }, 'exit code 0');
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = harness(c.entries, { model });
  const r = await h.barrier.preflight({ signal: signal(), turnId: c.turnId ?? 't' });
  assert.equal(r.outcomes[0]?.outcome, 'completed');
  const sent = model.requests[0]?.messages ?? [];
  const same = lastSent.filter((m, i) => JSON.stringify(m) === JSON.stringify(sent[i])).length;
  console.log(`prefix ${same}/${lastSent.length} messages identical`);
  assert.equal(same, lastSent.length);
});

test('a soft capsule that misses the post-gate is skipped: nothing appended, the call proceeds unchanged, one soft attempt per turn', async () => {
  const h = harness(session(8, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]), settings: { minSavingsRatio: 0.85 } });
  const n = h.store.entries().length;
  const input = buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem);
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.equal(r.outcomes[0]?.outcome, 'skipped', r.lines[0]);
  assert.match(r.lines[0] ?? '', /^Context compaction skipped \(auto_threshold\)/);
  assert.equal(r.mayProceed, true);
  assert.equal(h.store.entries().length, n);
  assert.deepEqual(buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem), input);
  const again = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.deepEqual(again.outcomes, [], 'at most one soft attempt per turn');
  assert.equal(again.mayProceed, true);
});

test('/compact on a tiny session is a skipped no-op', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = harness(session(1, 5), { model });
  const n = h.store.entries().length;
  const r = await h.barrier.compactNow('the parser');
  assert.equal(r.mayProceed, true);
  assert.equal(r.outcomes.length, 1);
  assert.equal(r.outcomes[0]?.outcome, 'skipped');
  assert.match(r.lines[0] ?? '', /^Context compaction skipped \(user\): nothing safe to compact/);
  assert.equal(h.store.entries().length, n);
  assert.equal(model.requests.length, 0);
  assert.equal(h.flights[0]?.outcome, 'skipped');
});

test('/compact with a focus passes the focus to the summary instruction and is not ROI-gated', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = harness(session(5, 100), { model, settings: { minReclaimableTokens: 16_000 } });
  const r = await h.barrier.compactNow('the parser bug');
  assert.equal(r.outcomes[0]?.outcome, 'completed', r.lines[0]);
  const instruction = model.requests[0]?.messages.at(-1)?.content ?? '';
  assert.match(instruction, /the parser bug/);
});

test('over the hard limit, hard_limit compacts even with auto-compact off and CAPSULE_AUTO_COMPACT=false', async () => {
  for (const opts of [{ settings: { auto: false } }, { env: { CAPSULE_AUTO_COMPACT: 'false' } }]) {
    const h = harness(session(16, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]), ...opts });
    assert.ok(h.barrier.measure().tokens > h.barrier.limits().hardLimit);
    const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
    assert.equal(r.outcomes[0]?.outcome, 'completed');
    assert.equal(r.outcomes[0]?.trigger, 'hard_limit');
    assert.equal(r.mayProceed, true);
    assert.ok(r.tokens <= h.barrier.limits().hardLimit);
  }
});

test('auto-compact off: no soft compaction at the soft limit', async () => {
  const h = harness(session(8, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]), settings: { auto: false } });
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.deepEqual(r.outcomes, []);
  assert.equal(r.mayProceed, true);
});

test('a pending milestone intent fires below the soft limit and is consumed once', async () => {
  const h = harness(session(5, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  h.triggers.beginTurn('t1');
  h.triggers.recordIntent('milestone', 'ck_m');
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.equal(r.outcomes[0]?.trigger, 'milestone');
  assert.equal(r.outcomes[0]?.outcome, 'completed');
  h.triggers.beginTurn('t2');
  const next = await h.barrier.preflight({ signal: signal(), turnId: 't2' });
  assert.deepEqual(next.outcomes, []);
});

test('a cancelled turn: no capsule, mayProceed false, a blocked event', async () => {
  const model = new ScriptedModel([{ hang: true }]);
  const h = harness(session(16, 100), { model });
  const ctrl = new AbortController();
  model.onCall = () => ctrl.abort();
  const r = await h.barrier.preflight({ signal: ctrl.signal, turnId: 't1' });
  assert.equal(r.outcomes[0]?.outcome, 'cancelled');
  assert.equal(r.mayProceed, false);
  assert.equal(h.store.ofType('capsule').length, 0);
  assert.equal(ofType(h.events, 'preflight_blocked')[0]?.reason, 'cancelled');
});

test('a mandatory compaction that fails leaves the request unsent with "Automatic summarization did not complete"', async () => {
  const h = harness(session(16, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  h.archive.fail = new Error('disk full');
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.equal(r.outcomes[0]?.outcome, 'failed');
  assert.equal(r.mayProceed, false);
  assert.match(r.error ?? '', /^Automatic summarization did not complete \(disk full\)/);
});

/** 2 × `pairs` plain messages of about 50 tokens each: many small units, so every level finds something to cut. */
function chatter(pairs: number): Entry[] {
  const c = new Chain();
  for (let i = 0; i < pairs; i++) {
    c.user(`Question ${i}: ${'word '.repeat(42)}`);
    c.assistant(`Answer ${i}: ${'word '.repeat(42)}`);
  }
  return c.entries;
}

/** A valid capsule answer of roughly `tokens` tokens. */
function bigSummary(tokens: number): string {
  return GOOD_SUMMARY.replace('- Tests run with npm test.', `- Tests run with npm test.\n${lines(Math.round(tokens / 12), 'ctx')}`);
}

const SMALL_WINDOW = { contextWindow: 8000, maxOutputTokens: 1000, settings: { keepRecentTokens: 5000, safetyReserveTokens: 1000 } } as const;

test("decide before paying: when level 0's retained tail alone cannot fit, the barrier goes straight to level 1 (no level-0 summary first)", async () => {
  const h = harness(chatter(100), { ...SMALL_WINDOW, model: new ScriptedModel([{ text: bigSummary(1500) }]) });
  const hard = h.barrier.limits().hardLimit;
  assert.ok(h.barrier.measure().tokens > hard);
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  assert.deepEqual(
    r.outcomes.map((o) => [o.outcome, o.level]),
    [['completed', 1]],
    r.lines.join('\n'),
  );
  assert.equal(r.mayProceed, true);
  assert.ok(r.tokens <= hard);
  assert.match(r.lines[0] ?? '', /^Context compacted \(hard_limit, level 1\)/);
});

test('exhaustion: capsules larger than forecast escalate level by level; still over the hard limit at the top, the turn ends exhausted and nothing oversized is sent', async () => {
  const model = new ScriptedModel([{ text: bigSummary(5800) }]);
  const h = harness(chatter(200), { ...SMALL_WINDOW, model });
  const hard = h.barrier.limits().hardLimit;
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  // The forecast starts at level 2 (the tail is known); the 5,800-word capsule is bigger than forecast, so level 3 follows.
  assert.deepEqual(
    r.outcomes.map((o) => [o.outcome, o.level]),
    [
      ['completed', 2],
      ['completed', 3],
    ],
    r.lines.join('\n'),
  );
  assert.equal(r.mayProceed, false);
  assert.equal(r.exhausted, true);
  assert.match(r.error ?? '', /^context compaction exhausted/);
  assert.ok(r.tokens > hard);
  assert.equal(ofType(h.events, 'preflight_blocked')[0]?.reason, 'exhausted');
  // The summary requests themselves never exceeded what the provider accepts (window − their output budget).
  for (const req of model.requests) {
    const t = estimateRequest({ system: req.system, messages: req.messages, entryIds: [] }, req.tools, h.cache, 0).total;
    assert.ok(
      t <= SMALL_WINDOW.contextWindow - (req.maxOutputTokens ?? 0),
      `summary request ${t} <= ${SMALL_WINDOW.contextWindow - (req.maxOutputTokens ?? 0)}`,
    );
  }
});

test('seed scenario: 100k tokens in an 80k window, fallback only — level 0 suffices', async () => {
  const h = harness(session(54, 100), {
    contextWindow: 80_000,
    maxOutputTokens: 8000,
    settings: { keepRecentTokens: 20_000, safetyReserveTokens: 8192, minTokensForAutoCompact: 32_000, minReclaimableTokens: 12_000 },
  });
  const before = h.barrier.measure().tokens;
  assert.ok(before > 95_000 && before > h.barrier.limits().hardLimit, `${before}`);
  const r = await h.barrier.preflight({ signal: signal(), turnId: 't1' });
  console.log(r.lines.join('\n'));
  assert.deepEqual(
    r.outcomes.map((o) => [o.outcome, o.level, o.trigger]),
    [['completed', 0, 'hard_limit']],
  );
  assert.equal(r.mayProceed, true);
  assert.ok(r.tokens <= h.barrier.limits().hardLimit);
  assert.match(r.lines[0] ?? '', /fallback capsule \(degraded\) · tokens estimated$/);
});

test('overflow recovery: one compaction a level up per turn; a second overflow ends the turn', async () => {
  const h = harness(session(5, 100), { model: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  const first = await h.barrier.recoverOverflow({ signal: signal(), turnId: 't1' });
  assert.equal(first.outcomes[0]?.trigger, 'context_overflow');
  assert.equal(first.outcomes[0]?.level, 1);
  assert.equal(first.outcomes[0]?.outcome, 'completed');
  assert.equal(first.mayProceed, true);
  const second = await h.barrier.recoverOverflow({ signal: signal(), turnId: 't1' });
  assert.equal(second.mayProceed, false);
  assert.deepEqual(second.outcomes, []);
});

test('when only the active turn remains and it alone exceeds the hard limit even truncated, the barrier stops early with the exhausted error', async () => {
  const c = new Chain();
  for (let i = 1; i <= 3; i++) c.turn(i, 50);
  // The turn's own task is larger than the hard limit: it stays verbatim (pinned), and tool results are truncated by
  // size now, so only a task like this is left that no compaction can shrink.
  c.user(`Please summarize this log: ${'lorem ipsum dolor sit amet '.repeat(4_000)}`);
  c.tool('read_file', { path: 'logs/huge.log' }, 'short');
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = harness(c.entries, { model });
  const r = await h.barrier.preflight({ signal: signal(), turnId: c.turnId ?? 't' });
  assert.equal(r.mayProceed, false);
  assert.equal(r.exhausted, true);
  assert.ok(r.outcomes.length < MAX_COMPACTIONS_PER_TURN, r.lines.join('\n'));
  assert.equal(r.outcomes.filter((o) => o.outcome === 'skipped').length, 1, `one skip, not one per level: ${r.lines.join(' | ')}`);
  assert.match(r.error ?? '', /^context compaction exhausted after \d compactions?: nothing safe to compact/);
  assert.ok(r.tokens > h.barrier.limits().hardLimit);
});
