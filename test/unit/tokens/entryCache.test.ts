// Per-entry caching (docs/behaviour.md#tokens): a preflight after one new entry tokenizes only that entry, however long the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings } from '../../../src/engine/config.js';
import type { ToolSchema } from '../../../src/engine/ports.js';
import { computeBudget } from '../../../src/engine/tokens/budget.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { resolveModelInfo } from '../../../src/engine/tokens/modelLimits.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { BranchBuilder, T0 } from './entries.js';

const SYSTEM = 'You are a coding agent.';
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];

function longSession(entries: number): BranchBuilder {
  const b = new BranchBuilder();
  for (let i = 0; b.entries.length < entries; i++) {
    b.user(`Step ${i}: look at module ${i % 37}`);
    b.assistant(`Reading module ${i}.`, { toolCalls: [{ id: `call_${i}`, name: 'read_file', arguments: `{"path":"src/m${i % 37}.ts"}` }] });
    b.tool(`call_${i}`, `export const v${i} = ${i};\n// end of module ${i}`);
    b.assistant(`Module ${i} exports v${i}.`);
  }
  return b;
}

function last(b: BranchBuilder): Entry {
  const e = b.entries.at(-1);
  assert.ok(e);
  return e;
}

test('appending one entry to a 5,000-entry session tokenizes only that entry', () => {
  const b = longSession(5000);
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  estimateRequest(buildModelInput(b.entries, SYSTEM), TOOLS, cache, 4096);
  const afterFirst = cache.counter.calls;
  assert.ok(afterFirst >= 5000, 'the first estimate tokenizes the whole branch');

  b.assistant('Now editing the entry point.', { toolCalls: [{ id: 'call_new', name: 'read_file', arguments: '{"path":"src/index.ts"}' }] });
  const second = estimateRequest(buildModelInput(b.entries, SYSTEM), TOOLS, cache, 4096);
  const delta = cache.counter.calls - afterFirst;

  const probe = new EntryTokenCache(counterForModel('gpt-4o'));
  probe.tokensOf(last(b));
  assert.equal(delta, probe.counter.calls, "exactly the new entry's count calls");
  assert.equal(delta, 4, 'content, call id, tool name, arguments');

  const fresh = estimateRequest(buildModelInput(b.entries, SYSTEM), TOOLS, new EntryTokenCache(counterForModel('gpt-4o')), 4096);
  assert.deepEqual(second, fresh, 'the cached estimate equals a from-scratch estimate');
});

test('re-estimating an unchanged branch, or computing /budget after one new entry, stays O(new entries)', () => {
  const b = longSession(2000);
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const budget = () =>
    computeBudget({
      branch: b.entries,
      defaultSystem: SYSTEM,
      tools: TOOLS,
      model: resolveModelInfo('gpt-4o'),
      provider: 'openai',
      resolved: resolveSettings({ raw: {} }),
      now: T0,
      cache,
    });
  budget();
  const c0 = cache.counter.calls;
  budget();
  assert.equal(cache.counter.calls, c0, 'nothing new, nothing tokenized');
  b.user('One more question about module 3?');
  budget();
  assert.equal(cache.counter.calls - c0, 1);
});

test('a tool result is cached separately in full and truncated form', () => {
  const long = Array.from({ length: 100 }, (_, i) => `row ${i}`).join('\n');
  const b = new BranchBuilder().tool('c1', long);
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const entry = last(b);
  const full = cache.tokensOf(entry);
  const truncated = cache.tokensOfMessage({ role: 'tool', toolCallId: 'c1', content: long.split('\n').slice(0, 41).join('\n'), entryId: entry.id });
  assert.ok(truncated < full);
  assert.equal(cache.tokensOf(entry), full);
});

test('messages without an entry id are counted each time, never cached under a wrong key', () => {
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const a = cache.tokensOfMessage({ role: 'user', content: 'short' });
  const b = cache.tokensOfMessage({ role: 'user', content: 'a much longer message than the first one' });
  assert.ok(b > a);
  assert.equal(cache.size, 0);
  assert.equal(cache.tokensOf(new BranchBuilder().checkpoint().entries[0] as Entry), 0, 'non-message entries add nothing');
});
