// The fake server's token counting, real context-window enforcement, prompt-cache figures and max_tokens.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countRequestTokens, encodeRequest, MEDIA_PART_TOKENS, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { commonPrefixLength } from '../../fakes/tokens.js';

let server: FakeOpenAIServer;
let client: OpenAI;

before(async () => {
  server = await startFakeOpenAI({ window: 4000 });
  client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
});
after(() => server.close());
beforeEach(() => server.reset());

/** Text of about `n` tokens (each "word " repetition is one o200k token). */
function words(n: number, word = 'alpha'): string {
  return `${word} `.repeat(n);
}

test('token counting follows the documented layout', () => {
  const n = (s: string): number => encode(s).length;
  assert.equal(countRequestTokens({ messages: [{ role: 'user', content: 'hello world' }] }), 3 + n('user') + n('hello world') + 3);
  const tools = [{ type: 'function', function: { name: 'run', parameters: {} } }];
  const withTools = countRequestTokens({
    tools,
    messages: [
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ],
  });
  const expected = n(JSON.stringify(tools)) + (3 + n('assistant') + 3 + n('call_1') + n('run') + n('{"a":1}')) + (3 + n('tool') + n('done') + n('call_1')) + 3;
  assert.equal(withTools, expected);
  const image = countRequestTokens({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:,' } },
        ],
      },
    ],
  });
  assert.equal(image, 3 + n('user') + n('look') + MEDIA_PART_TOKENS + 3);
  assert.equal(countRequestTokens({ messages: [{ role: 'user', content: 'a <|endoftext|> b' }] }) > 6, true);
});

test('a request over the window gets 400 context_length_exceeded with both figures, and consumes no reply', async () => {
  server.enqueue({ text: 'kept for later' });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: words(4100) }];
  const counted = countRequestTokens({ messages });
  assert.ok(counted > 4000);
  const e = await client.chat.completions.create({ model: 'fake-model', messages }).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.BadRequestError);
  assert.equal(e.code, 'context_length_exceeded');
  assert.equal(e.param, 'messages');
  assert.match(e.message, new RegExp(`maximum context length is 4000 tokens\\. However, your messages resulted in ${counted} tokens`));
  assert.equal(server.pendingReplies, 1);
  assert.equal(server.chatRequests[0]?.reply, 'contextLength');
  assert.equal(server.chatRequests[0]?.promptTokens, counted);

  const small = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(small.choices[0]?.message.content, 'kept for later');
});

test('max_tokens / max_completion_tokens count against the window', async () => {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: words(3000) }];
  const counted = countRequestTokens({ messages });
  const fits = await client.chat.completions.create({ model: 'fake-model', messages, max_tokens: 4000 - counted });
  assert.equal(fits.choices[0]?.finish_reason, 'stop');
  for (const limit of [{ max_tokens: 4001 - counted }, { max_completion_tokens: 1500 }]) {
    const e = await client.chat.completions.create({ model: 'fake-model', messages, ...limit }).catch((x: unknown) => x);
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.code, 'context_length_exceeded');
    assert.match(e.message, new RegExp(`\\(${counted} in the messages, \\d+ in the completion\\)`));
  }
});

test('setWindow and per-model windows change what fits; /v1/models reports them', async () => {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: words(500) }];
  assert.equal((await client.chat.completions.create({ model: 'fake-model', messages })).choices[0]?.message.content, 'ok');
  server.setWindow(400);
  const e = await client.chat.completions.create({ model: 'fake-model', messages }).catch((x: unknown) => x);
  assert.ok(e instanceof OpenAI.BadRequestError && e.code === 'context_length_exceeded');

  const multi = await startFakeOpenAI({
    models: [
      { id: 'small', contextLength: 300 },
      { id: 'big', contextLength: 9000 },
    ],
  });
  try {
    const c = new OpenAI({ baseURL: multi.url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
    const tooBig = await c.chat.completions.create({ model: 'small', messages }).catch((x: unknown) => x);
    assert.ok(tooBig instanceof OpenAI.BadRequestError);
    assert.match(tooBig.message, /maximum context length is 300 tokens/);
    assert.equal((await c.chat.completions.create({ model: 'big', messages })).choices[0]?.message.content, 'ok');
    const listed = (await c.models.list()).data.map((m) => [m.id, (m as unknown as Record<string, unknown>)['context_length']]);
    assert.deepEqual(listed, [
      ['small', 300],
      ['big', 9000],
    ]);
  } finally {
    await multi.close();
  }
});

test('cached_tokens reports the prefix shared with the previous answered request, in steps of 128', async () => {
  server.setWindow(20000);
  const system: OpenAI.ChatCompletionMessageParam = { role: 'system', content: words(2000, 'rule') };
  const turn1: OpenAI.ChatCompletionMessageParam[] = [system, { role: 'user', content: 'first question' }];
  const turn2: OpenAI.ChatCompletionMessageParam[] = [...turn1, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }];
  const r1 = await client.chat.completions.create({ model: 'fake-model', messages: turn1 });
  assert.equal(r1.usage?.prompt_tokens_details?.cached_tokens, 0, 'nothing cached on the first request');

  const r2 = await client.chat.completions.create({ model: 'fake-model', messages: turn2 });
  const shared = commonPrefixLength(encodeRequest({ messages: turn1 }), encodeRequest({ messages: turn2 }));
  const cached = r2.usage?.prompt_tokens_details?.cached_tokens ?? -1;
  assert.equal(cached, Math.floor(shared / 128) * 128);
  assert.ok(cached >= 1024 && cached <= (r2.usage?.prompt_tokens ?? 0));

  // An oversized request is rejected, so it does not replace the cached prefix.
  await client.chat.completions.create({ model: 'fake-model', messages: [system, { role: 'user', content: words(19000) }] }).catch(() => undefined);
  const r3 = await client.chat.completions.create({ model: 'fake-model', messages: turn2 });
  const prompt3 = r3.usage?.prompt_tokens ?? 0;
  assert.equal(r3.usage?.prompt_tokens_details?.cached_tokens, Math.floor(prompt3 / 128) * 128, 'same request: all of it');

  const changedSystem: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'new rules' }, ...turn2.slice(1)];
  const r4 = await client.chat.completions.create({ model: 'fake-model', messages: changedSystem });
  assert.equal(r4.usage?.prompt_tokens_details?.cached_tokens, 0, 'a changed prefix is not cached');
});

test('a reply longer than max_tokens is cut with finish_reason "length"', async () => {
  server.enqueue({ text: words(50, 'beta') });
  const r = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
  assert.equal(r.choices[0]?.finish_reason, 'length');
  assert.equal(r.usage?.completion_tokens, 5);
  assert.equal(r.choices[0]?.message.content, words(5, 'beta').trimEnd());
});

test('usage can be overridden or omitted to mimic other providers', async () => {
  server.enqueue({ text: 'a', usage: { promptTokens: 1234, cachedTokens: 1024 } }, { text: 'b', omitUsage: true });
  const r = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'x' }] });
  assert.equal(r.usage?.prompt_tokens, 1234);
  assert.equal(r.usage?.prompt_tokens_details?.cached_tokens, 1024);
  const s = await client.chat.completions.create({
    model: 'fake-model',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of s) assert.equal(chunk.usage ?? undefined, undefined);
});
