// The engine facade every front end uses: one budget source (the CLI's too) whose counts follow a model switch, rewind, and pending intents kept beside the session file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chatToolSchemas } from '../../../src/cli/session.js';
import { warmEncoding } from '../../../src/node/tokenCounter.js';
import { main } from '../../../src/cli/main.js';
import { resolveSettings } from '../../../src/engine/config.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { AgentSession, sidecarPaths } from '../../../src/node/agentSession.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { Chain } from '../compaction/harness.js';
import { entriesOf, GOOD_SUMMARY, openSession, tempDir, verifyFile, writeSession } from '../agent/agentHelpers.js';

function history(): Chain {
  const c = new Chain();
  for (let i = 1; i <= 6; i++) c.turn(i, 40);
  return c;
}

function offline(path: string, model = 'gpt-4o'): Promise<AgentSession> {
  const info = resolveModelInfo(model, { override: { contextWindow: 64_000, maxOutputTokens: 4000 } });
  const resolved = resolveSettings({ raw: {}, env: {}, model: info });
  // The tool schemas `capsule chat` sends, which `capsule budget` counts too.
  return AgentSession.openOffline({ sessionPath: path, model: () => ({ model: info, provider: 'test', resolved, tools: chatToolSchemas(info, resolved) }) });
}

test('after a switch to a model with another tokenizer, the budget and the barrier count the same tokens', async (t) => {
  // Both tables built, so the chat counts exactly from the start (before that it counts upper bounds, the same for both: docs/behaviour.md#cold-start).
  warmEncoding('o200k_base');
  warmEncoding('cl100k_base');
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({
    models: [
      { id: 'gpt-4o', contextLength: 128_000 },
      { id: 'gpt-4', contextLength: 128_000 },
    ],
  });
  t.after(() => server.close());
  server.setFallback(() => ({ text: GOOD_SUMMARY }));
  const path = join(dir, 'chat.jsonl');
  await writeSession(path, history().entries);
  const { session } = await openSession(server, dir, { sessionPath: path, model: 'gpt-4o', window: 128_000, maxOutput: 4096 });
  t.after(() => session.close());
  assert.equal(session.budget().effectiveTokens, session.barrier.measure().tokens);
  const onO200k = session.budget().effectiveTokens;

  const r = await session.switchModel({
    chat: { baseURL: server.url, apiKey: '', model: 'gpt-4' },
    override: { contextWindow: 128_000, maxOutputTokens: 4096 },
  });
  assert.equal(r.ok, true, r.ok ? '' : r.error);
  const b = session.budget();
  assert.equal(b.model, 'gpt-4');
  assert.notEqual(b.effectiveTokens, onO200k, 'cl100k counts this history differently from o200k');
  assert.equal(session.barrier.measure().tokens, b.effectiveTokens, 'the barrier counts with the new model tokenizer, as the meter does');
});

test('rewind appends one leaf entry to the checkpoint, drops pending intents and saves that beside the session', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const c = history();
  const ck = c.add({
    id: 'ck_entry',
    parentId: c.entries[c.entries.length - 1]?.id ?? null,
    timestamp: '2025-01-01T00:00:00.000Z',
    type: 'checkpoint',
    checkpointId: 'ck_one',
    kind: 'milestone',
  });
  c.turn(7, 40);
  await writeSession(path, c.entries);

  const first = await offline(path);
  first.triggers.recordIntent('milestone', 'ck_one');
  await first.close();
  const intentsFile = sidecarPaths(path).intentsFile;
  assert.ok(existsSync(intentsFile), 'pending intents are written beside the session file');

  const second = await offline(path);
  assert.deepEqual(
    second.triggers.pendingIntents().map((p) => p.kind),
    ['milestone'],
    'a reopened session has the intents of the last run',
  );
  const before = (await entriesOf(path)).length;
  const r = await second.rewind('ck_one');
  assert.equal(r.ok, true);
  assert.deepEqual(
    second.store.tree
      .branch()
      .map((e) => e.id)
      .pop(),
    ck.id,
    'the active branch ends at the checkpoint',
  );
  assert.deepEqual(second.triggers.pendingIntents(), []);
  await second.close();
  assert.equal((await entriesOf(path)).length, before + 1, 'one leaf entry, nothing rewritten');
  assert.deepEqual((JSON.parse(await readFile(intentsFile, 'utf8')) as { pending: unknown[] }).pending, []);
  assert.equal((await verifyFile(path)).ok, true);
});

test('rewind to a checkpoint that is not there says so and changes nothing', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  await writeSession(path, history().entries);
  const before = await readFile(path, 'utf8');
  const s = await offline(path);
  const r = await s.rewind('ck_missing');
  await s.close();
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /ck_missing/);
  assert.equal(await readFile(path, 'utf8'), before);
  assert.equal(existsSync(sidecarPaths(path).intentsFile), false, 'a session that never had intents gets no file');
});

test('a session opened without a model refuses turns in words', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  await writeSession(path, history().entries);
  const s = await offline(path);
  t.after(() => s.close());
  assert.throws(() => s.agent, /without a model/);
});

test('capsule budget and the facade report the same figures for the same file and model', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  await writeSession(path, history().entries);
  const lines: string[] = [];
  assert.equal(await main(['budget', path, '--model', 'gpt-4o', '--window', '64000', '--max-output', '4000', '--json'], (s) => lines.push(s)), 0);
  const cli = JSON.parse(lines.join('\n')) as { effectiveTokens: number; hardLimit: number; softLimit: number; categories: unknown };
  const s = await offline(path);
  const b = s.budget();
  await s.close();
  assert.deepEqual(
    { effectiveTokens: b.effectiveTokens, hardLimit: b.hardLimit, softLimit: b.softLimit, categories: b.categories },
    { effectiveTokens: cli.effectiveTokens, hardLimit: cli.hardLimit, softLimit: cli.softLimit, categories: cli.categories },
  );
});
