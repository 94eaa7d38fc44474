// Counted once (docs/behaviour.md#counted-once): after a real turn against the fake server, reopening the session, its budget and a compaction tokenize nothing the session already counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installEncodingLoader, type Encoder, type EncodingName } from '../../../src/engine/tokens/tokenizer.js';
import { packedEncoding } from '../../../src/engine/tokens/bpeCount.js';
import { packRanks, type RawRanks } from '../../../src/node/bpePack.js';
import { warmEncoding } from '../../../src/node/tokenCounter.js';
import { countsSidecarPath } from '../../../src/node/countsFile.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, entriesOf, openSession, tempDir } from './agentHelpers.js';

/** Every text the real tokenizer is asked to count, in this process (installed before any table is built). */
const tokenized: string[] = [];
const load = createRequire(__filename);
installEncodingLoader((name: EncodingName): Encoder => {
  const real = packedEncoding(packRanks((load(`gpt-tokenizer/bpeRanks/${name}`) as { default: RawRanks }).default), name);
  return {
    countTokens(text) {
      tokenized.push(text);
      return real.countTokens(text);
    },
  };
});

/** The texts of the session's entries that a count would read (content, arguments, summaries). */
function textsOf(entries: Awaited<ReturnType<typeof entriesOf>>): Set<string> {
  const out = new Set<string>();
  for (const e of entries) {
    if (e.type === 'user' || e.type === 'tool_result') out.add(e.content);
    if (e.type === 'assistant') {
      if (e.content !== '') out.add(e.content);
      for (const c of e.toolCalls) out.add(c.arguments);
    }
  }
  return out;
}

test('a reopened session, its budget and a compaction tokenize none of the entries it already counted', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 128_000 });
  t.after(() => server.close());
  const notes = Array.from({ length: 60 }, (_, i) => `Note ${i}: the parser keeps line ${i} as written, with ünïcödé and emoji 🚀.`).join('\n');
  await writeFile(join(dir, 'notes.txt'), `${notes}\n`);
  server.setFallback(agentResponder(() => [{ name: 'read_file', arguments: { path: 'notes.txt' } }], 'The notes describe how the parser keeps lines.'));

  // The table built first: until it is, counts are upper bounds that are never persisted (docs/behaviour.md#cold-start),
  // and on a loaded machine the delayed build may not have run before the figure below is read.
  warmEncoding('o200k_base');
  const first = await openSession(server, dir, {
    window: 128_000,
    maxOutput: 4096,
    settings: { keepRecentTokens: 500, minReclaimableTokens: 100, minSavingsRatio: 0.01 },
  });
  for (const text of ['Read the notes.', 'Read them again and summarize.']) {
    const r = await first.session.agent.runTurn({ userText: text, signal: new AbortController().signal });
    assert.equal(r.status, 'completed', r.error);
  }
  const budgetBefore = first.session.budget();
  await first.session.close();
  const counted = textsOf(await entriesOf(first.path));
  assert.ok(counted.size >= 4, `the turns wrote user, assistant and tool entries (${counted.size} distinct texts)`);

  tokenized.length = 0;
  const again = await openSession(server, dir, {
    sessionPath: first.path,
    window: 128_000,
    maxOutput: 4096,
    settings: { keepRecentTokens: 500, minReclaimableTokens: 100, minSavingsRatio: 0.01 },
  });
  const budgetAfter = again.session.budget();
  assert.equal(budgetAfter.effectiveTokens, budgetBefore.effectiveTokens, 'the persisted counts give the same figure');
  assert.deepEqual(budgetAfter.categories, budgetBefore.categories);
  assert.deepEqual(tokenized, [], 'opening the session and its budget tokenized nothing at all');

  const compacted = await again.session.compact();
  assert.ok(
    compacted.outcomes.some((o) => o.outcome === 'completed'),
    JSON.stringify(compacted.outcomes),
  );
  const recounted = tokenized.filter((s) => counted.has(s));
  assert.deepEqual(recounted, [], "the compaction read every earlier entry's count from the sidecar");
  assert.ok(tokenized.length > 0, 'the compaction did count what is new (its summary)');
  await again.session.close();
});

test('a session whose sidecar was deleted counts again, the same figures, and writes it back', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 128_000 });
  t.after(() => server.close());
  server.setFallback(agentResponder(() => [], 'Nothing to read.'));
  const first = await openSession(server, dir, { window: 128_000, maxOutput: 4096, settings: {} });
  const r = await first.session.agent.runTurn({ userText: 'Say hello.', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  const before = first.session.budget();
  await first.session.close();

  const { rm, readFile } = await import('node:fs/promises');
  await rm(countsSidecarPath(first.path));
  tokenized.length = 0;
  const again = await openSession(server, dir, { sessionPath: first.path, window: 128_000, maxOutput: 4096, settings: {} });
  assert.equal(again.session.budget().effectiveTokens, before.effectiveTokens);
  assert.ok(tokenized.length > 0, 'without a sidecar the history is counted');
  await again.session.close();
  assert.match(await readFile(countsSidecarPath(first.path), 'utf8'), /^\{"capsuleCounts":1,"session":"s_/);
});
