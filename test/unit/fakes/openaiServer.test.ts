// The fake OpenAI server driven by the real `openai` client: streaming, tool calls, errors, recording.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { countRequestTokens, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';

let server: FakeOpenAIServer;
let client: OpenAI;

before(async () => {
  server = await startFakeOpenAI({ window: 65000 });
  client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0, logLevel: 'off' });
});
after(() => server.close());
beforeEach(() => server.reset());

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Say hello.' },
];

const readTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

test('streams text in several chunks and reports usage in a final chunk without choices', async () => {
  server.enqueue({ text: 'Hello there, this is a streamed answer.' });
  const stream = await client.chat.completions.create({
    model: 'fake-model',
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let contentChunks = 0;
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  let lastChoices = -1;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice?.delta.content) {
      text += choice.delta.content;
      contentChunks++;
    }
    if (choice?.finish_reason) finish = choice.finish_reason;
    if (chunk.usage) usage = chunk.usage;
    lastChoices = chunk.choices.length;
  }
  assert.equal(text, 'Hello there, this is a streamed answer.');
  assert.ok(contentChunks >= 2, `content came in ${contentChunks} chunk(s)`);
  assert.equal(finish, 'stop');
  assert.equal(lastChoices, 0, 'the usage chunk has no choices');
  const expectedPrompt = countRequestTokens({ messages });
  assert.equal(usage?.prompt_tokens, expectedPrompt);
  assert.ok((usage?.completion_tokens ?? 0) > 0);
  assert.equal(usage?.total_tokens, expectedPrompt + (usage?.completion_tokens ?? 0));
  assert.equal(usage?.prompt_tokens_details?.cached_tokens, 0);
});

test('a stream without include_usage carries no usage at all', async () => {
  server.enqueue({ text: 'no usage here' });
  const stream = await client.chat.completions.create({ model: 'fake-model', messages, stream: true });
  for await (const chunk of stream) assert.equal(chunk.usage ?? undefined, undefined);
});

test('streamed tool calls reassemble into the scripted names and arguments', async () => {
  server.enqueue({
    text: 'Reading both.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'src/a.ts' } },
      { name: 'read_file', arguments: '{"path":"src/b.ts"}', id: 'call_b' },
    ],
  });
  const stream = await client.chat.completions.create({
    model: 'fake-model',
    messages,
    tools: [readTool],
    stream: true,
  });
  const calls: { id: string; name: string; args: string }[] = [];
  let sawEmptyFirstArguments = false;
  let finish: string | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice?.finish_reason) finish = choice.finish_reason;
    for (const d of choice?.delta.tool_calls ?? []) {
      if (d.id !== undefined) {
        calls[d.index] = { id: d.id, name: d.function?.name ?? '', args: d.function?.arguments ?? '' };
        if (d.function?.arguments === '') sawEmptyFirstArguments = true;
      } else {
        const c = calls[d.index];
        assert.ok(c, 'an argument fragment arrives after its call was announced');
        c.args += d.function?.arguments ?? '';
      }
    }
  }
  assert.equal(finish, 'tool_calls');
  assert.ok(sawEmptyFirstArguments, 'the first delta of a call has empty arguments, as OpenAI sends');
  assert.equal(calls.length, 2);
  assert.equal(calls[0]?.name, 'read_file');
  assert.deepEqual(JSON.parse(calls[0]?.args ?? ''), { path: 'src/a.ts' });
  assert.match(calls[0]?.id ?? '', /^call_/);
  assert.equal(calls[1]?.id, 'call_b');
  assert.deepEqual(JSON.parse(calls[1]?.args ?? ''), { path: 'src/b.ts' });
});

test('non-streaming answers carry the message, tool calls, finish reason and usage', async () => {
  server.enqueue({ text: 'plain answer' }, { toolCalls: [{ name: 'read_file', arguments: { path: 'x' } }] });
  const first = await client.chat.completions.create({ model: 'fake-model', messages });
  assert.equal(first.object, 'chat.completion');
  assert.equal(first.choices[0]?.message.content, 'plain answer');
  assert.equal(first.choices[0]?.finish_reason, 'stop');
  assert.equal(first.usage?.prompt_tokens, countRequestTokens({ messages }));

  const second = await client.chat.completions.create({ model: 'fake-model', messages, tools: [readTool] });
  const call = second.choices[0]?.message.tool_calls?.[0];
  assert.equal(second.choices[0]?.message.content, null);
  assert.equal(second.choices[0]?.finish_reason, 'tool_calls');
  assert.equal(call?.type, 'function');
  assert.equal(call?.type === 'function' ? call.function.name : '', 'read_file');
  assert.equal(call?.type === 'function' ? call.function.arguments : '', '{"path":"x"}');
});

test('with an empty queue the default responder answers "ok"', async () => {
  const r = await client.chat.completions.create({ model: 'fake-model', messages });
  assert.equal(r.choices[0]?.message.content, 'ok');
});

test('empty replies have content "" and no tool calls, streamed or not', async () => {
  server.enqueue({ empty: true }, { empty: true });
  const r = await client.chat.completions.create({ model: 'fake-model', messages });
  assert.equal(r.choices[0]?.message.content, '');
  assert.equal(r.choices[0]?.message.tool_calls, undefined);
  const stream = await client.chat.completions.create({ model: 'fake-model', messages, stream: true });
  let text = '';
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(chunk.choices[0]?.delta.tool_calls, undefined);
  }
  assert.equal(text, '');
});

test('a scripted context overflow surfaces as BadRequestError 400 context_length_exceeded', async () => {
  server.enqueue({ contextOverflow: true });
  const err = await client.chat.completions.create({ model: 'fake-model', messages }).catch((e: unknown) => e);
  assert.ok(err instanceof OpenAI.BadRequestError);
  assert.equal(err.status, 400);
  assert.equal(err.code, 'context_length_exceeded');
  assert.equal(err.type, 'invalid_request_error');
  assert.match(err.message, /maximum context length is 65000 tokens/);
});

test('429 carries retry-after, and a retrying client succeeds on the next scripted reply', async () => {
  server.enqueue({ status: 429, headers: { 'retry-after': '7' } });
  const err = await client.chat.completions.create({ model: 'fake-model', messages }).catch((e: unknown) => e);
  assert.ok(err instanceof OpenAI.RateLimitError);
  assert.equal(err.status, 429);
  assert.equal(err.headers.get('retry-after'), '7');
  assert.equal(err.code, 'rate_limit_exceeded');

  server.enqueue({ status: 429, headers: { 'retry-after-ms': '10' } }, { text: 'after retry' });
  const retrying = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 1, logLevel: 'off' });
  const r = await retrying.chat.completions.create({ model: 'fake-model', messages });
  assert.equal(r.choices[0]?.message.content, 'after retry');
  const statuses = server.chatRequests.map((q) => q.status);
  assert.deepEqual(statuses, [429, 429, 200]);
  assert.equal(server.chatRequests[2]?.headers['x-stainless-retry-count'], '1');
});

test('500 and 503 surface as server errors with OpenAI-shaped bodies; custom bodies pass through', async () => {
  server.enqueue({ status: 500 }, { status: 503, body: { error: { message: 'busy', type: 'server_error', code: 'x' } } });
  const e500 = await client.chat.completions.create({ model: 'fake-model', messages }).catch((e: unknown) => e);
  assert.ok(e500 instanceof OpenAI.InternalServerError);
  assert.equal(e500.status, 500);
  assert.match(e500.message, /The server had an error/);
  const e503 = await client.chat.completions.create({ model: 'fake-model', messages }).catch((e: unknown) => e);
  assert.ok(e503 instanceof OpenAI.APIError);
  assert.equal(e503.status, 503);
  assert.equal(e503.code, 'x');
});

test('truncated JSON surfaces as an error, non-streamed and streamed', async () => {
  server.enqueue({ truncatedJson: true }, { truncatedJson: true });
  const e1 = await client.chat.completions.create({ model: 'fake-model', messages }).catch((e: unknown) => e);
  assert.ok(e1 instanceof SyntaxError, `got ${String(e1)}`);
  assert.match(e1.message, /Unexpected end of JSON input/);

  const stream = await client.chat.completions.create({ model: 'fake-model', messages, stream: true });
  let text = '';
  const e2 = await (async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  })().catch((e: unknown) => e);
  assert.ok(e2 instanceof SyntaxError, `got ${String(e2)}`);
  assert.match(e2.message, /Unexpected end of JSON input/);
  assert.ok(text.length > 0, 'some content arrived before the cut');
});

test('requests are recorded with body, headers, counted tokens and status', async () => {
  server.enqueue({ status: 500 });
  await client.chat.completions.create({ model: 'fake-model', messages }).catch(() => undefined);
  await client.chat.completions.create({ model: 'fake-model', messages, tools: [readTool], stream: true }).then(async (s) => {
    for await (const _ of s) void _;
  });
  const [a, b] = server.chatRequests;
  assert.equal(server.requests.length, 2);
  assert.equal(a?.status, 500);
  assert.equal(a?.reply, 'status');
  assert.equal(a?.headers['authorization'], 'Bearer sk-test');
  assert.deepEqual((a?.body as { messages: unknown }).messages, messages);
  assert.equal(a?.promptTokens, countRequestTokens({ messages }));
  assert.equal(b?.status, 200);
  assert.equal(b?.stream, true);
  assert.equal(b?.completed, true);
  assert.equal(b?.promptTokens, countRequestTokens({ messages, tools: [readTool] }));
  assert.ok((b?.promptTokens ?? 0) > (a?.promptTokens ?? 0), 'tool schemas count');
  server.reset();
  assert.equal(server.requests.length, 0);
});

test('/v1/models lists the configured models with their context length', async () => {
  const page = await client.models.list();
  const ids = page.data.map((m) => m.id);
  assert.deepEqual(ids, ['fake-model']);
  const raw = page.data[0] as unknown as Record<string, unknown>;
  assert.equal(raw['context_length'], 65000);
  assert.equal(raw['max_model_len'], 65000);
  server.setWindow(32000);
  const again = await client.models.list();
  assert.equal((again.data[0] as unknown as Record<string, unknown>)['context_length'], 32000);
  const one = await client.models.retrieve('fake-model');
  assert.equal(one.id, 'fake-model');
});
