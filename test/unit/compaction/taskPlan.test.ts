// The agent's plan: update_plan's argument check, the plan read from the transcript, and the plan carried exactly in the capsule's ledger.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildLedger, ledgerFromDetails, LEDGER_DETAILS_KEY } from '../../../src/engine/compaction/ledger.js';
import { renderLedger } from '../../../src/engine/compaction/ledgerFormat.js';
import { latestPlan, parsePlanArgs, renderPlanLines, UPDATE_PLAN_TOOL_NAME, type Plan } from '../../../src/engine/compaction/taskPlan.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';

let n = 0;
const ts = '2025-01-01T00:00:00.000Z';
function planCall(plan: unknown, result: { isError: boolean } | undefined): Entry[] {
  const id = `call_${++n}`;
  const out: Entry[] = [
    {
      id: `a${n}`,
      parentId: null,
      timestamp: ts,
      type: 'assistant',
      content: '',
      toolCalls: [{ id, name: UPDATE_PLAN_TOOL_NAME, arguments: JSON.stringify({ plan }) }],
    } as Entry,
  ];
  if (result !== undefined)
    out.push({
      id: `r${n}`,
      parentId: `a${n}`,
      timestamp: ts,
      type: 'tool_result',
      toolCallId: id,
      toolName: UPDATE_PLAN_TOOL_NAME,
      content: 'x',
      isError: result.isError,
    } as Entry);
  return out;
}

const FIRST: Plan = [
  { step: 'Read the failing test', status: 'done' },
  { step: 'Fix parseDate in src/date.ts', status: 'in_progress' },
  { step: 'Run npm test', status: 'pending' },
];

test('good arguments parse; bad ones get one clear line and say the previous plan stays', () => {
  assert.deepEqual(parsePlanArgs(JSON.stringify({ plan: FIRST })), { ok: true, plan: FIRST });
  for (const bad of [
    '{"plan": ',
    '{"plan":[{"step":"","status":"pending"}]}',
    '{"plan":[{"step":"x","status":"started"}]}',
    '{"steps":[]}',
    '{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}',
  ]) {
    const r = parsePlanArgs(bad);
    assert.equal(r.ok, false, bad);
    if (!r.ok) {
      assert.doesNotMatch(r.error, /\n/, 'one line');
      assert.match(r.error, /^update_plan: .*The previous plan stays\.$/);
    }
  }
});

test('the plan in force is the last successful call; an error or an unanswered call changes nothing', () => {
  const second: Plan = FIRST.map((i) => ({ ...i, status: 'done' as const }));
  const entries = [...planCall(FIRST, { isError: false }), ...planCall(second, { isError: true }), ...planCall(second, undefined)];
  assert.deepEqual(latestPlan(entries, null), FIRST);
  assert.deepEqual(latestPlan([...entries, ...planCall(second, { isError: false })], null), second);
  assert.deepEqual(latestPlan([], FIRST), FIRST, 'a capsule plan carries over when nothing changed it');
  assert.deepEqual(latestPlan(planCall([], { isError: false }), FIRST), [], 'an empty list clears it');
});

test('the ledger carries the plan exactly, through a stored round trip and a second compaction', () => {
  const first = buildLedger(planCall(FIRST, { isError: false }));
  assert.deepEqual(first.plan, FIRST);
  const stored = ledgerFromDetails(JSON.parse(JSON.stringify({ [LEDGER_DETAILS_KEY]: first })) as Record<string, unknown>);
  assert.deepEqual(stored?.plan, FIRST);
  const later = buildLedger([{ id: 'u', parentId: null, timestamp: ts, type: 'user', content: 'go on' } as Entry], stored);
  assert.deepEqual(later.plan, FIRST, 'a later capsule without plan calls keeps the plan of the earlier one');
  const text = renderLedger(later);
  for (const line of renderPlanLines(FIRST)) assert.ok(text.includes(`\n${line}`), line);
  assert.match(text, /\*\*Current plan \(1 of 3 done; update it with update_plan\):\*\*/);
});

test('a capsule written before plans existed still parses, with no plan', () => {
  const old = { ...buildLedger([]) } as Record<string, unknown>;
  delete old['plan'];
  assert.equal(ledgerFromDetails({ [LEDGER_DETAILS_KEY]: old })?.plan, null);
  assert.doesNotMatch(renderLedger(buildLedger([])), /Current plan/);
});
