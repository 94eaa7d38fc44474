// Cache-friendly requests: one prompt_cache_key per chat (or none when turned off), cache figures from every provider shape, superseded updates dropped at a new epoch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CACHE_DROP_POINTS, CacheLineLevel, cacheMetricsOf, freshEpochBase, systemUpdateEntry } from '../../../src/engine/agent/cacheEpoch.js';
import { DEFAULT_SYSTEM_PROMPT } from '../../../src/engine/agent/systemPrompt.js';
import type { Entry, SystemUpdateEntry } from '../../../src/engine/transcript/schema.js';
import { toUsage } from '../../../src/node/providers/openaiEvents.js';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { AgentSession } from '../../../src/node/agentSession.js';
import { agentRequests, chatOverItsLimit, entriesOf, openSession, tempDir } from './agentHelpers.js';

test('every request of a chat, summaries included, carries the same prompt_cache_key and user; another chat gets another', async (t) => {
  const { dir, server, opened: o } = await chatOverItsLimit(t);
  await o.session.agent.runTurn({ userText: 'Next', signal: new AbortController().signal });
  await o.session.agent.runTurn({ userText: 'Again', signal: new AbortController().signal });
  await o.session.close();
  const bodies = server.chatRequests.map((r) => r.body as ChatBody & { prompt_cache_key?: unknown; user?: unknown });
  assert.ok(
    bodies.some((b) => b.tool_choice === 'none'),
    'a summary request was sent',
  );
  assert.ok(bodies.length >= 3);
  const keys = new Set(bodies.map((b) => b.prompt_cache_key));
  assert.equal(keys.size, 1);
  const [key] = keys;
  assert.equal(typeof key, 'string');
  assert.match(String(key), /^capsule-s_/);
  assert.ok(bodies.every((b) => b.user === key));

  server.reset();
  server.setFallback(() => ({ text: 'ok' }));
  const other = await openSession(server, dir, { sessionPath: `${dir}/other.jsonl` });
  await other.session.agent.runTurn({ userText: 'Hi', signal: new AbortController().signal });
  await other.session.close();
  const otherKey = (agentRequests(server)[0]?.body as { prompt_cache_key?: unknown } | undefined)?.prompt_cache_key;
  assert.equal(typeof otherKey, 'string');
  assert.notEqual(otherKey, key);
});

test('with sendCacheKey off no request carries prompt_cache_key or user', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const s = await AgentSession.open({
    sessionPath: `${dir}/strict.jsonl`,
    create: { cwd: dir },
    model: { chat: { baseURL: server.url, apiKey: '', model: 'fake-model', sendCacheKey: false }, override: { contextWindow: 20_000, maxOutputTokens: 2_000 } },
    env: {},
  });
  server.reset();
  server.setFallback(() => ({ text: 'ok' }));
  const r = await s.agent.runTurn({ userText: 'Hi', signal: new AbortController().signal });
  await s.close();
  assert.equal(r.status, 'completed', r.error);
  const body = server.chatRequests[0]?.body as Record<string, unknown> | undefined;
  assert.ok(body);
  assert.equal('prompt_cache_key' in body, false);
  assert.equal('user' in body, false);
});

test('cache reads and writes are read from OpenAI, OpenRouter, Anthropic-style and DeepSeek usage', () => {
  const cases: readonly [string, Record<string, unknown>, { promptTokens: number; cachedTokens?: number; cacheWriteTokens?: number }][] = [
    ['OpenAI', { prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1536 } }, { promptTokens: 2000, cachedTokens: 1536 }],
    [
      'OpenRouter',
      { prompt_tokens: 2000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 1800 } },
      { promptTokens: 2000, cachedTokens: 0, cacheWriteTokens: 1800 },
    ],
    [
      'Anthropic via a gateway (inside prompt_tokens)',
      { prompt_tokens: 2000, completion_tokens: 5, cache_read_input_tokens: 1200, cache_creation_input_tokens: 700 },
      { promptTokens: 2000, cachedTokens: 1200, cacheWriteTokens: 700 },
    ],
    [
      'Anthropic passed through (outside input tokens)',
      { prompt_tokens: 40, completion_tokens: 5, cache_read_input_tokens: 1200, cache_creation_input_tokens: 700 },
      { promptTokens: 1940, cachedTokens: 1200, cacheWriteTokens: 700 },
    ],
    [
      'DeepSeek',
      { prompt_tokens: 2000, completion_tokens: 5, prompt_cache_hit_tokens: 1920, prompt_cache_miss_tokens: 80 },
      { promptTokens: 2000, cachedTokens: 1920 },
    ],
    ['no cache figures', { prompt_tokens: 2000, completion_tokens: 5 }, { promptTokens: 2000 }],
  ];
  for (const [name, raw, want] of cases) {
    const u = toUsage(raw as never);
    assert.deepEqual(
      {
        promptTokens: u.promptTokens,
        ...(u.cachedTokens === undefined ? {} : { cachedTokens: u.cachedTokens }),
        ...(u.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: u.cacheWriteTokens }),
      },
      want,
      name,
    );
  }
  const line = cacheMetricsOf(
    toUsage({ prompt_tokens: 2000, completion_tokens: 5, cache_read_input_tokens: 1200, cache_creation_input_tokens: 700 } as never),
  ).line;
  assert.match(line, /cache write 700 · uncached 100$/);
});

function update(id: string, mode: 'base' | 'append', content: string, reason?: string): SystemUpdateEntry {
  return systemUpdateEntry({ id, parentId: null, timestamp: '2026-01-01T00:00:00.000Z', mode, content, ...(reason === undefined ? {} : { reason }) });
}

test('a new epoch base keeps the latest update of each source and every unsourced one, across earlier epochs', () => {
  const branch: Entry[] = [
    update('u1', 'base', 'BASE', 'session_start'),
    update('u2', 'append', 'Mode: plan.', 'mode'),
    update('u3', 'append', 'Memory v1', 'Project Memory'),
    update('u4', 'base', 'BASE\n\nMode: plan.\n\nMemory v1', 'compaction c1'),
    update('u5', 'append', 'Mode: act.', 'mode'),
    update('u6', 'append', 'Also lint.'),
  ];
  assert.equal(freshEpochBase(branch, DEFAULT_SYSTEM_PROMPT), 'BASE\n\nMemory v1\n\nMode: act.\n\nAlso lint.');
  assert.equal(freshEpochBase([], 'DEFAULT'), 'DEFAULT');
});

test('at a compaction the superseded Project Memory update is dropped from the new base', async (t) => {
  const { opened: o } = await chatOverItsLimit(t, {
    instructions: [
      { content: 'Memory v1: pnpm.', reason: 'Project Memory' },
      { content: 'Memory v2: pnpm and vitest.', reason: 'Project Memory' },
    ],
  });
  await o.session.agent.runTurn({ userText: 'Next', signal: new AbortController().signal });
  await o.session.close();
  const bases = (await entriesOf(o.path)).filter((e): e is SystemUpdateEntry => e.type === 'system_update' && e.mode === 'base');
  assert.equal(bases[bases.length - 1]?.content, `${DEFAULT_SYSTEM_PROMPT}\n\nMemory v2: pnpm and vitest.`);
});

test('the cache line is debug, and info only when the hit rate drops within an epoch', () => {
  const lines = new CacheLineLevel();
  const m = (hit: number, epochId = 'e1') => cacheMetricsOf({ promptTokens: 1000, completionTokens: 1, cachedTokens: hit * 10 }, epochId);
  assert.equal(lines.levelFor(m(0)), 'debug');
  assert.equal(lines.levelFor(m(90)), 'debug');
  assert.equal(lines.levelFor(m(90 - CACHE_DROP_POINTS)), 'info');
  assert.equal(lines.levelFor(m(0, 'e2')), 'debug', 'a new epoch starts cold');
});
