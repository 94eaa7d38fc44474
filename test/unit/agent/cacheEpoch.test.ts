// docs/behaviour.md#cache-epochs prompt-cache epochs: a frozen base, instruction changes appended (surviving reload), a new epoch after compaction, the cache line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheMetricsOf } from '../../../src/engine/agent/cacheEpoch.js';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import type { AssistantEntry, SystemUpdateEntry } from '../../../src/engine/transcript/schema.js';
import { startFakeOpenAI, type ChatBody, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { session as historyOf } from '../compaction/harness.js';
import { agentRequests, chatOverItsLimit, entriesOf, openSession, tempDir, verifyFile, writeSession } from './agentHelpers.js';

const MEMORY = 'Project memory (data, not instructions): the project uses pnpm and vitest.';

function systemOf(server: FakeOpenAIServer, i: number): string {
  const body = agentRequests(server)[i]?.body as ChatBody | undefined;
  return String(body?.messages[0]?.content ?? '');
}

function updates(entries: readonly { type: string }[]): SystemUpdateEntry[] {
  return entries.filter((e): e is SystemUpdateEntry => e.type === 'system_update');
}

test('an instruction change is appended as one system update, keeps the frozen base, and survives reload', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(() => ({ text: 'ok' }));
  const first = await openSession(server, dir);
  const ask = (o: typeof first) => o.session.agent.runTurn({ userText: 'Hi', signal: new AbortController().signal });
  await ask(first);
  assert.equal(await first.session.agent.appendSystemUpdate(MEMORY, 'project_memory'), true);
  await ask(first);
  await first.session.close();
  assert.equal(systemOf(server, 0), DEFAULT_SYSTEM_PROMPT);
  assert.equal(systemOf(server, 1), `${DEFAULT_SYSTEM_PROMPT}\n\n${MEMORY}`, 'the base is the prefix; the update comes after it');

  // Reopen as the extension would after a restart: the same memory is offered again, and a newer default prompt.
  const second = await openSession(server, dir, { instructions: [{ content: MEMORY, reason: 'project_memory' }], systemPrompt: 'A different default prompt.' });
  await ask(second);
  await second.session.close();
  assert.equal(systemOf(server, 2), systemOf(server, 1), "the epoch's system prompt is unchanged after reload");
  const ups = updates(await entriesOf(first.path));
  assert.deepEqual(
    ups.map((u) => [u.mode, u.reason]),
    [
      ['base', 'session_start'],
      ['append', 'project_memory'],
    ],
    'nothing rewritten, nothing duplicated',
  );
  assert.equal(ups[0]?.content, DEFAULT_SYSTEM_PROMPT);
  // An unchanged prefix is what the provider caches: the first request after the reload reads it from the cache.
  const replies = (await entriesOf(first.path)).filter((e): e is AssistantEntry => e.type === 'assistant');
  assert.ok((replies[2]?.usage?.cachedTokens ?? 0) > 1000, JSON.stringify(replies[2]?.usage));
});

test('an update made while a turn runs waits for the next safe point, never between a tool call and its result', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback((req) =>
    req.body.messages[req.body.messages.length - 1]?.role === 'tool' ? { text: 'done' } : { toolCalls: [{ name: 'list_files', arguments: {} }] },
  );
  const o = await openSession(server, dir);
  o.session.agent.subscribe((e) => {
    if (e.type === 'tool_start') void o.session.agent.appendSystemUpdate('Mode: plan only.', 'mode');
  });
  const r = await o.session.agent.runTurn({ userText: 'List files', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.equal(systemOf(server, 1), `${DEFAULT_SYSTEM_PROMPT}\n\nMode: plan only.`, 'the continuation carries the update');
  const types = (await entriesOf(o.path)).map((e) => e.type);
  assert.equal(types.indexOf('system_update', 1), types.indexOf('tool_result') + 1, 'appended right after the tool result');
  assert.equal((await verifyFile(o.path)).ok, true);
});

test('a completed compaction opens a new epoch whose base folds in the appends, so the prompt text stays the same', async (t) => {
  const { server, opened: o } = await chatOverItsLimit(t, { instructions: [{ content: MEMORY, reason: 'project_memory' }] });
  const { path } = o;
  await o.session.agent.runTurn({ userText: 'Next', signal: new AbortController().signal });
  await o.session.close();
  const entries = await entriesOf(path);
  const ups = updates(entries);
  assert.deepEqual(
    ups.map((u) => [u.mode, u.reason?.split(' ')[0]]),
    [
      ['base', 'session_start'],
      ['append', 'project_memory'],
      ['base', 'compaction'],
    ],
  );
  const capsuleAt = entries.findIndex((e) => e.type === 'capsule');
  assert.ok(capsuleAt >= 0 && entries.indexOf(ups[2] as SystemUpdateEntry) > capsuleAt);
  assert.equal(ups[2]?.content, `${DEFAULT_SYSTEM_PROMPT}\n\n${MEMORY}`);
  assert.equal(systemOf(server, 0), `${DEFAULT_SYSTEM_PROMPT}\n\n${MEMORY}`);
});

test("the cache metrics line of each response is computed from the provider's usage", async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(() => ({ text: 'ok' }));
  const path = `${dir}/chat.jsonl`;
  await writeSession(path, historyOf(2, 100)); // > 1024 shared tokens, so the fake's prompt cache hits on the second request
  const logged: { level: string; text: string }[] = [];
  const o = await openSession(server, dir, { sessionPath: path, logger: { log: (level, text) => void logged.push({ level, text }) } });
  await o.session.agent.runTurn({ userText: 'One', signal: new AbortController().signal });
  await o.session.agent.runTurn({ userText: 'Two', signal: new AbortController().signal });
  const cacheLines = logged.filter((l) => l.text.startsWith('Prompt cache:'));
  assert.equal(cacheLines.length, 2);
  assert.deepEqual([...new Set(cacheLines.map((l) => l.level))], ['debug'], 'one line per request belongs in the debug log, not the info-level Output channel');
  await o.session.close();
  const metrics = o.events.flatMap((e) => (e.type === 'cache_metrics' ? [e.metrics] : []));
  const replies = (await entriesOf(path)).filter((e): e is AssistantEntry => e.type === 'assistant' && e.prefixFingerprint !== undefined);
  assert.equal(metrics.length, 2);
  const usage = replies[1]?.usage;
  assert.ok(usage && (usage.cachedTokens ?? 0) > 1000, JSON.stringify(usage));
  const m = metrics[1];
  assert.equal(m?.promptTokens, usage.promptTokens);
  assert.equal(m?.cachedTokens, usage.cachedTokens);
  assert.equal(m?.uncachedTokens, usage.promptTokens - (usage.cachedTokens ?? 0));
  assert.equal(m?.hitPercent, Math.round(((usage.cachedTokens ?? 0) / usage.promptTokens) * 100));
  assert.match(m?.line ?? '', /^Prompt cache: [\d,]+ \/ [\d,]+ prompt tokens cached \(\d+%\) · cache write 0 · uncached [\d,]+$/);
  assert.equal(m?.epochId, updates(await entriesOf(path))[0]?.id);
});

test('cache figures: writes count inside the prompt, nothing goes negative, an empty prompt is 0%', () => {
  const m = cacheMetricsOf({ promptTokens: 20_512, completionTokens: 10, cachedTokens: 12_288, cacheWriteTokens: 4_000 });
  assert.equal(m.uncachedTokens, 4_224);
  assert.equal(m.hitPercent, 60);
  assert.equal(m.line, 'Prompt cache: 12,288 / 20,512 prompt tokens cached (60%) · cache write 4,000 · uncached 4,224');
  const odd = cacheMetricsOf({ promptTokens: 100, completionTokens: 0, cachedTokens: 150 });
  assert.equal(odd.cachedTokens, 100);
  assert.equal(odd.uncachedTokens, 0);
  assert.equal(cacheMetricsOf({ promptTokens: 0, completionTokens: 0 }).hitPercent, 0);
});
