// An identical summary request is never sent twice in one turn: its answer (or its failure) is reused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../../src/engine/ports.js';
import { generateSummary, type GenerateArgs, type SummaryMemo } from '../../../src/engine/compaction/summaryRequest.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { counterForModel } from '../../../src/engine/tokens/tokenizer.js';
import { GOOD_SUMMARY } from './harness.js';

function model(reply: () => ChatStreamEvent[] | Error): ChatModel & { readonly requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    provider: 'test',
    model: 'm',
    requests,
    async *chat(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
      requests.push(request);
      const r = reply();
      if (r instanceof Error) throw r;
      yield* r;
    },
  };
}

function args(m: ChatModel, memo: SummaryMemo, text = 'please summarize'): GenerateArgs {
  return {
    model: m,
    system: 'sys',
    tools: [],
    lastSent: [
      { role: 'user', content: text },
      { role: 'assistant', content: 'worked on it' },
    ],
    instruction: () => 'Summarize.',
    cache: new EntryTokenCache(counterForModel('gpt-4o')),
    hardLimit: 50_000,
    maxOutputTokens: 4000,
    timeoutMs: 5_000,
    clock: { now: () => Date.now(), sleep: async () => undefined },
    signal: new AbortController().signal,
    memo,
  };
}

test('the same summary request in the same turn is answered from the first answer, with no second request', async () => {
  const m = model(() => [
    { type: 'text', delta: GOOD_SUMMARY },
    { type: 'done', finishReason: 'stop' },
  ]);
  const memo: SummaryMemo = new Map();
  const first = await generateSummary(args(m, memo));
  const again = await generateSummary(args(m, memo));
  assert.equal(first.kind, 'text');
  assert.equal(again.kind === 'text' ? again.text : '', GOOD_SUMMARY);
  assert.equal(m.requests.length, 1);
  // A different request (the branch changed) is sent; a new turn starts with an empty memo.
  await generateSummary(args(m, memo, 'something else'));
  assert.equal(m.requests.length, 2);
  await generateSummary(args(m, new Map()));
  assert.equal(m.requests.length, 3);
});

test('a summary request that failed is not sent again in the same turn; the reason says why', async () => {
  const m = model(() => Object.assign(new Error('bad request'), { status: 400 }));
  const memo: SummaryMemo = new Map();
  const first = await generateSummary(args(m, memo));
  const sentFirst = m.requests.length;
  const again = await generateSummary(args(m, memo));
  assert.equal(first.kind, 'failed');
  assert.equal(again.kind, 'failed');
  assert.match(again.kind === 'failed' ? again.reason : '', /this exact summary request already failed in this turn, so it was not sent again/);
  assert.equal(m.requests.length, sentFirst);
});
