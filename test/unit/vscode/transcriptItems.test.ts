// The active branch as chat items: tool results fold into their call, model switches and failed turns show, paging.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EntrySchema, type Entry } from '../../../src/engine/transcript/schema.js';
import type { CompactionCard, TranscriptItem } from '../../../src/protocol/messages.js';
import { argsSummary, branchItems, pageOf, toolItemId } from '../../../src/vscode/projection/transcriptItems.js';

const ts = '2026-01-01T00:00:00.000Z';
let n = 0;
/** A valid entry (checked by the transcript schema) chained to the previous one. */
function e<T extends Entry['type']>(type: T, fields: Omit<Extract<Entry, { type: T }>, 'id' | 'parentId' | 'timestamp' | 'type'>): Entry {
  n += 1;
  return EntrySchema.parse({ id: `e_${n}`, parentId: n === 1 ? null : `e_${n - 1}`, timestamp: ts, type, ...fields });
}

const NO_CARD = (): CompactionCard => assert.fail('no capsule expected');

test('a tool call and its result are one item; a call without a result is still running', () => {
  n = 0;
  const branch = [
    e('user', { content: 'Read two files' }),
    e('assistant', {
      content: '',
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        { id: 'call_2', name: 'read_file', arguments: '{"path":"b.ts"}' },
      ],
    }),
    e('tool_result', { toolCallId: 'call_1', toolName: 'read_file', content: 'export const a = 1;', isError: false, durationMs: 12 }),
  ];
  const items = branchItems(branch, { ephemeral: new Map(), card: NO_CARD });
  assert.deepEqual(
    items.map((i) => i.kind),
    ['user', 'tool', 'tool'],
    'an assistant message with only tool calls adds no empty bubble',
  );
  assert.deepEqual(items[1], {
    id: toolItemId('e_2', 'call_1'),
    kind: 'tool',
    name: 'read_file',
    argsSummary: 'path: a.ts',
    status: 'ok',
    timestamp: ts,
    resultPreview: 'export const a = 1;',
    durationMs: 12,
  });
  assert.equal(items[2]?.kind === 'tool' ? items[2].status : '', 'running');
});

test('cancelled and failed tools, failed and cancelled turns, and a real model switch are shown', () => {
  n = 0;
  const branch = [
    e('model_change', { provider: 'openai', model: 'gpt-4o', contextWindow: 128000 }),
    e('user', { content: 'go' }),
    e('assistant', {
      content: 'Trying.',
      toolCalls: [
        { id: 'c1', name: 'run_command', arguments: '{"command":"npm test"}' },
        { id: 'c2', name: 'read_file', arguments: '{}' },
      ],
    }),
    e('tool_result', { toolCallId: 'c1', toolName: 'run_command', content: 'exit 1', isError: true }),
    e('tool_result', { toolCallId: 'c2', toolName: 'read_file', content: 'Cancelled: the turn was cancelled before this tool ran.', isError: true }),
    e('turn_end', {
      turnId: 't1',
      status: 'failed',
      error: 'Automatic summarization did not complete (timeout); nothing oversized was sent. Retry, or run /compact.',
    }),
    e('model_change', { provider: 'openai', model: 'gpt-4o', contextWindow: 128000 }),
    e('model_change', { provider: 'openai', model: 'gpt-4.1-mini', contextWindow: 1000000 }),
    e('turn_end', { turnId: 't2', status: 'cancelled' }),
  ];
  const items = branchItems(branch, { ephemeral: new Map(), card: NO_CARD });
  const brief = items.map((i) =>
    i.kind === 'tool' ? `tool:${i.status}` : i.kind === 'error' || i.kind === 'info' ? `${i.kind}:${i.text.slice(0, 24)}` : i.kind,
  );
  assert.deepEqual(brief, [
    'user',
    'assistant',
    'tool:error',
    'tool:cancelled',
    'error:Automatic summarization ',
    'info:Model: gpt-4.1-mini via ',
    'info:Stopped.',
  ]);
});

test('command answers stay after the entry they followed, and a capsule is a card', () => {
  n = 0;
  const card: CompactionCard = {
    checkpointId: 'ck_1',
    trigger: 'user',
    tokensBefore: 100,
    tokensAfter: 40,
    before: zero(),
    after: zero(),
    durationMs: 5,
    quality: 'full',
  };
  const branch = [
    e('user', { content: 'hi' }),
    e('checkpoint', { checkpointId: 'ck_1', kind: 'auto' }),
    e('capsule', {
      summary: 'x',
      firstKeptEntryId: null,
      pinnedEntryIds: [],
      tokensBefore: 100,
      tokensAfter: 40,
      trigger: 'user',
      level: 0,
      quality: 'full',
      truncateResults: false,
      checkpointId: 'ck_1',
      details: {},
    }),
  ];
  const echo: TranscriptItem = { id: 'x_1', kind: 'user', text: '/budget' };
  const answer: TranscriptItem = { id: 'x_2', kind: 'info', text: 'Effective tokens: 12' };
  const items = branchItems(branch, { ephemeral: new Map([['e_1', [echo, answer]]]), card: () => card });
  assert.deepEqual(
    items.map((i) => i.id),
    ['e_1', 'x_1', 'x_2', 'e_2', 'e_3'],
  );
  assert.deepEqual(items[4], { id: 'e_3', kind: 'compaction', card, timestamp: ts });
});

test('pages end before the given id, oldest first, and say whether more exist', () => {
  const items: TranscriptItem[] = Array.from({ length: 450 }, (_, i) => ({ id: `i${i}`, kind: 'info', text: String(i) }));
  const last = pageOf(items);
  assert.equal(last.items.length, 200);
  assert.equal(last.items[0]?.id, 'i250');
  assert.equal(last.hasMore, true);
  const older = pageOf(items, 'i250');
  assert.deepEqual([older.items[0]?.id, older.items.at(-1)?.id, older.hasMore], ['i50', 'i249', true]);
  const first = pageOf(items, 'i50');
  assert.deepEqual([first.items.length, first.hasMore], [50, false]);
  assert.deepEqual(pageOf(items, 'unknown'), { items: [], hasMore: false });
});

test('argument summaries are one line, long values cut', () => {
  assert.equal(argsSummary('{"path":"src/app.ts","startLine":1,"endLine":80}'), 'path: src/app.ts · startLine: 1 · endLine: 80');
  assert.equal(argsSummary('not json\nat all'), 'not json at all');
  assert.ok(argsSummary(JSON.stringify({ content: 'x'.repeat(5000) })).length <= 300);
});

function zero(): CompactionCard['before'] {
  return { system: 0, tools: 0, capsule: 0, messages: 0, toolResults: 0, reservedOutput: 0 };
}

test('a card is measured only when read: sending the last page of a long chat measures only its cards, and once each', () => {
  n = 0;
  const branch: Entry[] = [];
  for (let k = 1; k <= 300; k++) {
    branch.push(e('user', { content: `task ${k}` }));
    branch.push(e('checkpoint', { checkpointId: `ck_${k}`, kind: 'auto' }));
    branch.push(
      e('capsule', {
        summary: `s${k}`,
        firstKeptEntryId: null,
        pinnedEntryIds: [],
        tokensBefore: 100,
        tokensAfter: 40,
        trigger: 'hard_limit',
        level: 0,
        quality: 'full',
        truncateResults: false,
        checkpointId: `ck_${k}`,
        details: {},
      }),
    );
  }
  const measured: string[] = [];
  const card = (c: Extract<Entry, { type: 'capsule' }>): CompactionCard => {
    measured.push(c.checkpointId);
    return {
      checkpointId: c.checkpointId,
      trigger: 'hard_limit',
      tokensBefore: 100,
      tokensAfter: 40,
      before: zero(),
      after: zero(),
      durationMs: 0,
      quality: 'full',
    };
  };
  const items = branchItems(branch, { ephemeral: new Map(), card });
  assert.equal(measured.length, 0, 'folding the branch measures no card');
  const page = pageOf(items);
  const sent = JSON.parse(JSON.stringify(page)) as { items: TranscriptItem[] };
  const cardsOnPage = sent.items.filter((i) => i.kind === 'compaction');
  assert.ok(cardsOnPage.length > 0 && cardsOnPage.length < 300);
  assert.deepEqual(
    measured,
    cardsOnPage.map((i) => (i.kind === 'compaction' ? i.card.checkpointId : '')),
    'exactly the cards on the page',
  );
  JSON.stringify(page);
  assert.equal(measured.length, cardsOnPage.length, 'a card is measured once');
  assert.deepEqual(
    structuredClone(items.at(-1)),
    { id: items.at(-1)?.id, kind: 'compaction', card: card(branch.at(-1) as Extract<Entry, { type: 'capsule' }>), timestamp: ts },
    'a copy carries the card as data',
  );
});
