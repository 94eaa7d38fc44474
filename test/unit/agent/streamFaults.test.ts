// Stream endings and malformed tool calls: early ends and non-SSE 200 bodies are retried; a bad tool call becomes a tool error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeOpenAI, type ScriptedReply } from '../../fakes/openaiServer.js';
import { agentRequests, entriesOf, openSession, tempDir, verifyFile } from './agentHelpers.js';

async function turnWith(t: { after(fn: () => Promise<void>): void }, ...replies: ScriptedReply[]) {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.enqueue(...replies);
  const o = await openSession(server, dir);
  const r = await o.session.agent.runTurn({ userText: 'hello', signal: new AbortController().signal });
  await o.session.close();
  return { r, server, o };
}

test('a stream that ends before any content, without finish_reason or [DONE], is retried', async (t) => {
  const { r, server } = await turnWith(t, { endStreamEarly: true }, { text: 'second try works' });
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'second try works');
  assert.equal(agentRequests(server).length, 2);
});

test('an HTTP 200 whose body is not SSE is retried', async (t) => {
  const { r, server } = await turnWith(t, { rawBody: '<html><body>502 Bad Gateway</body></html>' }, { text: 'fine now' });
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'fine now');
  assert.equal(agentRequests(server).length, 2);
});

test('early endings stay within the attempt limit', async (t) => {
  const { r, server } = await turnWith(
    t,
    { endStreamEarly: true },
    { endStreamEarly: true },
    { endStreamEarly: true },
    { endStreamEarly: true },
    { text: 'never sent' },
  );
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /after 4 attempts/);
  assert.equal(agentRequests(server).length, 4);
});

test('a tool call with an empty name becomes a tool error the model reads; the streamed text is kept', async (t) => {
  const { r, server, o } = await turnWith(t, { text: 'Let me look.', toolCalls: [{ name: '', arguments: { path: '.' } }] }, { text: 'Sorry, fixed.' });
  assert.equal(r.status, 'completed', r.error);
  const entries = await entriesOf(o.path);
  const assistant = entries.find((e) => e.type === 'assistant' && e.toolCalls.length > 0);
  assert.ok(assistant?.type === 'assistant' && assistant.content === 'Let me look.');
  const result = entries.find((e) => e.type === 'tool_result');
  assert.ok(result?.type === 'tool_result' && result.isError);
  assert.match(result.content, /no tool name/i);
  const second = agentRequests(server)[1]?.body as { messages: { role: string; content: unknown }[] };
  assert.equal(second.messages[second.messages.length - 1]?.role, 'tool');
  assert.equal((await verifyFile(o.path)).ok, true);
});

test('a tool call whose arguments are not JSON becomes a tool error the model can correct', async (t) => {
  const { r, o } = await turnWith(t, { toolCalls: [{ name: 'read_file', arguments: '{"path": "a.ts"' }] }, { text: 'Retrying properly.' });
  assert.equal(r.status, 'completed', r.error);
  const result = (await entriesOf(o.path)).find((e) => e.type === 'tool_result');
  assert.ok(result?.type === 'tool_result' && result.isError);
  assert.match(result.content, /JSON/);
});
