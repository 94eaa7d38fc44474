// The OpenAI-compatible ChatModel when things go wrong: HTTP errors, context overflow, cancel, cut-off and dropped streams.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { APIConnectionError, APIError } from 'openai';
import { OpenAIChatModel } from '../../../src/node/providers/openaiModel.js';
import { classifyError } from '../../../src/engine/provider/faults.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { collect, eventually, lastChat, request } from './openaiHelpers.js';

let server: FakeOpenAIServer;
let model: OpenAIChatModel;

before(async () => {
  server = await startFakeOpenAI({ window: 65000, apiKey: 'sk-test' });
  model = new OpenAIChatModel({ baseURL: server.url, apiKey: 'sk-test', model: 'fake-model' });
});
after(() => server.close());
beforeEach(() => server.reset());

// Cancel tests would hang forever if a cancel were ignored; this bound only turns that hang into a failure.
const HANG_GUARD = { timeout: 20_000 };

const signal = (): AbortSignal => new AbortController().signal;

function isAbort(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

const LONG = 'This answer is long enough to need many chunks on the wire, so a cancel lands in the middle of it. '.repeat(4);

for (const [status, code] of [
  [429, 'rate_limit_exceeded'],
  [500, null],
] as const) {
  test(`HTTP ${status} propagates as the client's APIError with its status, and is not retried`, async () => {
    server.enqueue({ status });
    await assert.rejects(collect(model.chat(request(), signal())), (e: unknown) => {
      assert.ok(e instanceof APIError);
      assert.equal(e.status, status);
      assert.equal(e.code, code);
      return true;
    });
    assert.equal(server.chatRequests.length, 1);
  });
}

test('a request over the real window surfaces as 400 context_length_exceeded, streaming or not', async () => {
  server.setWindow(300);
  const big = request({ messages: [{ role: 'user', content: 'word '.repeat(400) }] });
  for (const stream of [true, false]) {
    await assert.rejects(collect(model.chat({ ...big, stream }, signal())), (e: unknown) => {
      assert.ok(e instanceof APIError);
      assert.equal(e.status, 400);
      assert.equal(e.code, 'context_length_exceeded');
      assert.match(e.message, /maximum context length is 300 tokens/);
      return true;
    });
  }
  assert.deepEqual(
    server.chatRequests.map((r) => r.reply),
    ['contextLength', 'contextLength'],
  );
});

test('a scripted overflow and a wrong key keep their status and code', async () => {
  server.enqueue({ contextOverflow: true });
  await assert.rejects(collect(model.chat(request(), signal())), { status: 400, code: 'context_length_exceeded' });
  const wrongKey = new OpenAIChatModel({ baseURL: server.url, apiKey: 'sk-wrong-key', model: 'fake-model' });
  await assert.rejects(collect(wrongKey.chat(request(), signal())), { status: 401, code: 'invalid_api_key' });
});

test('cancelling mid-stream rejects with an AbortError and closes the connection', HANG_GUARD, async () => {
  // The server stalls after a few chunks: only the cancel can end this request.
  server.enqueue({ text: LONG, stallAfterChunks: 3 });
  const controller = new AbortController();
  const iterator = model.chat(request(), controller.signal)[Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.equal(first.done, false);
  assert.equal(first.value?.type, 'text');
  controller.abort();
  await assert.rejects(
    (async () => {
      while (!(await iterator.next()).done);
    })(),
    isAbort,
  );
  await eventually(() => lastChat(server).aborted);
  assert.equal(lastChat(server).completed, false);
});

test('cancelling before the answer starts, or before sending, rejects with an AbortError', HANG_GUARD, async () => {
  server.enqueue({ hang: true });
  const controller = new AbortController();
  const pending = collect(model.chat(request(), controller.signal));
  await server.waitForRequests(1);
  controller.abort();
  await assert.rejects(pending, isAbort);
  await eventually(() => lastChat(server).aborted);
  const already = AbortSignal.abort();
  await assert.rejects(collect(model.chat(request({ stream: false }), already)), isAbort);
  assert.equal(server.chatRequests.length, 1, 'an already-cancelled request is never sent');
});

test('a consumer that stops reading closes the connection', HANG_GUARD, async () => {
  server.enqueue({ text: LONG, chunkDelayMs: 5 });
  for await (const e of model.chat(request(), signal())) {
    if (e.type === 'text') break;
  }
  await eventually(() => lastChat(server).aborted);
});

test('truncated JSON fails the request, streamed or not', async () => {
  server.enqueue({ truncatedJson: true }, { truncatedJson: true });
  await assert.rejects(collect(model.chat(request(), signal())), SyntaxError);
  await assert.rejects(collect(model.chat(request({ stream: false }), signal())), SyntaxError);
});

test('a dropped connection fails the request and is not mistaken for a cancel', async () => {
  server.enqueue({ dropConnection: true, afterChunks: 2 }, { dropConnection: true });
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const e of model.chat(request(), signal())) seen.push(e.type);
    })(),
    (e: unknown) => e instanceof Error && !isAbort(e),
  );
  assert.equal(seen.includes('done'), false);
  await assert.rejects(collect(model.chat(request(), signal())), APIConnectionError);
});

test('a stream that ends cleanly without a finish_reason throws an IncompleteStreamError (transient)', async () => {
  const chunk = (content: string): string =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const body = `${chunk('Half an ')}${chunk('answer')}data: [DONE]\n\n`;
  server.enqueue({ status: 200, body, headers: { 'content-type': 'text/event-stream' } });
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const e of model.chat(request(), signal())) seen.push(e.type === 'text' ? e.delta : e.type);
    })(),
    (e: unknown) => e instanceof Error && e.name === 'IncompleteStreamError' && classifyError(e).kind === 'transient',
  );
  assert.deepEqual(seen, ['Half an ', 'answer']);
});
