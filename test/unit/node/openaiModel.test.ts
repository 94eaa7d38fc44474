// The OpenAI-compatible ChatModel against the scripted fake server: request mapping, streaming, tool calls, usage.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ChatStreamEvent } from '../../../src/engine/ports.js';
import { StreamAssembler } from '../../../src/node/providers/openaiEvents.js';
import { OpenAIChatModel, toOpenAIParams } from '../../../src/node/providers/openaiModel.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { collect, lastChat, request, textOf, TOOLS, wire } from './openaiHelpers.js';

let server: FakeOpenAIServer;
let model: OpenAIChatModel;

before(async () => {
  server = await startFakeOpenAI({ window: 65000, apiKey: 'sk-test' });
  model = new OpenAIChatModel({ baseURL: server.url, apiKey: 'sk-test', model: 'fake-model', headers: { 'x-capsule-test': '1' } });
});
after(() => server.close());
beforeEach(() => server.reset());

const types = (events: readonly ChatStreamEvent[]): string[] => events.map((e) => e.type);

test('a streamed answer arrives as several text deltas, then usage and done', async () => {
  const answer = 'Hello there! Here is a slightly longer answer, so that it streams in several pieces.';
  server.enqueue({ text: answer });
  const events = await collect(model.chat(request(), new AbortController().signal));
  assert.equal(textOf(events), answer);
  assert.ok(events.filter((e) => e.type === 'text').length > 1, 'text arrived in pieces');
  assert.deepEqual(types(events).slice(-2), ['usage', 'done']);
  const usage = events.find((e) => e.type === 'usage');
  assert.ok(usage?.type === 'usage');
  assert.equal(usage.usage.promptTokens, lastChat(server).promptTokens);
  assert.ok(usage.usage.completionTokens > 0);
  assert.equal(usage.usage.cachedTokens, 0);
  assert.deepEqual(events[events.length - 1], { type: 'done', finishReason: 'stop' });
  assert.equal(model.provider, 'openai-compatible');
  assert.equal(model.model, 'fake-model');
});

test('the request body the server received is exactly toOpenAIParams', async () => {
  const req = request({
    tools: TOOLS,
    toolChoice: 'auto',
    maxOutputTokens: 512,
    messages: [
      { role: 'user', content: 'Find the bug.', entryId: 'e_1' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }], entryId: 'e_2' },
      { role: 'tool', toolCallId: 'call_1', content: 'export const a = 1;', entryId: 'e_3' },
      { role: 'assistant', content: 'It looks fine.', entryId: 'e_4' },
      { role: 'user', content: 'Look again.' },
    ],
  });
  await collect(model.chat(req, new AbortController().signal));
  const sent = lastChat(server);
  assert.deepEqual(sent.body, wire(toOpenAIParams(req, 'fake-model')));
  assert.deepEqual(sent.body, {
    model: 'fake-model',
    messages: [
      { role: 'system', content: 'You are a careful coding agent.' },
      { role: 'user', content: 'Find the bug.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
      { role: 'assistant', content: 'It looks fine.' },
      { role: 'user', content: 'Look again.' },
    ],
    tools: TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
    tool_choice: 'auto',
    max_tokens: 512,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(sent.headers['authorization'], 'Bearer sk-test');
  assert.equal(sent.headers['x-capsule-test'], '1');
});

test('two parallel streamed tool calls are reassembled exactly, in order, after the text', async () => {
  const search = '{"query":"needle in a haystack","max":5,"note":"ünïcödé ✓"}';
  server.enqueue({
    text: 'Let me look at both.',
    toolCalls: [
      { id: 'call_read', name: 'read_file', arguments: { path: 'src/a very long/path/to/file.ts' } },
      { id: 'call_search', name: 'search', arguments: search },
    ],
  });
  const events = await collect(model.chat(request({ tools: TOOLS }), new AbortController().signal));
  assert.equal(textOf(events), 'Let me look at both.');
  const calls = events.filter((e) => e.type === 'tool_call');
  assert.deepEqual(
    calls.map((e) => e.call),
    [
      { id: 'call_read', name: 'read_file', arguments: '{"path":"src/a very long/path/to/file.ts"}' },
      { id: 'call_search', name: 'search', arguments: search },
    ],
  );
  assert.deepEqual(types(events).slice(-4), ['tool_call', 'tool_call', 'usage', 'done']);
  assert.deepEqual(events[events.length - 1], { type: 'done', finishReason: 'tool_calls' });
});

test('a tool call without an id gets a fresh one, and the server-made ids come through', async () => {
  server.enqueue({ toolCalls: [{ name: 'list_files', arguments: '{}' }] });
  const events = await collect(model.chat(request({ tools: TOOLS }), new AbortController().signal));
  const call = events.find((e) => e.type === 'tool_call');
  assert.ok(call?.type === 'tool_call');
  assert.match(call.call.id, /^call_[0-9a-f]+$/);
  assert.equal(call.call.name, 'list_files');
  assert.equal(textOf(events), '');
});

test('non-streaming with tool_choice none sends no stream_options and yields the same event kinds', async () => {
  server.enqueue({ text: 'Summary: we fixed the bug.' });
  const req = request({ tools: TOOLS, toolChoice: 'none', stream: false });
  const events = await collect(model.chat(req, new AbortController().signal));
  const body = lastChat(server).body;
  assert.deepEqual(body, wire(toOpenAIParams(req, 'fake-model')));
  assert.ok(typeof body === 'object' && body !== null);
  assert.equal((body as Record<string, unknown>)['tool_choice'], 'none');
  assert.equal((body as Record<string, unknown>)['stream'], false);
  assert.equal('stream_options' in body, false);
  assert.equal(lastChat(server).stream, false);
  assert.deepEqual(types(events), ['text', 'usage', 'done']);
  assert.equal(textOf(events), 'Summary: we fixed the bug.');
  assert.deepEqual(events[2], { type: 'done', finishReason: 'stop' });
});

test('non-streaming tool calls become tool_call events with usage and done', async () => {
  server.enqueue({
    toolCalls: [
      { id: 'call_x', name: 'read_file', arguments: { path: 'b.ts' } },
      { id: 'call_y', name: 'list_files', arguments: {} },
    ],
  });
  const events = await collect(model.chat(request({ tools: TOOLS, stream: false }), new AbortController().signal));
  assert.deepEqual(types(events), ['tool_call', 'tool_call', 'usage', 'done']);
  assert.deepEqual(events[0], { type: 'tool_call', call: { id: 'call_x', name: 'read_file', arguments: '{"path":"b.ts"}' } });
  assert.deepEqual(events[3], { type: 'done', finishReason: 'tool_calls' });
});

test('user images map to text and image_url content parts', async () => {
  const png = 'data:image/png;base64,iVBORw0KGgo=';
  const req = request({
    messages: [
      {
        role: 'user',
        content: 'What is in these?',
        images: [{ url: png, detail: 'low', width: 10, height: 10 }, { url: 'https://example.invalid/b.jpg' }],
      },
    ],
  });
  await collect(model.chat(req, new AbortController().signal));
  const body = lastChat(server).body as { messages: unknown[] };
  assert.deepEqual(body.messages[1], {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in these?' },
      { type: 'image_url', image_url: { url: png, detail: 'low' } },
      { type: 'image_url', image_url: { url: 'https://example.invalid/b.jpg' } },
    ],
  });
});

test("a parallel tool-pair conversation passes the server's pairing check; an orphan tool message does not", async () => {
  const messages = [
    { role: 'user', content: 'Check both files.' },
    {
      role: 'assistant',
      content: 'Reading both.',
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        { id: 'call_2', name: 'read_file', arguments: '{"path":"b.ts"}' },
      ],
    },
    { role: 'tool', toolCallId: 'call_1', content: 'a' },
    { role: 'tool', toolCallId: 'call_2', content: 'b' },
    { role: 'user', content: 'Now compare.' },
  ] as const;
  server.enqueue({ text: 'They match.' });
  const events = await collect(model.chat(request({ tools: TOOLS, messages }), new AbortController().signal));
  assert.equal(textOf(events), 'They match.');
  assert.equal(lastChat(server).status, 200);
  const orphan = request({ tools: TOOLS, messages: [messages[0], messages[2]] });
  await assert.rejects(collect(model.chat(orphan, new AbortController().signal)), (e: unknown) => {
    assert.equal((e as { status?: unknown }).status, 400);
    return true;
  });
});

test('a reply cut at max_tokens finishes with length; an empty reply still finishes', async () => {
  server.enqueue({ text: 'one two three four five six seven eight nine ten eleven twelve' }, { empty: true });
  const cut = await collect(model.chat(request({ maxOutputTokens: 3 }), new AbortController().signal));
  assert.deepEqual(cut[cut.length - 1], { type: 'done', finishReason: 'length' });
  assert.ok(textOf(cut).length < 30);
  const empty = await collect(model.chat(request(), new AbortController().signal));
  assert.deepEqual(types(empty), ['usage', 'done']);
});

test('cached tokens come from prompt_tokens_details; a provider without usage gives no usage event', async () => {
  server.enqueue({ text: 'cached', usage: { cachedTokens: 1152, promptTokens: 2000 } }, { text: 'no usage', omitUsage: true });
  const cached = await collect(model.chat(request(), new AbortController().signal));
  const usage = cached.find((e) => e.type === 'usage');
  assert.ok(usage?.type === 'usage');
  assert.equal(usage.usage.cachedTokens, 1152);
  assert.equal(usage.usage.promptTokens, 2000);
  const bare = await collect(model.chat(request(), new AbortController().signal));
  assert.deepEqual(types(bare).slice(-1), ['done']);
  assert.equal(
    bare.some((e) => e.type === 'usage'),
    false,
  );
});

test('toOpenAIParams is deterministic and leaves out what the request does not have', () => {
  const req = request({ system: '', toolChoice: 'none' });
  assert.equal(JSON.stringify(toOpenAIParams(req, 'm')), JSON.stringify(toOpenAIParams(req, 'm')));
  assert.deepEqual(wire(toOpenAIParams(req, 'm')), {
    model: 'm',
    messages: [{ role: 'user', content: 'Say hello.' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const assistantText = toOpenAIParams(request({ messages: [{ role: 'assistant', content: '' }] }), 'm');
  assert.deepEqual(assistantText.messages[1], { role: 'assistant', content: '' });
  const imageOnly = toOpenAIParams(request({ messages: [{ role: 'user', content: '', images: [{ url: 'data:,' }] }] }), 'm');
  assert.deepEqual(imageOnly.messages[1], { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] });
});

test('stream reassembly copes with gateways that repeat names or reuse index 0 for parallel calls', () => {
  const assembler = new StreamAssembler();
  const chunk = (toolCalls: ChatCompletionChunk.Choice.Delta.ToolCall[], finish: 'tool_calls' | null = null): ChatCompletionChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { tool_calls: toolCalls }, finish_reason: finish }],
  });
  assembler.push(chunk([{ index: 0, id: 'call_a', function: { name: 'read_file', arguments: '{"pa' } }]));
  assembler.push(chunk([{ index: 0, id: 'call_a', function: { name: 'read_file', arguments: 'th":"a"}' } }]));
  assembler.push(chunk([{ index: 0, id: 'call_b', function: { name: 'search', arguments: '{}' } }]));
  assert.equal(assembler.finished, false);
  assembler.push(chunk([], 'tool_calls'));
  assert.deepEqual(assembler.finish(), [
    { type: 'tool_call', call: { id: 'call_a', name: 'read_file', arguments: '{"path":"a"}' } },
    { type: 'tool_call', call: { id: 'call_b', name: 'search', arguments: '{}' } },
    { type: 'done', finishReason: 'tool_calls' },
  ]);
});
