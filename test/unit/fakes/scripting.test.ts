// Scripting the fake OpenAI server: matchers, slow/hanging/dropped replies, auth, request validation.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { isSummaryRequest, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';

let server: FakeOpenAIServer;
let client: OpenAI;

before(async () => {
  server = await startFakeOpenAI();
  client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0, logLevel: 'off' });
});
after(() => server.close());
beforeEach(() => server.reset());

const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'run', parameters: { type: 'object', properties: {} } } }];
const chat: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'fix the bug' }];
const summary: OpenAI.ChatCompletionCreateParamsNonStreaming = {
  model: 'fake-model',
  messages: [...chat, { role: 'user', content: 'Summarize the session. <capsule-request>' }],
  tools,
  tool_choice: 'none',
};

async function text(p: Promise<OpenAI.ChatCompletion>): Promise<string | null | undefined> {
  return (await p).choices[0]?.message.content;
}

test('matchers answer summary requests differently from chat requests', async () => {
  server.onMatch({ summary: true }, { status: 500 });
  server.enqueue({ text: 'chat 1' }, { text: 'chat 2' });
  const e = await client.chat.completions.create(summary).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.InternalServerError);
  assert.equal(await text(client.chat.completions.create({ model: 'fake-model', messages: chat, tools })), 'chat 1');
  const again = await client.chat.completions.create(summary).catch((x: unknown) => x);
  assert.ok(again instanceof OpenAI.APIError && again.status === 500, 'the matcher did not consume the queue');
  assert.equal(server.pendingReplies, 1);
  assert.ok(server.chatRequests.filter((r) => r.status === 500).every((r) => isSummaryRequest(r.body as never)));
});

test('a matcher with times applies that often; predicate functions and responders see the request', async () => {
  server.onMatch(
    (req) => req.body.messages.length === 1,
    (req) => ({ text: `tokens=${req.promptTokens}` }),
    { times: 1 },
  );
  server.onMatch({ lastUserContains: '<capsule-request>' }, { text: 'CAPSULE' });
  const first = await text(client.chat.completions.create({ model: 'fake-model', messages: chat }));
  assert.equal(first, `tokens=${server.chatRequests[0]?.promptTokens}`);
  assert.equal(await text(client.chat.completions.create({ model: 'fake-model', messages: chat })), 'ok');
  assert.equal(await text(client.chat.completions.create(summary)), 'CAPSULE');
});

test('setFallback replaces the default responder', async () => {
  server.setFallback((req) => ({ text: `echo: ${String(req.body.messages.at(-1)?.content)}` }));
  assert.equal(await text(client.chat.completions.create({ model: 'fake-model', messages: chat })), 'echo: fix the bug');
});

test('a delayed reply arrives in full, and a client timeout shorter than the delay gives up first', async () => {
  server.enqueue({ delayMs: 20, then: { text: 'slow' } });
  assert.equal(await text(client.chat.completions.create({ model: 'fake-model', messages: chat })), 'slow');

  // Far longer than the client's timeout, so even on a loaded machine the client gives up before the server answers.
  server.enqueue({ delayMs: 120_000, then: { text: 'too late' } });
  const e = await client.chat.completions.create({ model: 'fake-model', messages: chat }, { timeout: 50 }).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.APIConnectionTimeoutError, `got ${String(e)}`);
  await waitUntil(() => server.chatRequests[1]?.aborted === true);
  assert.equal(server.chatRequests[1]?.status, undefined, 'the server never answered the abandoned request');
});

test('a hanging request stays open until the client aborts it', async () => {
  server.enqueue({ hang: true });
  const controller = new AbortController();
  const pending = client.chat.completions.create({ model: 'fake-model', messages: chat }, { signal: controller.signal });
  const caught = pending.catch((e: unknown) => e);
  await server.waitForRequests(1);
  assert.equal(server.chatRequests[0]?.status, undefined, 'nothing answered yet');
  controller.abort();
  const e = await caught;
  assert.ok(e instanceof OpenAI.APIUserAbortError, `got ${String(e)}`);
  await waitUntil(() => server.chatRequests[0]?.aborted === true);
  assert.equal(server.chatRequests[0]?.reply, 'hang');
});

test('a stream can stall mid-way and be aborted; chunk delays still deliver everything', async () => {
  server.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', stallAfterChunks: 3 });
  const controller = new AbortController();
  const stream = await client.chat.completions.create({ model: 'fake-model', messages: chat, stream: true }, { signal: controller.signal });
  let got = '';
  for await (const chunk of stream) {
    got += chunk.choices[0]?.delta.content ?? '';
    if (got.length > 0) controller.abort();
  }
  assert.ok(got.length > 0 && got.length < 26, `partial text before the abort: ${got}`);
  await waitUntil(() => server.chatRequests[0]?.aborted === true);

  server.enqueue({ text: 'paced text arrives whole', chunkDelayMs: 5 });
  const paced = await client.chat.completions.create({ model: 'fake-model', messages: chat, stream: true });
  let all = '';
  for await (const chunk of paced) all += chunk.choices[0]?.delta.content ?? '';
  assert.equal(all, 'paced text arrives whole');
});

test('a dropped connection surfaces as a connection error', async () => {
  server.enqueue({ dropConnection: true });
  const e = await client.chat.completions.create({ model: 'fake-model', messages: chat }).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.APIConnectionError, `got ${String(e)}`);
  assert.equal(server.chatRequests[0]?.status, undefined);

  server.enqueue({ dropConnection: true, afterChunks: 2 });
  const stream = await client.chat.completions.create({ model: 'fake-model', messages: chat, stream: true });
  let partial = '';
  const e2 = await (async () => {
    for await (const chunk of stream) partial += chunk.choices[0]?.delta.content ?? '';
  })().catch((x: unknown) => x);
  // undici reports a connection cut mid-body as `TypeError: terminated`.
  assert.ok(e2 instanceof Error, 'the cut stream throws');
  assert.ok(partial.length > 0, 'chunks before the cut arrived');
});

test('the API key is required when configured', async () => {
  const guarded = await startFakeOpenAI({ apiKey: 'sk-right' });
  try {
    const wrong = new OpenAI({ baseURL: guarded.url, apiKey: 'sk-wrong-key-123', maxRetries: 0, logLevel: 'off' });
    const e = await wrong.chat.completions.create({ model: 'fake-model', messages: chat }).catch((x: unknown) => x);
    assert.ok(e instanceof OpenAI.AuthenticationError);
    assert.equal(e.code, 'invalid_api_key');
    const noKey = await fetch(`${guarded.url}/models`);
    assert.equal(noKey.status, 401);
    const right = new OpenAI({ baseURL: guarded.url, apiKey: 'sk-right', maxRetries: 0 });
    assert.equal(await text(right.chat.completions.create({ model: 'fake-model', messages: chat })), 'ok');
    assert.deepEqual(
      guarded.requests.map((r) => r.status),
      [401, 401, 200],
    );
  } finally {
    await guarded.close();
  }
});

test('unpaired tool messages and unanswered tool calls are rejected like OpenAI does', async () => {
  const orphan = await client.chat.completions
    .create({ model: 'fake-model', messages: [...chat, { role: 'tool', tool_call_id: 'call_1', content: 'out' }] })
    .catch((x: unknown) => x);
  assert.ok(orphan instanceof OpenAI.BadRequestError);
  assert.match(orphan.message, /must be a response to a preceeding message with 'tool_calls'/);

  const unanswered = await client.chat.completions
    .create({
      model: 'fake-model',
      messages: [
        ...chat,
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'run', arguments: '{}' } }] },
        { role: 'user', content: 'go on' },
      ],
      tools,
    })
    .catch((x: unknown) => x);
  assert.ok(unanswered instanceof OpenAI.BadRequestError);
  assert.match(unanswered.message, /call_9/);

  const paired = await client.chat.completions.create({
    model: 'fake-model',
    messages: [
      ...chat,
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'run', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_9', content: 'done' },
    ],
    tools,
  });
  assert.equal(paired.choices[0]?.message.content, 'ok');
  assert.equal(server.pendingReplies, 0);
});

test('tool_choice without tools, stream_options without stream, bad JSON and unknown routes get OpenAI-style errors', async () => {
  const e = await client.chat.completions.create({ model: 'fake-model', messages: chat, tool_choice: 'none' }).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.BadRequestError);
  assert.equal(e.param, 'tool_choice');
  const opts = await client.chat.completions.create({ model: 'fake-model', messages: chat, stream_options: { include_usage: true } }).catch((x: unknown) => x);
  assert.ok(opts instanceof OpenAI.BadRequestError && opts.param === 'stream_options');
  const bad = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{not json' });
  assert.equal(bad.status, 400);
  const body = (await bad.json()) as { error: { type: string } };
  assert.equal(body.error.type, 'invalid_request_error');
  const missing = await fetch(`${server.url}/embeddings`, { method: 'POST', body: '{}' });
  assert.equal(missing.status, 404);
});

test('strict models answer 404 model_not_found for unknown ids', async () => {
  const strict = await startFakeOpenAI({ models: [{ id: 'm1', contextLength: 1000 }], strictModels: true });
  try {
    const c = new OpenAI({ baseURL: strict.url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
    const e = await c.chat.completions.create({ model: 'nope', messages: chat }).catch((x: unknown) => x);
    assert.ok(e instanceof OpenAI.NotFoundError);
    assert.equal(e.code, 'model_not_found');
    assert.equal(await text(c.chat.completions.create({ model: 'm1', messages: chat })), 'ok');
  } finally {
    await strict.close();
  }
});

async function waitUntil(cond: () => boolean): Promise<void> {
  // A generous bound: the condition is an event (an abort seen by the server), not a duration.
  for (let i = 0; i < 3000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition never became true');
}
