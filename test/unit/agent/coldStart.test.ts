// Tokenizer cold start (docs/behaviour.md#cold-start): while the BPE table is not built the chat counts upper bounds, so no turn waits for it and no request exceeds the window (4k and 8k windows, the fake server counting exactly).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countMessage } from '../../../src/engine/tokens/messageTokens.js';
import { UntilReadyCounter, utf8Length } from '../../../src/engine/tokens/untilReady.js';
import { coldStartHooks } from '../../../src/node/sessionBudget.js';
import { counterForEncoding, loadedEncodings } from '../../../src/node/tokenCounter.js';
import { isSummaryRequest, startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, compactionEnds, openSession, rejected, tempDir, verifyFile } from './agentHelpers.js';

const SAMPLES: readonly string[] = [
  'The quick brown fox jumps over the lazy dog.',
  'export function f(a: number): number {\n\treturn a * 2; // double\n}\n',
  '    \n\n\t\t   lots   of    whitespace\r\n',
  '日本語のテキストと中文文本，한국어 텍스트',
  'emoji 🚀🧪👩‍👩‍👧‍👦 flags 🇫🇷🇯🇵 and skin tones 👍🏽',
  'e\u0301 combining a\u030a marks and \u200bzero\u200dwidth',
  'special tokens as text: <|endoftext|><|im_start|>user<|im_end|><|fim_prefix|>',
  'lone surrogates \ud800 and \udfff in a row',
  '{"path":"src/m1.ts","content":"x".repeat(9)}',
  Array.from({ length: 300 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 65000))).join(''),
  'a'.repeat(5000),
  '0123456789'.repeat(300),
];

async function workspace(dir: string, files: number): Promise<void> {
  for (let i = 0; i < files; i++) {
    const body = Array.from({ length: 12 }, (_, l) => `line ${l} of file ${i}: const v${i}_${l} = compute(${l}, "ünïcödé ✓");`).join('\n');
    await writeFile(join(dir, `f${i}.txt`), `${body}\n`);
  }
}

// First in this file: no table is built in this process before it.
test('a first turn on a session builds no tokenizer table', async (t) => {
  coldStartHooks.holdTable = true;
  t.after(() => {
    coldStartHooks.holdTable = false;
  });
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  await workspace(dir, 1);
  server.setFallback(agentResponder(() => [{ name: 'read_file', arguments: { path: 'f0.txt' } }], 'Read it.'));
  const o = await openSession(server, dir, { window: 32_000, maxOutput: 2048, settings: {} });
  const r = await o.session.agent.runTurn({ userText: 'Read f0.txt', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  assert.deepEqual(loadedEncodings(), [], 'the turn ran on upper bounds alone');
  assert.ok(o.session.basis().cache.provisional > 0);
  await o.session.close();
  assert.deepEqual(loadedEncodings(), ['o200k_base'], 'closing counted exactly once, so the session keeps its counts');
});

test('the bound used before the table is built is never below the real count (o200k_base and cl100k_base)', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    const exact = counterForEncoding(encoding);
    for (const text of SAMPLES) assert.ok(utf8Length(text) >= exact.count(text), `${encoding}: ${JSON.stringify(text.slice(0, 40))}`);
    const cold = new UntilReadyCounter(
      counterForEncoding(encoding),
      () => false,
      () => undefined,
    );
    for (const text of SAMPLES) {
      const m = {
        role: 'assistant' as const,
        content: text,
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: JSON.stringify({ path: text.slice(0, 30) }) }],
      };
      assert.ok(countMessage(cold, m) >= countMessage(exact, m));
    }
    assert.equal(cold.exactCalls, 0, 'no count reached the table');
    assert.ok(cold.provisional > 0);
    cold.settle();
    assert.equal(cold.count(SAMPLES[0] ?? ''), exact.count(SAMPLES[0] ?? ''), 'settled: exact');
  }
});

for (const window of [4_096, 8_192]) {
  test(`${window}-token window: turns on upper bounds never send a request above the window, and compaction runs on exact counts`, async (t) => {
    coldStartHooks.holdTable = true;
    t.after(() => {
      coldStartHooks.holdTable = false;
    });
    const dir = await tempDir(t);
    const server = await startFakeOpenAI({ window });
    t.after(() => server.close());
    const turns = window === 4_096 ? 8 : 12;
    await workspace(dir, turns);
    let turn = 0;
    // No usage reports: the provider's figure would calibrate the estimate; here the local counts alone decide.
    const respond = agentResponder(() => [{ name: 'read_file', arguments: { path: `f${turn}.txt` } }], 'The file defines twelve constants.');
    server.setFallback((req) => ({ ...respond(req), omitUsage: true }));
    const o = await openSession(server, dir, { window, maxOutput: window / 8, settings: {} });
    const cache = o.session.basis().cache;
    let boundsBeforeCompaction = 0;
    for (; turn < turns; turn++) {
      const r = await o.session.agent.runTurn({ userText: `Read f${turn}.txt and tell me what it defines.`, signal: new AbortController().signal });
      assert.equal(r.status, 'completed', `turn ${turn}: ${r.error ?? ''}`);
      if (compactionEnds(o.events).length === 0) boundsBeforeCompaction = cache.provisional;
    }
    const boundsAtEnd = cache.provisional;
    await o.session.close();
    assert.deepEqual(
      rejected(server).map((r) => r.reply),
      [],
      'no request was refused, none over the window',
    );
    for (const r of server.chatRequests) {
      const max =
        (r.body as { max_tokens?: number; max_completion_tokens?: number }).max_completion_tokens ?? (r.body as { max_tokens?: number }).max_tokens ?? 0;
      assert.ok((r.promptTokens ?? 0) + max <= window, `request ${r.index}: ${String(r.promptTokens)} + ${max} tokens`);
    }
    assert.ok(boundsBeforeCompaction > 0, 'the turns before the first compaction counted upper bounds');
    assert.ok(boundsAtEnd >= boundsBeforeCompaction);
    const settledAt = cache.provisional;
    o.session.budget();
    assert.equal(cache.provisional, settledAt, 'once a compaction was due, every later count is exact');
    assert.ok(
      server.chatRequests.some((r) => isSummaryRequest(r.body as never)),
      'the history outgrew the window and was compacted',
    );
    assert.ok(compactionEnds(o.events).some((e) => e.outcome === 'completed'));
    assert.equal((await verifyFile(o.path)).ok, true);
  });
}
