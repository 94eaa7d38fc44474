// Rewind is always safe: no rewind target yields an unanswered tool call (property), the agent's checkpoint lands after its batch, repeated ids verify.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolveRewindPoint } from '../../../src/engine/transcript/rewindPoint.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { verifySession } from '../../../src/engine/transcript/verify.js';

const T = '2025-01-01T00:00:00.000Z';

/** The calls of the branch's last assistant entry that no later result answers (whatever follows them). */
function unansweredCalls(branch: readonly Entry[]): string[] {
  let at = branch.length - 1;
  while (at >= 0 && branch[at]?.type !== 'assistant') at--;
  const call = branch[at];
  if (call?.type !== 'assistant') return [];
  const answered = new Set(branch.slice(at + 1).flatMap((e) => (e.type === 'tool_result' ? [e.toolCallId] : [])));
  return call.toolCalls.filter((c) => !answered.has(c.id)).map((c) => c.id);
}

interface Step {
  readonly calls: number;
  /** Positions (0..calls) where a checkpoint is written among the results: 0 = right after the assistant. */
  readonly checkpointsAt: readonly number[];
  /** How many of the results were written (a crash can leave fewer). */
  readonly written: number;
  /** Reuse the same call ids in every step, as some local servers do. */
  readonly reuseIds: boolean;
}

/** A linear session: per step a user message, an assistant with tool calls, results with checkpoints among them. */
function sessionOf(steps: readonly Step[]): Entry[] {
  const out: Entry[] = [];
  let n = 0;
  let parent: string | null = null;
  const add = (e: Omit<Entry, 'id' | 'parentId' | 'timestamp'> & Record<string, unknown>): void => {
    const id = `e_${++n}`;
    out.push({ ...e, id, parentId: parent, timestamp: T } as Entry);
    parent = id;
  };
  steps.forEach((s, i) => {
    add({ type: 'checkpoint', checkpointId: `ck_u${i}`, kind: 'auto' });
    add({ type: 'user', content: `task ${i}` });
    const ids = Array.from({ length: s.calls }, (_, c) => (s.reuseIds ? `call_${c}` : `call_${i}_${c}`));
    add({ type: 'assistant', content: '', toolCalls: ids.map((id) => ({ id, name: 'read_file', arguments: '{}' })) });
    for (let r = 0; r <= s.calls; r++) {
      for (const at of s.checkpointsAt) if (at === r) add({ type: 'checkpoint', checkpointId: `ck_${i}_${r}_${n}`, kind: 'milestone' });
      const id = ids[r];
      if (r < s.written && id !== undefined) add({ type: 'tool_result', toolCallId: id, toolName: 'read_file', content: 'ok', isError: false });
    }
  });
  return out;
}

const stepArb: fc.Arbitrary<Step> = fc
  .record({
    calls: fc.integer({ min: 1, max: 3 }),
    checkpointsAt: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
    written: fc.integer({ min: 0, max: 3 }),
    reuseIds: fc.boolean(),
  })
  .map((s) => ({ ...s, written: Math.min(s.written, s.calls), checkpointsAt: s.checkpointsAt.filter((c) => c <= s.calls) }));

test('property: no rewind target yields an unanswered tool call (checkpoints anywhere, results missing, ids reused)', () => {
  fc.assert(
    fc.property(fc.array(stepArb, { minLength: 1, maxLength: 4 }), (generated) => {
      // Only the last batch can be missing results (a crash); earlier turns were closed by the turn loop.
      const steps = generated.map((s, i) => (i < generated.length - 1 ? { ...s, written: s.calls } : s));
      const entries = sessionOf(steps);
      const tree = new SessionTree();
      for (const e of entries) tree.add(e);
      for (const ck of entries.flatMap((e) => (e.type === 'checkpoint' ? [e.checkpointId] : []))) {
        const t = resolveRewindPoint(tree, ck);
        if (!t.ok) continue;
        const branch = t.targetId === null ? [] : tree.branch(t.targetId);
        assert.deepEqual(unansweredCalls(branch), [], `rewind to ${ck} → ${t.targetId} leaves an open call`);
      }
    }),
    { numRuns: 400 },
  );
});

test('rewinding to a checkpoint written between a call and its results lands after the results', () => {
  const entries = sessionOf([{ calls: 2, checkpointsAt: [1], written: 2, reuseIds: false }]);
  const mid = entries.find((e) => e.type === 'checkpoint' && e.kind === 'milestone');
  assert.ok(mid?.type === 'checkpoint');
  const tree = new SessionTree();
  for (const e of entries) tree.add(e);
  const r = resolveRewindPoint(tree, mid.checkpointId);
  assert.ok(r.ok);
  assert.equal(r.adjusted, true);
  assert.equal(r.targetId, entries[entries.length - 1]?.id, 'after the last result of the batch');
  assert.equal(resolveRewindPoint(tree, 'ck_nope').ok, false);
});

test('verify: tool-call ids reused across turns are not reported as split pairs around a capsule', () => {
  // Turn 1 (call "call_0") is summarized by a capsule that keeps nothing; turn 2 after it reuses "call_0".
  const first = sessionOf([{ calls: 1, checkpointsAt: [], written: 1, reuseIds: true }]);
  const last = first[first.length - 1];
  const capsule = {
    type: 'capsule',
    id: 'e_cap',
    parentId: last?.id ?? null,
    timestamp: T,
    summary: '## Goal\nx',
    firstKeptEntryId: null,
    pinnedEntryIds: [],
    tokensBefore: 100,
    tokensAfter: 50,
    level: 0,
    trigger: 'user',
    quality: 'full',
    truncateResults: false,
    checkpointId: 'ck_cap',
    details: {},
  } as Entry;
  const second = sessionOf([{ calls: 1, checkpointsAt: [], written: 1, reuseIds: true }]).map(
    (e, i): Entry => ({ ...e, id: `e_b${i}`, parentId: i === 0 ? 'e_cap' : `e_b${i - 1}` }),
  );
  const tree = new SessionTree();
  for (const e of [...first, capsule, ...second]) tree.add(e);
  const report = verifySession(tree, []);
  assert.deepEqual(
    report.issues.filter((i) => i.kind === 'split_tool_pair'),
    [],
    JSON.stringify(report.issues),
  );
  assert.equal(report.ok, true);
});
