// The per-turn compaction budget: property — a turn of N requests performs O(N / k) compactions, never one before every request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_COMPACTIONS_PER_TURN } from '../../../src/engine/compaction/cut.js';
import { MAX_RAPID_COMPACTIONS, TurnBudget } from '../../../src/engine/compaction/turnBudget.js';

interface Turn {
  readonly hard: number;
  /** Tokens right after a compaction (capsule + retained tail). */
  readonly after: number;
  /** Tokens each request's tool result adds. */
  readonly results: readonly number[];
}

/** Drives the budget like the barrier does: one barrier per request, a compaction when the request is over the hard limit. */
function simulate(turn: Turn): { compactions: number; requests: number; stopped: boolean } {
  const b = new TurnBudget();
  let tokens = turn.after;
  let compactions = 0;
  let requests = 0;
  for (const r of turn.results) {
    b.enterBarrier('t1');
    if (tokens > turn.hard) {
      if (b.refillLoop()) return { compactions, requests, stopped: true };
      b.record(0, true);
      compactions += 1;
      tokens = turn.after;
    }
    requests += 1;
    tokens += r;
  }
  return { compactions, requests, stopped: false };
}

const turnArb: fc.Arbitrary<Turn> = fc
  .record({
    hard: fc.integer({ min: 2_000, max: 200_000 }),
    afterShare: fc.double({ min: 0.2, max: 0.6, noNaN: true }),
    capShare: fc.double({ min: 0.02, max: 0.45, noNaN: true }),
    n: fc.integer({ min: 1, max: 300 }),
    seed: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 300 }),
  })
  .map(({ hard, afterShare, capShare, n, seed }) => {
    const cap = Math.max(1, Math.floor(hard * capShare));
    return {
      hard,
      after: Math.floor(hard * afterShare),
      results: Array.from({ length: n }, (_, i) => Math.floor((seed[i % seed.length] ?? 1) * cap)),
      cap,
    } as Turn & { cap: number };
  });

test('property: compactions per turn are O(N / k) where k is how many results fit in the room a compaction frees', () => {
  fc.assert(
    fc.property(turnArb, (turn) => {
      const cap = Math.max(1, ...turn.results);
      const room = turn.hard - turn.after;
      const k = Math.max(1, Math.floor(room / cap));
      const { compactions, requests } = simulate(turn);
      assert.ok(compactions <= Math.floor(requests / k) + MAX_RAPID_COMPACTIONS, `${compactions} compactions for ${requests} requests (k = ${k})`);
      assert.ok(compactions < requests || requests <= MAX_RAPID_COMPACTIONS, 'never one compaction before every request');
    }),
    { numRuns: 2_000 },
  );
});

test('a result that refills the window every time stops the turn at the third rapid compaction, not at the request cap', () => {
  const r = simulate({ hard: 10_000, after: 6_000, results: Array.from({ length: 200 }, () => 5_000) });
  assert.equal(r.stopped, true);
  assert.ok(r.compactions <= MAX_RAPID_COMPACTIONS, `${r.compactions}`);
  assert.ok(r.requests <= MAX_RAPID_COMPACTIONS + 1);
});

test('escalation and the ineffective count span the barriers of one turn; a new turn starts fresh', () => {
  const b = new TurnBudget();
  b.enterBarrier('t1');
  assert.equal(b.startLevel(), 0);
  b.record(0, false);
  b.enterBarrier('t1');
  assert.equal(b.startLevel(), 1, 'an ineffective compaction raises the next one, at a later request too');
  for (let i = 1; i < MAX_COMPACTIONS_PER_TURN; i++) b.record(1, false);
  assert.equal(b.exhausted(), true);
  b.enterBarrier('t2');
  assert.equal(b.exhausted(), false);
  assert.equal(b.startLevel(), 0);
});
