// The Agent over in-memory ports only (no Node wiring): a store failure mid-batch and a model that ignores its abort signal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import { Agent } from '../../../src/engine/agent/turnLoop.js';
import { resolveSettings } from '../../../src/engine/config.js';
import type { ChatModel, ChatRequest, ChatStreamEvent, ToolHost } from '../../../src/engine/ports.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import type { ToolResultEntry } from '../../../src/engine/transcript/schema.js';
import { verifySession } from '../../../src/engine/transcript/verify.js';
import { MemoryArchive, MemoryStore, seqIds } from '../compaction/memoryStore.js';
import { instantSleepClock } from './agentHelpers.js';

/** First request: two tool calls; later ones: a short answer. */
class ToolCallingModel implements ChatModel {
  readonly provider = 'mem';
  readonly model = 'gpt-4o';
  readonly requests: ChatRequest[] = [];
  async *chat(request: ChatRequest): AsyncIterable<ChatStreamEvent> {
    this.requests.push(request);
    if (this.requests.length === 1) {
      yield { type: 'tool_call', call: { id: 'call_a', name: 'echo', arguments: '{"n":1}' } };
      yield { type: 'tool_call', call: { id: 'call_b', name: 'echo', arguments: '{"n":2}' } };
      yield { type: 'done', finishReason: 'tool_calls' };
      return;
    }
    yield { type: 'text', delta: 'done' };
    yield { type: 'done', finishReason: 'stop' };
  }
}

const ECHO: ToolHost = {
  schemas: () => [{ name: 'echo', description: 'Echo the arguments.', parameters: { type: 'object', properties: { n: { type: 'integer' } } } }],
  run: async (_name, args) => ({ isError: false, content: `echo ${args}` }),
};

function agentOn(store: MemoryStore, model: ChatModel, tools: ToolHost = ECHO): Agent {
  return new Agent({
    store,
    archive: new MemoryArchive(),
    clock: instantSleepClock,
    ids: seqIds(),
    cache: new EntryTokenCache(counterForModel('gpt-4o')),
    model: { chat: model, contextWindow: 20_000, maxOutputTokens: 2_000 },
    tools,
    resolved: resolveSettings({ raw: { keepRecentTokens: 2000, minReclaimableTokens: 1000, safetyReserveTokens: 1000 }, env: {} }),
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
  });
}

test('a store failure between a tool call and its results still leaves every call answered', async () => {
  const store = new MemoryStore();
  let failed = false;
  store.afterAppend = (e) => {
    if (e.type === 'tool_result' && !failed) {
      failed = true;
      throw new Error('disk full');
    }
  };
  const agent = agentOn(store, new ToolCallingModel());
  const r = await agent.runTurn({ userText: 'Echo twice', signal: new AbortController().signal });
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /disk full/);
  const results = store.ofType('tool_result') as ToolResultEntry[];
  assert.deepEqual(
    results.map((x) => x.toolCallId),
    ['call_a', 'call_b'],
  );
  assert.match(results[1]?.content ?? '', /^Not run/);
  assert.equal(verifySession(store.tree, []).ok, true);
  assert.equal(store.ofType('turn_end')[0]?.status, 'failed');
});

test('a model that ignores its abort signal cannot hold a cancelled turn', async () => {
  const stuck: ChatModel = {
    provider: 'mem',
    model: 'gpt-4o',
    chat: () => ({
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<ChatStreamEvent>>(() => undefined) }),
    }),
  };
  const store = new MemoryStore();
  const agent = agentOn(store, stuck);
  const ctrl = new AbortController();
  agent.subscribe((e) => {
    if (e.type === 'assistant_start') setTimeout(() => ctrl.abort(), 10);
  });
  const r = await agent.runTurn({ userText: 'Hello?', signal: ctrl.signal });
  assert.equal(r.status, 'cancelled');
  assert.equal(store.ofType('turn_end')[0]?.status, 'cancelled');
});

test('turns queue: a second runTurn waits for the first and sees its history', async () => {
  const store = new MemoryStore();
  const model = new ToolCallingModel();
  const agent = agentOn(store, model);
  const signal = new AbortController().signal;
  const [a, b] = await Promise.all([agent.runTurn({ userText: 'one', signal }), agent.runTurn({ userText: 'two', signal })]);
  assert.equal(a.status, 'completed');
  assert.equal(b.status, 'completed');
  const last = model.requests[model.requests.length - 1];
  assert.deepEqual(
    last?.messages.filter((m) => m.role === 'user').map((m) => m.content),
    ['one', 'two'],
  );
  assert.equal(verifySession(store.tree, []).ok, true);
});
