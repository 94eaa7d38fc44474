// The extension's path (the key from SecretStorage, given to AgentSession): no command's environment carries it, and no tool result stores or sends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { AgentSession } from '../../../src/node/agentSession.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { SMALL_SETTINGS, instantSleepClock, tempDir } from './agentHelpers.js';

test('a key held by the session: env of run_command lacks every variable carrying it, and output that shows it is masked everywhere', async (t) => {
  const dir = await tempDir(t, 'capsule-key-cmd-');
  const key = `sk-ext-${randomBytes(12).toString('hex')}`;
  const server = await startFakeOpenAI({ window: 60_000, apiKey: key });
  t.after(() => server.close());
  // A user who started VS Code from a shell that exported the key: Capsule cannot change its own environment, but
  // no command inherits it.
  process.env.CAPSULE_TEST_EXPORTED = key;
  t.after(() => {
    delete process.env.CAPSULE_TEST_EXPORTED;
  });
  // The key also sits in a file the agent reads, which Capsule cannot keep from the command.
  await writeFile(`${dir}/.env`, `leak: ${key}\n`);
  server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last?.role === 'tool') return { text: 'done' };
    return { toolCalls: [{ name: 'run_command', arguments: { command: 'env | grep -c CAPSULE_TEST_EXPORTED; cat .env' } }] };
  });
  const session = await AgentSession.open({
    sessionPath: `${dir}/chat.jsonl`,
    create: { cwd: dir },
    model: { chat: { baseURL: server.url, apiKey: key, model: 'fake-model' }, override: { contextWindow: 60_000, maxOutputTokens: 2_000 } },
    settings: SMALL_SETTINGS,
    env: {},
    clock: instantSleepClock,
    workspace: { roots: [dir], approve: async () => true, trusted: () => true },
  });
  try {
    const r = await session.turn({ userText: 'go', signal: new AbortController().signal });
    assert.equal(r.status, 'completed');
  } finally {
    await session.close();
  }
  const transcript = await readFile(`${dir}/chat.jsonl`, 'utf8');
  assert.ok(!transcript.includes(key), 'the key is in the transcript');
  assert.match(transcript, /0\\nleak: \[API key hidden by Capsule\]/, "the variable was not in the command's environment, and the echoed key was masked");
  assert.ok(
    server.chatRequests.every((q) => !q.rawBody.includes(key)),
    'the key was sent to the model',
  );
});
