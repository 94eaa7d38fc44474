// The tool-pair guard of the model input and the repair on open: no unanswered call and no stray result ever reaches the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModelInput, type ModelMessage } from '../../../src/engine/transcript/modelInput.js';
import { interruptedResult, unansweredAtLeaf } from '../../../src/engine/transcript/repair.js';
import type { Entry, ToolCall } from '../../../src/engine/transcript/schema.js';
import { guardToolPairs, interruptedResultText } from '../../../src/engine/transcript/toolPairGuard.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { verifySession } from '../../../src/engine/transcript/verify.js';

const T = '2025-01-01T00:00:00.000Z';
const call = (id: string, name = 'read_file'): ToolCall => ({ id, name, arguments: '{}' });
const stand = (toolCallId: string, name: string): ModelMessage => ({ role: 'tool', toolCallId, content: interruptedResultText(name) });

type Spec = Entry extends infer E ? (E extends Entry ? Omit<E, 'parentId' | 'timestamp'> : never) : never;

function branchOf(...specs: readonly Spec[]): Entry[] {
  const out: Entry[] = [];
  for (const s of specs) out.push({ ...s, parentId: out[out.length - 1]?.id ?? null, timestamp: T });
  return out;
}

/** OpenAI's rule, restated independently: every call answered right after its message, no result anywhere else. */
function validPairs(messages: readonly ModelMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role === 'tool') return false;
    if (m?.role !== 'assistant' || !m.toolCalls?.length) continue;
    const want = new Set(m.toolCalls.map((c) => c.id));
    while (messages[i + 1]?.role === 'tool') {
      const r = messages[++i];
      if (r?.role !== 'tool' || !want.delete(r.toolCallId)) return false;
    }
    if (want.size > 0) return false;
  }
  return true;
}

test('a call left open before a later user message gets an interrupted result in place; the late result is left out', () => {
  const branch = branchOf(
    { id: 'u1', type: 'user', content: 'task' },
    { id: 'a1', type: 'assistant', content: '', toolCalls: [call('c1'), call('c2', 'run_command')] },
    { id: 'r1', type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', content: 'one', isError: false },
    { id: 'u2', type: 'user', content: 'next' },
    { id: 'r2', type: 'tool_result', toolCallId: 'c2', toolName: 'run_command', content: 'late', isError: true },
    { id: 'a2', type: 'assistant', content: 'ok', toolCalls: [] },
  );
  const input = buildModelInput(branch, 'sys');
  assert.ok(validPairs(input.messages), JSON.stringify(input.messages));
  assert.deepEqual(
    input.messages.map((m) => (m.role === 'tool' ? `tool:${m.toolCallId}:${m.content}` : m.role)),
    ['user', 'assistant', 'tool:c1:one', `tool:c2:${interruptedResultText('run_command')}`, 'user', 'assistant'],
  );
  assert.deepEqual(input.entryIds, ['u1', 'a1', 'r1', 'u2', 'a2']);
});

test('a whole input is returned as it is; orphans and second copies are dropped', () => {
  const whole: ModelMessage[] = [
    { role: 'user', content: 'x' },
    { role: 'assistant', content: '', toolCalls: [call('c1')] },
    { role: 'tool', toolCallId: 'c1', content: 'r' },
  ];
  assert.equal(guardToolPairs(whole, stand), whole);
  const messy: ModelMessage[] = [
    { role: 'tool', toolCallId: 'zz', content: 'orphan' },
    ...whole,
    { role: 'tool', toolCallId: 'c1', content: 'again' },
    { role: 'assistant', content: '', toolCalls: [call('c3')] },
  ];
  const fixed = guardToolPairs(messy, stand);
  // The last batch is still running (its results are being written): left open, everything before it is whole.
  assert.ok(validPairs(fixed.slice(0, -1)));
  assert.equal(fixed.length, 4);
  assert.deepEqual(
    fixed.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant'],
  );
});

test('every prefix of a tool exchange (where a kill can land) gives a valid model input', () => {
  const full = branchOf(
    { id: 'u1', type: 'user', content: 'task' },
    { id: 'a1', type: 'assistant', content: 'working', toolCalls: [call('c1'), call('c2'), call('c3')] },
    { id: 'r1', type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', content: '1', isError: false },
    { id: 'r2', type: 'tool_result', toolCallId: 'c2', toolName: 'read_file', content: '2', isError: false },
    { id: 'r3', type: 'tool_result', toolCallId: 'c3', toolName: 'read_file', content: '3', isError: false },
  );
  for (let n = 1; n <= full.length; n++) {
    const prefix = full.slice(0, n);
    const next = [...prefix, { id: 'u2', parentId: prefix[n - 1]?.id ?? null, timestamp: T, type: 'user', content: 'go on' } as Entry];
    assert.ok(validPairs(buildModelInput(next, 'sys').messages), `prefix of ${n}`);
  }
});

test('repair on open: only calls a result at the leaf can still answer; the results say interrupted and verify says so', () => {
  const killed = branchOf(
    { id: 'u1', type: 'user', content: 'task' },
    { id: 'a1', type: 'assistant', content: '', toolCalls: [call('c1'), call('c2', 'run_command')] },
    { id: 'r1', type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', content: 'one', isError: false },
    { id: 'ck', type: 'checkpoint', checkpointId: 'ck_1', kind: 'auto' },
  );
  const open = unansweredAtLeaf(killed);
  assert.deepEqual(
    open.map((c) => c.id),
    ['c2'],
  );
  const fix = { ...interruptedResult(open[0] ?? call('x')), id: 'r2', parentId: 'ck', timestamp: T } as Entry;
  const repaired = [...killed, fix];
  assert.deepEqual(unansweredAtLeaf(repaired), []);
  const report = verifySession(SessionTree.from(repaired), []);
  assert.equal(report.ok, true);
  assert.ok(report.issues.some((i) => i.kind === 'interrupted_tool_call' && i.severity === 'warning' && /run_command/.test(i.message)));
  // After a user message, appending cannot close the pair any more: left to the guard.
  assert.deepEqual(unansweredAtLeaf([...killed, { id: 'u2', parentId: 'ck', timestamp: T, type: 'user', content: 'x' } as Entry]), []);
});
