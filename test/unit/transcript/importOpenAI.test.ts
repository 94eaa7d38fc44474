// Tests for importing OpenAI chat-completions messages: formats, tool calls, images, legacy calls, errors and the docs/behaviour.md#model-input round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { IdSource } from '../../../src/engine/ports.js';
import { buildModelInput, type ModelMessage } from '../../../src/engine/transcript/modelInput.js';
import { importOpenAIMessages, parseOpenAIMessages, type ImportResult, type OpenAIMessage } from '../../../src/engine/transcript/importOpenAI.js';
import { EntrySchema, SessionHeaderSchema } from '../../../src/engine/transcript/schema.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { verifySession } from '../../../src/engine/transcript/verify.js';

const NOW = '2025-02-03T04:05:06.000Z';

function counterIds(): IdSource {
  let n = 0;
  return { next: (prefix: string) => `${prefix}${++n}` };
}

function parse(text: string): OpenAIMessage[] {
  const r = parseOpenAIMessages(text);
  if (!r.ok) assert.fail(`unexpected parse error: ${r.error}`);
  return r.messages;
}

function parseFails(text: string): string {
  const r = parseOpenAIMessages(text);
  if (r.ok) assert.fail(`expected a parse error for ${text}`);
  assert.ok(!r.error.includes('\n'), `error is one line: ${r.error}`);
  return r.error;
}

function importText(text: string, model?: string): ImportResult {
  return importOpenAIMessages(parse(text), { sessionId: 's1', cwd: '/work', now: NOW, ids: counterIds(), ...(model === undefined ? {} : { model }) });
}

/** Every entry must be exactly what the JSONL reader would accept and rebuild. */
function assertValid(r: ImportResult): void {
  assert.deepEqual(SessionHeaderSchema.parse(r.header), r.header);
  let parent: string | null = null;
  for (const e of r.entries) {
    assert.deepEqual(EntrySchema.parse(JSON.parse(JSON.stringify(e))), e);
    assert.equal(e.parentId, parent);
    assert.equal(e.timestamp, NOW);
    parent = e.id;
  }
}

const conversation: unknown[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: 'Fix the bug in a.ts' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
      { id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"q":"bug"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_b', content: 'a.ts:3: bug' },
  { role: 'tool', tool_call_id: 'call_a', content: [{ type: 'text', text: 'const x = 1;' }] },
  { role: 'assistant', content: 'Fixed.' },
];

test('a JSON array with parallel tool calls becomes a linear chain of valid entries', () => {
  const r = importText(JSON.stringify(conversation), 'gpt-4o');
  assertValid(r);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(
    r.entries.map((e) => e.type),
    ['system_update', 'user', 'assistant', 'tool_result', 'tool_result', 'assistant'],
  );
  const [sys, , call, resB, resA, final] = r.entries;
  assert.ok(sys?.type === 'system_update' && sys.mode === 'base' && sys.content === 'You are helpful.');
  assert.ok(call?.type === 'assistant');
  assert.equal(call.content, '');
  assert.equal(call.model, 'gpt-4o');
  assert.deepEqual(call.toolCalls, [
    { id: 'call_a', name: 'read_file', arguments: '{"path":"a.ts"}' },
    { id: 'call_b', name: 'search', arguments: '{"q":"bug"}' },
  ]);
  assert.ok(resB?.type === 'tool_result' && resB.toolCallId === 'call_b' && resB.toolName === 'search' && resB.content === 'a.ts:3: bug');
  assert.ok(resA?.type === 'tool_result' && resA.toolName === 'read_file' && resA.content === 'const x = 1;');
  assert.ok(final?.type === 'assistant' && final.content === 'Fixed.');
  assert.deepEqual(r.header, { type: 'session', version: 1, id: 's1', createdAt: NOW, cwd: '/work', title: 'Fix the bug in a.ts' });
  assert.deepEqual(verifySession(SessionTree.from(r.entries), []).issues, []);
});

test('{messages:[...]}, pretty-printed JSON, JSONL with blank lines and CRLF, and a single object give the same messages', () => {
  const expected = parse(JSON.stringify(conversation));
  assert.deepEqual(parse(JSON.stringify({ model: 'x', messages: conversation })), expected);
  assert.deepEqual(parse(JSON.stringify({ messages: conversation }, null, 2)), expected);
  assert.deepEqual(parse(`\n${conversation.map((m) => JSON.stringify(m)).join('\r\n\r\n')}\n`), expected);
  assert.deepEqual(parse('{"role":"user","content":"hi"}'), [{ role: 'user', content: 'hi' }]);
  assert.deepEqual(parse(`\uFEFF${JSON.stringify(conversation)}`), expected, 'a byte-order mark is ignored');
});

test('user images become image parts; text parts are joined; unsupported parts are dropped with a warning', () => {
  const r = importText(
    JSON.stringify([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
          { type: 'text', text: 'these pictures?' },
          { type: 'image_url', image_url: { url: 'https://example.com/b.png', detail: 'original' } },
          { type: 'input_audio', input_audio: { data: 'x', format: 'wav' } },
        ],
      },
    ]),
  );
  assertValid(r);
  const [u] = r.entries;
  assert.ok(u?.type === 'user');
  assert.equal(u.content, 'What is in\nthese pictures?');
  assert.deepEqual(u.images, [{ url: 'data:image/png;base64,AAAA', detail: 'high' }, { url: 'https://example.com/b.png' }]);
  assert.deepEqual(r.warnings, ["messages[0]: dropped a 'input_audio' content part (not supported)"]);
});

test('legacy function_call and function results pair up by name through a generated call id', () => {
  const r = importText(
    JSON.stringify([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { role: 'function', name: 'get_weather', content: '{"temp":3}' },
      { role: 'assistant', content: 'It is 3°C.' },
    ]),
  );
  assertValid(r);
  assert.deepEqual(r.warnings, []);
  const call = r.entries[1];
  const result = r.entries[2];
  assert.ok(call?.type === 'assistant' && result?.type === 'tool_result');
  assert.equal(call.toolCalls.length, 1);
  assert.equal(call.toolCalls[0]?.name, 'get_weather');
  assert.equal(result.toolCallId, call.toolCalls[0]?.id);
  assert.equal(result.toolName, 'get_weather');
  assert.equal(result.content, '{"temp":3}');
  assert.deepEqual(verifySession(SessionTree.from(r.entries), []).issues, []);
});

test('developer and later system messages: the first is the base, later ones are appended', () => {
  const r = importText(
    JSON.stringify([
      { role: 'developer', content: [{ type: 'text', text: 'BASE' }] },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Now in plan mode.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'refusal', refusal: ' (partly)' },
        ],
      },
    ]),
  );
  assertValid(r);
  assert.deepEqual(
    r.entries.filter((e) => e.type === 'system_update').map((e) => (e.type === 'system_update' ? [e.mode, e.content] : [])),
    [
      ['base', 'BASE'],
      ['append', 'Now in plan mode.'],
    ],
  );
  assert.equal(buildModelInput(r.entries, 'DEFAULT').system, 'BASE\n\nNow in plan mode.');
  const a = r.entries[3];
  assert.ok(a?.type === 'assistant' && a.content === 'ok\n (partly)');
});

test('null or missing content, object arguments, custom tool calls and refusals are accepted', () => {
  const r = importText(
    JSON.stringify([
      { role: 'user', content: '' },
      { role: 'assistant', refusal: 'I cannot do that.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', function: { name: 'list_files', arguments: { dir: '.' } } },
          { id: 'c2', type: 'custom', custom: { name: 'patch', input: '*** diff' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: null },
      { role: 'tool', tool_call_id: 'c2', content: 'applied' },
    ]),
  );
  assertValid(r);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.header.title, undefined, 'an empty first message gives no title');
  const [, refusal, calls, empty] = r.entries;
  assert.ok(refusal?.type === 'assistant' && refusal.content === 'I cannot do that.');
  assert.ok(calls?.type === 'assistant');
  assert.deepEqual(calls.toolCalls, [
    { id: 'c1', name: 'list_files', arguments: '{"dir":"."}' },
    { id: 'c2', name: 'patch', arguments: '*** diff' },
  ]);
  assert.ok(empty?.type === 'tool_result' && empty.content === '');
});

test('unmatched results and unanswered calls are kept with warnings, and verify then flags the session', () => {
  const r = importText(
    JSON.stringify([
      { role: 'user', content: 'go' },
      { role: 'tool', tool_call_id: 'ghost', content: 'where from?' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'user', content: 'never mind' },
    ]),
  );
  assertValid(r);
  assert.equal(r.entries.length, 4);
  assert.deepEqual(r.warnings, ['messages[1]: tool result for call ghost matches no tool call', 'messages[2]: tool call(s) c1 have no result']);
  const report = verifySession(SessionTree.from(r.entries), []);
  assert.equal(report.ok, false);
  assert.deepEqual(report.issues.map((i) => i.kind).sort(), ['orphan_tool_result', 'split_tool_pair']);
});

test('malformed JSON is rejected with the line it is on', () => {
  const jsonl = ['{"role":"user","content":"a"}', '{"role":"assistant","content":"b"}', '{"role":"user","content":'].join('\n');
  assert.match(parseFails(jsonl), /^line 3: invalid JSON/);
  const pretty = '[\n  {"role": "user", "content": "a"},\n  {"role": "assistant" "content": "b"}\n]';
  assert.match(parseFails(pretty), /^line 3: invalid JSON/);
  assert.match(parseFails('   '), /empty/);
  assert.match(parseFails('[]'), /no messages/);
  assert.match(parseFails('{"messages": {"role": "user"}}'), /"messages" must be an array/);
  assert.match(parseFails('{"choices": []}'), /no messages/);
  assert.match(parseFails('{"messages":[]}\n{"messages":[]}'), /^line 1: holds a whole conversation/);
});

test('an unknown role or a malformed message is rejected naming its index or line and the field', () => {
  assert.match(
    parseFails(
      JSON.stringify([
        { role: 'user', content: 'a' },
        { role: 'robot', content: 'b' },
      ]),
    ),
    /^messages\[1\]: unknown role 'robot'/,
  );
  assert.match(parseFails('{"role":"user","content":"a"}\n{"role":"robot"}'), /^line 2: unknown role 'robot'/);
  assert.match(parseFails(JSON.stringify([{ role: 'tool', content: 'x' }])), /^messages\[0\] \(tool\): tool_call_id: /);
  assert.match(parseFails(JSON.stringify([{ role: 'user', content: 'a' }, 42])), /^messages\[1\]: expected a message object, got number/);
  assert.match(parseFails(JSON.stringify([{ content: 'a' }])), /^messages\[0\]: message has no "role"/);
  assert.match(
    parseFails(JSON.stringify([{ role: 'assistant', tool_calls: [{ id: 'c', function: { arguments: '{}' } }] }])),
    /^messages\[0\] \(assistant\): tool_calls\.0/,
  );
});

/** The OpenAI messages a rebuilt model input corresponds to, for comparison with the imported ones. */
function normalizeModel(m: ModelMessage): unknown {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'user') return { role: 'user', content: m.content };
  return { role: 'assistant', content: m.content, tool_calls: (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) };
}

function normalizeOpenAI(m: OpenAIMessage): unknown {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: typeof m.content === 'string' ? m.content : '' };
  if (m.role === 'user') return { role: 'user', content: m.content };
  if (m.role === 'assistant') {
    const calls = (m.tool_calls ?? []).map((c) => ('function' in c ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : undefined));
    return { role: 'assistant', content: m.content ?? '', tool_calls: calls };
  }
  return undefined;
}

test('round trip: imported entries rebuilt with buildModelInput give back the same messages in order', () => {
  const messages = parse(JSON.stringify(conversation));
  const r = importOpenAIMessages(messages, { sessionId: 's', cwd: '/', now: NOW, ids: counterIds() });
  const input = buildModelInput(SessionTree.from(r.entries).branch(), 'DEFAULT');
  assert.equal(input.system, 'You are helpful.');
  const toolText = (m: OpenAIMessage): OpenAIMessage => (m.role === 'tool' && Array.isArray(m.content) ? { ...m, content: 'const x = 1;' } : m);
  assert.deepEqual(
    input.messages.map(normalizeModel),
    messages
      .map(toolText)
      .map(normalizeOpenAI)
      .filter((m) => m !== undefined),
  );
});

test('round trip holds for generated conversations (property)', () => {
  const text = fc.string({ maxLength: 30 });
  const callId = fc.stringMatching(/^call_[a-z0-9]{1,8}$/);
  const exchange = fc.record({
    ask: text,
    calls: fc.uniqueArray(fc.record({ id: callId, name: fc.constantFrom('read_file', 'search', 'run_command'), args: text, result: text }), {
      maxLength: 3,
      selector: (c) => c.id,
    }),
    reply: text,
  });
  fc.assert(
    fc.property(fc.option(text, { nil: undefined }), fc.array(exchange, { minLength: 1, maxLength: 5 }), (system, exchanges) => {
      const seen = new Set<string>();
      const msgs: unknown[] = system === undefined ? [] : [{ role: 'system', content: system }];
      for (const x of exchanges) {
        const calls = x.calls.filter((c) => !seen.has(c.id)); // call ids are unique within a conversation
        for (const c of calls) seen.add(c.id);
        msgs.push({ role: 'user', content: x.ask });
        if (calls.length > 0) {
          msgs.push({
            role: 'assistant',
            content: null,
            tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })),
          });
          for (const c of [...calls].reverse()) msgs.push({ role: 'tool', tool_call_id: c.id, content: c.result });
        }
        msgs.push({ role: 'assistant', content: x.reply });
      }
      const messages = parse(msgs.map((m) => JSON.stringify(m)).join('\n'));
      const r = importOpenAIMessages(messages, { sessionId: 's', cwd: '/', now: NOW, ids: counterIds() });
      assert.deepEqual(r.warnings, []);
      assertValid(r);
      const input = buildModelInput(SessionTree.from(r.entries).branch(), 'DEFAULT');
      assert.equal(input.system, system ?? 'DEFAULT');
      assert.deepEqual(
        input.messages.map(normalizeModel),
        messages.map(normalizeOpenAI).filter((m) => m !== undefined),
      );
      assert.equal(verifySession(SessionTree.from(r.entries), []).ok, true);
    }),
    { numRuns: 150 },
  );
});
