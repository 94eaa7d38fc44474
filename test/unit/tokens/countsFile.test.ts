// Counted once (docs/behaviour.md#counted-once): the counts sidecar is read before tokenizing, survives a reopen, and is ignored, never trusted, when damaged, foreign or from another tokenizer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolSchema } from '../../../src/engine/ports.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { tokenizerId } from '../../../src/engine/tokens/persistedCounts.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { CountsFile, countsSidecarPath } from '../../../src/node/countsFile.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { sessionOwnedPaths } from '../../../src/node/tools/ownFiles.js';
import { tempDir } from '../../support/tempDir.js';
import { BranchBuilder } from './entries.js';

const SYSTEM = 'You are a coding agent.';
const TOOLS: readonly ToolSchema[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const O200K = tokenizerId('o200k_base');

function branch(n = 40): BranchBuilder {
  const b = new BranchBuilder();
  for (let i = 0; i < n; i++) {
    b.user(`Step ${i}: look at module ${i}`);
    b.assistant(`Reading module ${i}.`, { toolCalls: [{ id: `call_${i}`, name: 'read_file', arguments: `{"path":"src/m${i}.ts"}` }] });
    b.tool(`call_${i}`, `export const v${i} = ${i}; // ünïcödé ✓ 🚀 <|endoftext|>`);
    b.assistant(`Module ${i} exports v${i}.`);
  }
  return b;
}

function estimate(b: BranchBuilder, cache: EntryTokenCache): number {
  return estimateRequest(buildModelInput(b.entries, SYSTEM), TOOLS, cache, 1000).total;
}

/** Counts `b` with the sidecar of `path` and writes it, as a session's first open does. */
async function countAndPersist(path: string, b: BranchBuilder): Promise<number> {
  const counts = await CountsFile.load(path, 's_test');
  const total = estimate(b, new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer(O200K)));
  await counts.flush();
  return total;
}

test('a reopened session is estimated from its persisted counts: the same figure, no tokenizer call', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  const b = branch();
  const first = await countAndPersist(path, b);

  const counts = await CountsFile.load(path, 's_test');
  assert.ok(counts.size >= b.entries.length, `every message, the system prompt and the tools are kept (${counts.size})`);
  const cache = new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer(O200K));
  assert.equal(estimate(b, cache), first, 'the same estimate as counting afresh');
  assert.equal(cache.counter.calls, 0, 'nothing was tokenized');

  b.user('One more question about module 3');
  estimate(b, cache);
  assert.equal(cache.counter.calls, 1, 'only the new entry is tokenized');
  await counts.flush();
  const again = await CountsFile.load(path, 's_test');
  const third = new EntryTokenCache(counterForModel('gpt-4o'), again.forTokenizer(O200K));
  estimate(b, third);
  assert.equal(third.counter.calls, 0, "the new entry's count was appended to the sidecar");
});

test('counts from another tokenizer or another counting-rules version are not trusted', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  const b = branch(5);
  await countAndPersist(path, b);

  const counts = await CountsFile.load(path, 's_test');
  const cl100k = new EntryTokenCache(counterForModel('gpt-4'), counts.forTokenizer(tokenizerId('cl100k_base')));
  const fresh = new EntryTokenCache(counterForModel('gpt-4'));
  assert.equal(estimate(b, cl100k), estimate(b, fresh), 'cl100k counts its own figures');
  assert.equal(cl100k.counter.calls, fresh.counter.calls, 'none of the o200k figures was used');

  const older = new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer('o200k_base@0'));
  estimate(b, older);
  assert.ok(older.counter.calls > 0, 'figures of other counting rules are recounted');
});

test('a count whose entry no longer has the length it was counted at is recounted (a hand-edited line)', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  const b = branch(3);
  await countAndPersist(path, b);
  const edited = b.entries.map((e) => (e.id === 'e1' && e.type === 'user' ? { ...e, content: `${e.content} and much more text than before` } : e));
  const counts = await CountsFile.load(path, 's_test');
  const cache = new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer(O200K));
  const got = estimateRequest(buildModelInput(edited, SYSTEM), TOOLS, cache, 1000).total;
  assert.equal(cache.counter.calls, 1, 'only the edited entry is tokenized');
  assert.equal(got, estimateRequest(buildModelInput(edited, SYSTEM), TOOLS, new EntryTokenCache(counterForModel('gpt-4o')), 1000).total);
});

test('a damaged sidecar never crashes: torn or wrong lines are skipped, garbage and foreign files are ignored and replaced', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  const b = branch(5);
  const exact = await countAndPersist(path, b);
  const sidecar = countsSidecarPath(path);
  const good = await readFile(sidecar, 'utf8');
  const lines = good.trimEnd().split('\n');

  // A torn last line and lines of the wrong shape (negative, fractional, strings, objects) among good ones.
  const wrong = [`["${O200K}","e1",10,-1]`, `["${O200K}","e2",10,1.5]`, `["${O200K}","e3","10",4]`, '{"k":"e4"}', '[1,2,3,4]', 'null'];
  await writeFile(sidecar, `${[lines[0], ...wrong, ...lines.slice(1)].join('\n')}\n["${O200K}","e9",4`);
  const mixed = await CountsFile.load(path, 's_test');
  assert.equal(mixed.size, lines.length - 1, 'every good record is read, nothing else');
  const cache = new EntryTokenCache(counterForModel('gpt-4o'), mixed.forTokenizer(O200K));
  assert.equal(estimate(b, cache), exact);
  assert.equal(cache.counter.calls, 0);

  for (const [what, content] of [
    ['random bytes', Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x0a, 0x5b, 0x22])],
    ["another session's counts", good.replace('"s_test"', '"s_other"')],
    ['a newer format', good.replace('"capsuleCounts":1', '"capsuleCounts":2')],
    ['an empty file', ''],
  ] as const) {
    await writeFile(sidecar, content);
    const counts = await CountsFile.load(path, 's_test');
    assert.equal(counts.size, 0, `${what}: nothing is trusted`);
    const c = new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer(O200K));
    assert.equal(estimate(b, c), exact, `${what}: counted afresh, same figure`);
    assert.ok(c.counter.calls > 0);
    await counts.flush();
    const text = await readFile(sidecar, 'utf8');
    assert.ok(text.startsWith('{"capsuleCounts":1,"session":"s_test"}\n'), `${what}: replaced by a valid file`);
    assert.equal((await CountsFile.load(path, 's_test')).size, counts.size);
  }
});

test('a link where the sidecar belongs is neither read nor written through; a read-only open writes nothing', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'chat.jsonl');
  const b = branch(3);
  const target = join(dir, 'elsewhere.txt');
  await writeFile(target, "not Capsule's\n");
  await symlink(target, countsSidecarPath(path));
  const counts = await CountsFile.load(path, 's_test');
  assert.equal(counts.size, 0);
  estimate(b, new EntryTokenCache(counterForModel('gpt-4o'), counts.forTokenizer(O200K)));
  await counts.flush();
  assert.equal(await readFile(target, 'utf8'), "not Capsule's\n", "the link's target is untouched");

  const other = join(dir, 'other.jsonl');
  const readOnly = await CountsFile.load(other, 's_test', { writable: false });
  const cache = new EntryTokenCache(counterForModel('gpt-4o'), readOnly.forTokenizer(O200K));
  estimate(b, cache);
  await readOnly.flush();
  await assert.rejects(readFile(countsSidecarPath(other)), { code: 'ENOENT' });
  const calls = cache.counter.calls;
  estimate(b, cache);
  assert.equal(cache.counter.calls, calls, 'the counts are still kept in memory');
});

test("the sidecar is one of the session's own files: the agent's writes refuse it", () => {
  const owned = sessionOwnedPaths('/w/.capsule/chat.jsonl', '/w/.capsule/chat.archive', '/w/.capsule/chat.flight.jsonl');
  assert.ok(owned.includes('/w/.capsule/chat.jsonl.counts'));
  const elsewhere = sessionOwnedPaths('/storage/sessions/s_1.jsonl', '/storage/archive/s_1', '/storage/flight.jsonl');
  assert.ok(elsewhere.includes('/storage/sessions/s_1.jsonl.counts'));
});
