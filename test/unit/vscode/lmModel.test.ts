// The vscode.lm adapter against a fake `vscode`: message mapping, tools, stream events, cancellation, errors, listing, limits, counting.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type * as vscode from 'vscode';
import { classifyError } from '../../../src/engine/provider/faults.js';
import type { ChatRequest, ChatStreamEvent } from '../../../src/engine/ports.js';
import { hardLimitOf } from '../../../src/engine/tokens/tokenLimits.js';
import {
  CancellationTokenSource,
  FakeLanguageModelChat,
  LanguageModelChatMessage,
  LanguageModelChatMessageRole,
  LanguageModelError,
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  installFakeLmVscode,
  type Scripted,
} from './fakeLm.js';

const fake = installFakeLmVscode();
type LmModule = typeof import('../../../src/vscode/providers/lmModel.js');
let lm: LmModule;

before(async () => {
  lm = await import('../../../src/vscode/providers/lmModel.js');
});

const asChat = (m: FakeLanguageModelChat): vscode.LanguageModelChat => m as unknown as vscode.LanguageModelChat;

const READ_TOOL = {
  name: 'read_file',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function request(over: Partial<ChatRequest> = {}): ChatRequest {
  return { system: 'You are Capsule.', messages: [{ role: 'user', content: 'hi' }], tools: [], stream: true, ...over };
}

async function collect(it: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

function model(...scripts: Scripted[]): { fakeModel: FakeLanguageModelChat; chat: InstanceType<LmModule['VsCodeLmChatModel']> } {
  const fakeModel = new FakeLanguageModelChat('gpt-4o').script(...scripts);
  return { fakeModel, chat: new lm.VsCodeLmChatModel(asChat(fakeModel)) };
}

/** A broken cancel path hangs instead of failing; this turns the hang into a failure. */
const HANG_GUARD = { timeout: 20_000 };

const text = (value: string): Scripted['steps'] => [{ part: new LanguageModelTextPart(value) }];

test('the system prompt becomes a prefaced first User message, and tool calls/results keep their ids', async () => {
  const { fakeModel, chat } = model({ steps: text('ok') });
  await collect(
    chat.chat(
      request({
        messages: [
          { role: 'user', content: 'list and read' },
          {
            role: 'assistant',
            content: 'Looking.',
            toolCalls: [
              { id: 'call_a', name: 'list_files', arguments: '{"dir":"src"}' },
              { id: 'call_b', name: 'read_file', arguments: '{"path":"a.ts"}' },
            ],
          },
          { role: 'tool', toolCallId: 'call_a', content: 'a.ts' },
          { role: 'tool', toolCallId: 'call_b', content: 'export {}' },
          { role: 'assistant', content: 'Done.' },
          { role: 'user', content: 'thanks' },
        ],
      }),
      new AbortController().signal,
    ),
  );
  const sent = fakeModel.requests[0]?.messages ?? [];
  assert.deepEqual(
    sent.map((m) => m.role),
    [
      LanguageModelChatMessageRole.User,
      LanguageModelChatMessageRole.User,
      LanguageModelChatMessageRole.Assistant,
      LanguageModelChatMessageRole.User,
      LanguageModelChatMessageRole.Assistant,
      LanguageModelChatMessageRole.User,
    ],
  );
  assert.deepEqual(sent[0]?.content, [new LanguageModelTextPart('System instructions:\n\nYou are Capsule.')]);
  assert.deepEqual(sent[1]?.content, [new LanguageModelTextPart('list and read')]);
  assert.deepEqual(sent[2]?.content, [
    new LanguageModelTextPart('Looking.'),
    new LanguageModelToolCallPart('call_a', 'list_files', { dir: 'src' }),
    new LanguageModelToolCallPart('call_b', 'read_file', { path: 'a.ts' }),
  ]);
  // Both results answer one assistant turn, so they travel in one User message, in order.
  assert.deepEqual(sent[3]?.content, [
    new LanguageModelToolResultPart('call_a', [new LanguageModelTextPart('a.ts')]),
    new LanguageModelToolResultPart('call_b', [new LanguageModelTextPart('export {}')]),
  ]);
  assert.ok(sent[3]?.content.every((p) => p instanceof LanguageModelToolResultPart));
  assert.deepEqual(sent[4]?.content, [new LanguageModelTextPart('Done.')]);
  assert.deepEqual(sent[5]?.content, [new LanguageModelTextPart('thanks')]);
});

test('no system message without a system prompt; bad tool arguments and images are kept visible, not dropped', async () => {
  const { fakeModel, chat } = model({ steps: [] });
  await collect(
    chat.chat(
      request({
        system: '',
        messages: [
          { role: 'user', content: 'look', images: [{ url: 'data:image/png;base64,AAAA' }] },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path": ' }] },
          { role: 'tool', toolCallId: 'c1', content: 'Error: invalid JSON arguments' },
        ],
      }),
      new AbortController().signal,
    ),
  );
  const sent = fakeModel.requests[0]?.messages ?? [];
  assert.equal(sent.length, 3);
  assert.deepEqual(sent[0]?.content, [new LanguageModelTextPart('look\n\n[1 image omitted: the VS Code language model API does not accept images]')]);
  assert.deepEqual(sent[1]?.content, [new LanguageModelToolCallPart('c1', 'read_file', { invalidArguments: '{"path": ' })]);
});

test('tools are sent as LanguageModelChatTools in auto mode; toolChoice none sends no tools but the same messages', async () => {
  const { fakeModel, chat } = model({ steps: [] }, { steps: [] });
  const messages: ChatRequest['messages'] = [
    { role: 'user', content: 'read a.ts' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }] },
    { role: 'tool', toolCallId: 'c1', content: 'x' },
  ];
  await collect(chat.chat(request({ messages, tools: [READ_TOOL] }), new AbortController().signal));
  await collect(chat.chat(request({ messages, tools: [READ_TOOL], toolChoice: 'none' }), new AbortController().signal));
  const [auto, none] = fakeModel.requests;
  assert.deepEqual(auto?.options?.tools, [{ name: 'read_file', description: 'Read a file', inputSchema: READ_TOOL.parameters }]);
  assert.equal(auto?.options?.toolMode, 1);
  assert.equal(none?.options?.tools, undefined);
  assert.equal(none?.options?.toolMode, undefined);
  assert.match(none?.options?.justification ?? '', /Capsule/);
  assert.deepEqual(none?.messages, auto?.messages);
});

test('text and tool-call parts become text and tool_call events, then the vendor-counted usage and done', async () => {
  const { chat, fakeModel } = model({
    steps: [
      { part: new LanguageModelTextPart('Let me ') },
      { part: new LanguageModelTextPart('') },
      { part: { kind: 'some-future-part' } },
      { part: new LanguageModelTextPart('look.') },
      { part: new LanguageModelToolCallPart('toolu_1', 'read_file', { path: 'src/a.ts' }) },
    ],
  });
  assert.equal(chat.provider, 'vscode-lm:copilot');
  assert.equal(chat.model, 'gpt-4o');
  const events = await collect(chat.chat(request({ tools: [READ_TOOL] }), new AbortController().signal));
  const vendor = lm.lmTokenCounter(asChat(fakeModel));
  const promptTokens = await vendor.countRequestTokens(request({ tools: [READ_TOOL] }));
  assert.ok(promptTokens > 0);
  assert.deepEqual(events, [
    { type: 'text', delta: 'Let me ' },
    { type: 'text', delta: 'look.' },
    { type: 'tool_call', call: { id: 'toolu_1', name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
    { type: 'usage', usage: { promptTokens, completionTokens: await vendor.count('Let me look.') } },
    { type: 'done', finishReason: 'tool_calls' },
  ]);
  const { chat: plain } = model({ steps: text('hello') });
  assert.deepEqual(await collect(plain.chat(request(), new AbortController().signal)), [
    { type: 'text', delta: 'hello' },
    { type: 'usage', usage: { promptTokens: await vendor.countRequestTokens(request()), completionTokens: await vendor.count('hello') } },
    { type: 'done', finishReason: 'stop' },
  ]);
});

async function abortMidStream(
  stall: 'stallUntilCancelled' | 'stallForever',
): Promise<{ fakeModel: FakeLanguageModelChat; got: ChatStreamEvent[]; error: unknown }> {
  const { fakeModel, chat } = model({ steps: [{ part: new LanguageModelTextPart('partial') }, stall, { part: new LanguageModelTextPart('never') }] });
  const ac = new AbortController();
  const got: ChatStreamEvent[] = [];
  let error: unknown;
  try {
    for await (const e of chat.chat(request(), ac.signal)) {
      got.push(e);
      ac.abort();
    }
  } catch (e) {
    error = e;
  }
  return { fakeModel, got, error };
}

test('aborting the signal cancels the request token and the iteration ends with an AbortError', HANG_GUARD, async () => {
  const { fakeModel, got, error } = await abortMidStream('stallUntilCancelled');
  assert.deepEqual(got, [{ type: 'text', delta: 'partial' }]);
  assert.equal((error as Error | undefined)?.name, 'AbortError');
  assert.equal(classifyError(error).kind, 'abort');
  assert.equal(fakeModel.requests[0]?.token.isCancellationRequested, true);
});

test('a stream that ignores its token still ends promptly with an AbortError', HANG_GUARD, async () => {
  const { fakeModel, error } = await abortMidStream('stallForever');
  assert.equal((error as Error | undefined)?.name, 'AbortError');
  assert.equal(fakeModel.requests[0]?.token.isCancellationRequested, true);
});

test('an abort while sendRequest is pending ends with an AbortError; an aborted signal sends nothing', HANG_GUARD, async () => {
  const { fakeModel, chat } = model({ hangRequest: true });
  const ac = new AbortController();
  const pending = collect(chat.chat(request(), ac.signal));
  setImmediate(() => ac.abort());
  await assert.rejects(pending, { name: 'AbortError' });
  assert.equal(fakeModel.requests[0]?.token.isCancellationRequested, true);

  const pre = new AbortController();
  pre.abort();
  await assert.rejects(collect(chat.chat(request(), pre.signal)), { name: 'AbortError' });
  assert.equal(fakeModel.requests.length, 1);
});

test('a consumer that stops reading cancels the request; a finished one releases its token without cancelling', async () => {
  const { fakeModel, chat } = model({ steps: [...(text('a') ?? []), ...(text('b') ?? [])] }, { steps: text('c') });
  for await (const e of chat.chat(request(), new AbortController().signal)) {
    assert.equal(e.type, 'text');
    break;
  }
  assert.equal(fakeModel.requests[0]?.token.isCancellationRequested, true);
  await collect(chat.chat(request(), new AbortController().signal));
  assert.equal(fakeModel.requests[1]?.token.isCancellationRequested, false);
  assert.ok(
    CancellationTokenSource.all.every((s) => s.disposed),
    'every token source is disposed',
  );
});

test('NoPermissions, Blocked and NotFound become clear fatal errors, from sendRequest or mid-stream', async () => {
  const cases = [
    { error: LanguageModelError.NoPermissions('Access denied'), pattern: /not allowed to use the language model "GPT-4O" \(copilot\).*Allow access/ },
    { error: LanguageModelError.Blocked('Quota exceeded'), pattern: /refused the request.*quota or rate limit.*choose another model/ },
    { error: LanguageModelError.NotFound('unknown model'), pattern: /no longer available \(id gpt-4o\)/ },
  ];
  for (const c of cases) {
    const { chat } = model({ reject: c.error }, { steps: [...(text('x') ?? []), { error: c.error }] });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(collect(chat.chat(request(), new AbortController().signal)), (e: unknown) => {
        assert.ok(e instanceof lm.LmRequestError);
        assert.match(e.message, c.pattern);
        assert.ok(e.message.includes(c.error.message), 'the original wording is kept for diagnosis');
        assert.equal(e.cause, c.error);
        assert.equal(classifyError(e).kind, 'fatal');
        return true;
      });
    }
  }
});

test('overflow wordings and unknown errors pass through unchanged for the engine to classify', async () => {
  const overflow = new LanguageModelError('prompt token count of 136112 exceeds the limit of 128000', 'Unknown');
  const overflowBlocked = LanguageModelError.Blocked('Request failed: context length exceeded the maximum');
  const other = new Error('Server error: 503');
  const { chat } = model({ reject: overflow }, { reject: overflowBlocked }, { steps: [{ error: other }] });
  await assert.rejects(collect(chat.chat(request(), new AbortController().signal)), (e: unknown) => e === overflow && classifyError(e).kind === 'overflow');
  await assert.rejects(collect(chat.chat(request(), new AbortController().signal)), (e: unknown) => e === overflowBlocked);
  await assert.rejects(collect(chat.chat(request(), new AbortController().signal)), (e: unknown) => e === other);
});

test('listLmModels maps each model VS Code offers; findLmModel picks one by exact id', async () => {
  fake.models.splice(
    0,
    fake.models.length,
    new FakeLanguageModelChat('claude-sonnet-4', 'copilot', 'claude-sonnet-4', 'Claude Sonnet 4', '2025-05', 63_836),
    new FakeLanguageModelChat('gpt-4.1', 'copilot', 'gpt-4.1', 'GPT-4.1', 'gpt-4.1-2025-04-14', 111_452),
  );
  assert.deepEqual(await lm.listLmModels(), [
    { id: 'claude-sonnet-4', vendor: 'copilot', family: 'claude-sonnet-4', name: 'Claude Sonnet 4', version: '2025-05', maxInputTokens: 63_836, images: false },
    { id: 'gpt-4.1', vendor: 'copilot', family: 'gpt-4.1', name: 'GPT-4.1', version: 'gpt-4.1-2025-04-14', maxInputTokens: 111_452, images: false },
  ]);
  assert.equal((await lm.findLmModel('gpt-4.1'))?.name, 'GPT-4.1');
  assert.equal(await lm.findLmModel('gpt-5'), undefined);
  fake.models.splice(0);
  assert.deepEqual(await lm.listLmModels(), []);
});

test('lmModelInfo keeps every request within maxInputTokens', () => {
  const info = lm.lmModelInfo({ id: 'claude-sonnet-4', maxInputTokens: 63_836 });
  assert.deepEqual(info, { model: 'claude-sonnet-4', contextWindow: 63_836 + 4_096, maxOutputTokens: 4_096, source: 'provider' });
  assert.ok(hardLimitOf(info.contextWindow, info.maxOutputTokens, 0) <= 63_836);
  const bigOutput = lm.lmModelInfo({ id: 'gpt-4.1', maxInputTokens: 111_452 }, { maxOutputTokens: 16_000 });
  assert.equal(hardLimitOf(bigOutput.contextWindow, bigOutput.maxOutputTokens, 0), 111_452);
  assert.equal(lm.lmModelInfo({ id: 'gpt-4.1', maxInputTokens: 111_452 }, { contextWindow: 50_000 }).contextWindow, 50_000);
  assert.notEqual(lm.lmModelInfo({ id: 'mystery', maxInputTokens: 0 }).source, 'provider');
});

test('lmTokenCounter uses the model tokenizer per message and for the tool schemas', async () => {
  const m = new FakeLanguageModelChat('gpt-4o');
  const counter = lm.lmTokenCounter(asChat(m));
  assert.equal(await counter.count('x'.repeat(40)), 10);
  m.counted.splice(0);
  const req = request({
    messages: [
      { role: 'user', content: 'a'.repeat(400) },
      { role: 'assistant', content: 'b'.repeat(80) },
    ],
    tools: [READ_TOOL],
  });
  const total = await counter.countRequestTokens(req);
  assert.equal(m.counted.length, 4, 'system, two messages, tool schemas');
  assert.ok(m.counted[0] instanceof LanguageModelChatMessage);
  assert.equal(typeof m.counted[3], 'string');
  assert.ok(total >= 120 && total < 200, `total ${total}`);
  assert.equal(await counter.countRequestTokens({ ...req, toolChoice: 'none' }), total - Math.ceil(String(m.counted[3]).length / 4));
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(counter.countRequestTokens(req, ac.signal), { name: 'AbortError' });
});
