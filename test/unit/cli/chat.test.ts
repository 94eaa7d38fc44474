// `capsule chat` end to end through main(): the real openai client against the fake server, --yes versus refusal, continuing a session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY, session } from '../compaction/harness.js';

async function setup(t: { after(fn: () => Promise<void>): void }, opts: { apiKey?: string } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-cli-chat-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const ws = join(dir, 'ws');
  await mkdir(ws);
  const server = await startFakeOpenAI({ window: 20_000, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) });
  t.after(() => server.close());
  // The "model": asked to create a file, it writes it, then reports.
  server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last?.role === 'tool') return { text: `Tool said: ${String(last.content).split('\n')[0]}` };
    return { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello from the agent\n' } }] };
  });
  return { dir, ws, server, session: join(dir, 'chat.jsonl') };
}

function argv(server: FakeOpenAIServer, session: string, ws: string, ...rest: string[]): string[] {
  return [
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--window',
    '20000',
    '--max-output',
    '2000',
    '--session',
    session,
    '--workspace',
    ws,
    ...rest,
  ];
}

async function cli(args: readonly string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(args, (s) => lines.push(s));
  return { code, lines };
}

// Learned windows go to a throwaway file, never to the user's ~/.config.
process.env.CAPSULE_LIMITS_FILE = join(tmpdir(), `capsule-chat-test-limits-${process.pid}.json`);

test('chat --yes runs the tool action, streams the answer, and prints tool, cache and status lines', async (t) => {
  const { ws, server, session } = await setup(t);
  const r = await cli(argv(server, session, ws, '--yes', 'Create hello.txt'));
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(await readFile(join(ws, 'hello.txt'), 'utf8'), 'hello from the agent\n');
  assert.ok(
    r.lines.some((l) => /^\[tool\] write_file \{"path":"hello\.txt"/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.some((l) => /^\[tool\] write_file → ok \(\d+ ms\)$/.test(l)));
  assert.ok(r.lines.some((l) => l.startsWith('Tool said: ')));
  assert.ok(r.lines.some((l) => /^\[cache\] Prompt cache: [\d,]+ \/ [\d,]+ prompt tokens cached/.test(l)));
  assert.equal(r.lines[r.lines.length - 1], '[turn completed]');

  const verify = await cli(['verify', session]);
  assert.equal(verify.code, 0, verify.lines.join('\n'));
});

test('chat without --yes refuses the tool action; the model reads the refusal and the file is not written', async (t) => {
  const { ws, server, session } = await setup(t);
  const r = await cli(argv(server, session, ws, 'Create hello.txt'));
  assert.equal(r.code, 0);
  assert.equal(existsSync(join(ws, 'hello.txt')), false);
  assert.ok(
    r.lines.some((l) => /^\[approval\] refused: .*hello\.txt.*--yes/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.some((l) => /^\[tool\] write_file → error/.test(l)));
  const toolMessage = server.chatRequests[1]?.rawBody ?? '';
  assert.match(toolMessage, /"role":"tool"/);
});

test('each call continues the same session file, and an API key comes from the named environment variable', async (t) => {
  const { ws, server, session } = await setup(t, { apiKey: 'sk-cli-test' });
  process.env.CAPSULE_TEST_KEY = 'sk-cli-test';
  t.after(async () => {
    delete process.env.CAPSULE_TEST_KEY;
  });
  server.setFallback(() => ({ text: 'fine' }));
  for (const prompt of ['first', 'second']) {
    const r = await cli(argv(server, session, ws, '--api-key-env', 'CAPSULE_TEST_KEY', prompt));
    assert.equal(r.code, 0, r.lines.join('\n'));
  }
  const load = await loadSessionFile(session);
  const users = load.tree
    .branch()
    .filter((e) => e.type === 'user')
    .map((e) => (e.type === 'user' ? e.content : ''));
  assert.deepEqual(users, ['first', 'second']);
  assert.equal(load.tree.branch().filter((e) => e.type === 'system_update').length, 1, 'one epoch base, written once');
  assert.equal(server.chatRequests[1]?.headers.authorization, 'Bearer sk-cli-test');
  // The second request carried the first turn.
  assert.match(server.chatRequests[1]?.rawBody ?? '', /"first"/);
});

test('a failing provider ends with the error line and exit code 1', async (t) => {
  const { ws, server, session } = await setup(t);
  server.onMatch(() => true, {
    status: 401,
    body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
  });
  const r = await cli(argv(server, session, ws, 'hi'));
  assert.equal(r.code, 1);
  assert.match(r.lines.find((l) => l.startsWith('[turn ')) ?? '', /^\[turn failed\] The model request failed: .*Incorrect API key/);
  assert.equal(r.lines[r.lines.length - 2], `[error] ${new URL(server.url).host} · HTTP 401 · Incorrect API key provided`);
  assert.match(r.lines[r.lines.length - 1] ?? '', /^\[hint\] .* refused the API key/);
  assert.equal(server.chatRequests.length, 1, 'a 401 is not retried');
});

test('usage errors are one line: no prompt, no --base-url, a bad URL, an unset key variable', async (t) => {
  const { ws, server, session } = await setup(t);
  const cases: [string[], RegExp][] = [
    [argv(server, session, ws), /missing prompt/],
    [['chat', '--model', 'm', 'hi'], /missing --base-url/],
    [['chat', '--base-url', 'ftp://x', '--model', 'm', 'hi'], /--base-url must be an http/],
    [['chat', '--base-url', server.url, 'hi'], /missing --model/],
    [argv(server, session, ws, '--api-key-env', 'CAPSULE_NO_SUCH_VAR_X', 'hi'), /CAPSULE_NO_SUCH_VAR_X: that environment variable is not set/],
  ];
  for (const [args, message] of cases) {
    await assert.rejects(cli(args), (e: unknown) => e instanceof CliError && message.test(e.message) && !e.message.includes('\n'));
  }
  assert.equal(server.chatRequests.length, 0);
});

test('chat --model with a smaller model than the session used: the previous model makes the handoff first', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-cli-switch-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const path = join(dir, 'chat.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_switch', cwd: dir } });
  await store.append({
    type: 'model_change',
    id: 'm0',
    parentId: null,
    timestamp: '2025-01-01T00:00:00.000Z',
    provider: 'openai-compatible',
    model: 'big',
    contextWindow: 128_000,
    maxOutputTokens: 4096,
  });
  for (const e of session(29, 100)) await store.append(e.parentId === null ? { ...e, parentId: 'm0' } : e);
  await store.close();
  const server = await startFakeOpenAI({
    models: [
      { id: 'big', contextLength: 128_000 },
      { id: 'small', contextLength: 32_768 },
    ],
  });
  t.after(() => server.close());
  server.setFallback((req) => (req.body.tool_choice === 'none' ? { text: GOOD_SUMMARY } : { text: `answered by ${req.body.model}` }));

  const r = await cli([
    'chat',
    '--base-url',
    server.url,
    '--model',
    'small',
    '--window',
    '32768',
    '--max-output',
    '4096',
    '--session',
    path,
    '--workspace',
    dir,
    'Go on',
  ]);
  assert.equal(r.code, 0, r.lines.join('\n'));
  const sent = server.chatRequests.map(
    (q) => `${(q.body as { model: string }).model}${(q.body as { tool_choice?: string }).tool_choice === 'none' ? ':summary' : ''}`,
  );
  assert.ok(sent.length >= 2 && sent.slice(0, -1).every((m) => m === 'big:summary'), sent.join(', '));
  assert.equal(sent[sent.length - 1], 'small');
  assert.ok(server.chatRequests.every((q) => q.status === 200));
  assert.ok(
    r.lines.some((l) => /^\[model\] openai-compatible\/small \(window 32,768 tokens, max output 4096\) after a protective handoff compaction$/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.includes('answered by small'));
  assert.equal((await cli(['verify', path])).code, 0);
});

test('a failed turn prints the facts in one line (host · status · message) and a hint; --retry sends the same turn again', async (t) => {
  const s = await setup(t);
  const host = new URL(s.server.url).host;
  const fail = {
    status: 500,
    body: { error: { message: 'upstream exploded', type: 'server_error', code: null } },
    headers: { 'retry-after-ms': '0' },
  } as const;
  s.server.enqueue(fail, fail, fail, fail);
  const failed = await cli(argv(s.server, s.session, s.ws, 'Explain the build'));
  assert.equal(failed.code, 1);
  assert.ok(failed.lines.includes(`[error] ${host} · HTTP 500 · upstream exploded`), failed.lines.join('\n'));
  assert.ok(
    failed.lines.some((l) => l.startsWith('[hint] ') && l.includes('--retry')),
    failed.lines.join('\n'),
  );

  s.server.enqueue({ text: 'It uses esbuild.' });
  const retried = await cli(argv(s.server, s.session, s.ws, '--retry'));
  assert.equal(retried.code, 0, retried.lines.join('\n'));
  assert.ok(retried.lines.includes('It uses esbuild.'));
  const users = (await loadSessionFile(s.session)).tree.entries().filter((e) => e.type === 'user');
  assert.equal(users.length, 1, 'the message is not added twice');

  const again = await cli(argv(s.server, s.session, s.ws, '--retry'));
  assert.equal(again.code, 1, 'nothing failed last: nothing to retry');
  assert.ok(
    again.lines.some((l) => /completed; send a message/.test(l)),
    again.lines.join('\n'),
  );
  await assert.rejects(
    cli(argv(s.server, s.session, s.ws, '--retry', 'and a prompt')),
    (e: unknown) => e instanceof CliError && /give no prompt/.test(e.message),
  );
});
