// The front ends' view of a chat: ChatFacade answers with methods what the engine's parts held (branch, entries, appended events, model, settings); OfflineChat reads, measures and moves the leaf of a chat without a model; ChatReading measures a session read-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ChatFacade } from '../../../src/node/chatFacade.js';
import { OfflineChat } from '../../../src/node/offlineChat.js';
import { ChatReading } from '../../../src/node/chatReading.js';
import { loadSessionFile } from '../../../src/node/sessionLoad.js';
import { budgetOf, TokenCaches, type BudgetBasis } from '../../../src/node/sessionBudget.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { resolveSettings } from '../../../src/engine/config.js';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { Chain } from '../compaction/harness.js';
import { openSession, tempDir, writeSession } from '../agent/agentHelpers.js';

test('the facade gives the branch, the entries, each appended entry, the model and the settings in force, as methods', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI();
  t.after(() => server.close());
  server.enqueue({ text: 'Hello from the model.' });
  const { session } = await openSession(server, dir, { model: 'gpt-4o', window: 64_000, maxOutput: 4_000 });
  const chat = new ChatFacade(session);
  t.after(() => chat.close());
  assert.equal(chat.runsOn(session.store), true);
  assert.deepEqual(chat.model, { model: 'gpt-4o', provider: session.agent.currentModel.chat.provider });
  const appended: Entry[] = [];
  const stop = chat.onAppended((e) => appended.push(e));
  await chat.turn({ userText: 'Say hello', signal: new AbortController().signal });
  stop();
  assert.ok(appended.some((e) => e.type === 'user') && appended.some((e) => e.type === 'assistant'), appended.map((e) => e.type).join(','));
  assert.deepEqual(chat.branch(), session.store.tree.branch());
  assert.equal(chat.entries().length, session.store.entries().length);
  assert.equal(chat.header.id, session.store.header.id);
  assert.equal(chat.busy, false);
  assert.equal(chat.budget().effectiveTokens, session.budget().effectiveTokens);
  assert.equal(chat.compactsOnIdle, false);
  chat.applySettings({ compactOnIdle: true, idleMinutes: 5 }, {});
  assert.equal(chat.compactsOnIdle, true, 'new settings apply to the running agent');
});

test('without a model the offline facade rewinds and switches back, the conversation only', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const c = new Chain();
  c.turn(1, 5);
  const ck = c.add({
    id: 'ck_entry',
    parentId: c.entries[c.entries.length - 1]?.id ?? null,
    timestamp: '2025-01-01T00:00:00.000Z',
    type: 'checkpoint',
    checkpointId: 'ck_one',
    kind: 'user',
  });
  c.turn(2, 5);
  await writeSession(path, c.entries);
  const store = await JsonlSessionStore.open(path);
  t.after(() => store.close());
  const leafBefore = store.leafId();
  const moves = new OfflineChat(store);
  const preview = await moves.previewRewind('ck_one');
  assert.equal(preview.ok, true, preview.ok ? '' : preview.error);
  const r = await moves.rewind('ck_one', { mode: 'conversation' });
  assert.equal(r.ok, true, r.ok ? '' : r.error);
  assert.equal(
    store.tree.branch().some((e) => e.id === ck.id),
    true,
  );
  assert.equal(
    store.tree.branch().some((e) => e.type === 'user' && e.content.includes('#2')),
    false,
    'the second turn left the branch',
  );
  assert.equal(r.ok && r.files, undefined, 'no file snapshots without a model: nothing on disk is touched');
  const back = await moves.switchBranch(leafBefore ?? '');
  assert.equal(back.ok, true, back.ok ? '' : back.error);
  assert.equal(
    store.tree.branch().some((e) => e.type === 'user' && e.content.includes('#2')),
    true,
    'the switcher brings the other branch back',
  );
});

test('a chat without a model reads and measures through its facade: the same figures read-only (capsule budget) and from the whole branch', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const c = new Chain();
  for (let i = 1; i <= 6; i++) c.turn(i, 3);
  await writeSession(path, c.entries);
  const store = await JsonlSessionStore.open(path);
  t.after(() => store.close());
  const offline = new OfflineChat(store);
  const reading = new ChatReading(await loadSessionFile(path));
  assert.equal(offline.online, false);
  assert.deepEqual(offline.branch(), store.tree.branch());
  assert.deepEqual(reading.branch(), offline.branch());
  assert.equal(offline.header.id, reading.header?.id);
  const model = resolveModelInfo('gpt-4o');
  const basis = (): BudgetBasis => ({
    model,
    provider: 'test',
    tools: [],
    resolved: resolveSettings({ raw: {}, model }),
    cache: new TokenCaches().forModel(model.model),
    system: DEFAULT_SYSTEM_PROMPT,
  });
  const now = Date.parse('2025-01-02T00:00:00.000Z');
  const whole = budgetOf(offline.branch(), basis(), now);
  assert.ok(whole.effectiveTokens > 0);
  assert.deepEqual(offline.budget(basis(), now), whole, 'from the leaf, the figures of the whole branch');
  assert.deepEqual(reading.budget(basis(), now), whole, 'read-only, the same figures');
  assert.deepEqual(offline.subagentRuns(), reading.subagentRuns());
});
