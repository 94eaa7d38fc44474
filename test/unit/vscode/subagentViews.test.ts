// A subagent's card from its own entries: figures, the context after its compaction, compacting/done/stopped, the stop reason, paged transcript lines, and the index that keeps reused call ids apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SUBAGENT_PAGE_LINES } from '../../../src/protocol/messages.js';
import type { Entry, ToolResultEntry } from '../../../src/engine/transcript/schema.js';
import { SubagentIndex, subagentLines, subagentPage, subagentView } from '../../../src/vscode/projection/subagentViews.js';

const T = '2026-01-01T00:00:00.000Z';

function child(id: string, call: string, anchor: string): Entry[] {
  const first = { id, toolCallId: call, anchorId: anchor, description: `task ${id}` };
  const ref = { id, toolCallId: call };
  return [
    {
      type: 'model_change',
      id: `${id}_m`,
      parentId: null,
      timestamp: T,
      provider: 'openai',
      model: 'm',
      contextWindow: 16_000,
      maxOutputTokens: 1000,
      subagent: first,
    },
    { type: 'user', id: `${id}_u`, parentId: `${id}_m`, timestamp: T, content: 'look at src', subagent: ref },
    {
      type: 'assistant',
      id: `${id}_a1`,
      parentId: `${id}_u`,
      timestamp: T,
      content: '',
      toolCalls: [{ id: `${id}_c1`, name: 'read_file', arguments: '{"path":"a.ts"}' }],
      usage: { promptTokens: 9000, completionTokens: 100 },
      subagent: ref,
    },
    {
      type: 'tool_result',
      id: `${id}_r1`,
      parentId: `${id}_a1`,
      timestamp: T,
      toolCallId: `${id}_c1`,
      toolName: 'read_file',
      content: 'export const a = 1;',
      isError: false,
      subagent: ref,
    },
    {
      type: 'capsule',
      id: `${id}_k`,
      parentId: `${id}_r1`,
      timestamp: T,
      summary: 's',
      firstKeptEntryId: null,
      pinnedEntryIds: [],
      tokensBefore: 9100,
      tokensAfter: 1200,
      trigger: 'auto_threshold',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: `ck_${id}`,
      details: {},
      subagent: ref,
    },
    {
      type: 'assistant',
      id: `${id}_a2`,
      parentId: `${id}_k`,
      timestamp: T,
      content: 'a.ts exports a.',
      toolCalls: [],
      usage: { promptTokens: 1500, completionTokens: 50 },
      subagent: ref,
    },
  ];
}

const result = (content: string, isError: boolean): ToolResultEntry => ({
  type: 'tool_result',
  id: 'r',
  parentId: 'p',
  timestamp: T,
  toolCallId: 'call_1',
  toolName: 'task',
  content,
  isError,
});

test('the card counts requests and tokens, takes its window from its model, and its context from its last request', () => {
  const es = child('sa_1', 'call_1', 'e_1');
  const v = subagentView(es, undefined);
  assert.deepEqual(v, {
    id: 'sa_1',
    description: 'task sa_1',
    status: 'running',
    contextTokens: 1550,
    contextWindow: 16_000,
    requests: 2,
    tokens: 10_650,
    compactions: 1,
  });
  // Right after its compaction (before its next request) the context is the capsule's size.
  assert.equal(subagentView(es.slice(0, 5), undefined, true)?.contextTokens, 1200);
  assert.equal(subagentView(es.slice(0, 5), undefined, true)?.status, 'compacting');
  assert.equal(subagentView(es, result('a.ts exports a.', false))?.status, 'done');
  const stopped = subagentView(
    es,
    result(
      'Subagent sa_1 ("task") stopped without an answer: it repeated the same tool call and was stopped (loop). Nothing it found is lost from the session, but…',
      true,
    ),
  );
  assert.equal(stopped?.status, 'stopped');
  assert.equal(stopped?.reason, 'it repeated the same tool call and was stopped (loop)');
  assert.equal(subagentView([], undefined), undefined, 'nothing written yet: no card');
});

test('the transcript: the task, each call with its result, the compaction, the answer; paged', () => {
  const lines = subagentLines(child('sa_1', 'call_1', 'e_1'));
  assert.deepEqual(
    lines.map((l) => l.kind),
    ['user', 'tool', 'compaction', 'assistant'],
  );
  assert.match(lines[1]?.text ?? '', /path: a\.ts\n→ export const a = 1;/);
  assert.equal(lines[1]?.status, 'ok');
  const many = Array.from({ length: SUBAGENT_PAGE_LINES * 2 + 3 }, (_, i) => ({ kind: 'assistant' as const, text: String(i) }));
  assert.deepEqual({ ...subagentPage(many, 3), lines: subagentPage(many, 3).lines.map((l) => l.text) }, { page: 3, pages: 3, lines: ['80', '81', '82'] });
  assert.equal(subagentPage(many, 99).page, 3, 'a page past the end is the last');
  assert.deepEqual(subagentPage([], 1), { page: 1, pages: 1, lines: [] });
});

test('the index keeps two subagents apart when a provider reused the call id in another turn, and follows a growing file', () => {
  const all: Entry[] = [...child('sa_1', 'call_1', 'e_1'), ...child('sa_2', 'call_1', 'e_9')];
  const index = new SubagentIndex(() => all);
  assert.ok(index.of('e_1', 'call_1').every((e) => e.subagent?.id === 'sa_1'));
  assert.ok(index.of('e_9', 'call_1').every((e) => e.subagent?.id === 'sa_2'));
  assert.equal(index.of('e_9', 'call_1').length, 6);
  all.push({
    type: 'assistant',
    id: 'sa_2_a3',
    parentId: 'sa_2_a2',
    timestamp: T,
    content: 'more',
    toolCalls: [],
    subagent: { id: 'sa_2', toolCallId: 'call_1' },
  });
  assert.equal(index.of('e_9', 'call_1').length, 7);
});
