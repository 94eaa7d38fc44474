// The compact part of a tail-first store: opening parses only the tail, reading an older entry gives exactly what a full load gives, and a bad line there is found, with its number, when it is read.
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { BranchLine } from '../../../src/engine/transcript/branchLine.js';
import { BranchIndex } from '../../../src/engine/transcript/branches.js';
import { MomentIndex } from '../../../src/engine/transcript/momentIndex.js';
import { momentsOf } from '../../../src/engine/transcript/moments.js';
import { ColdReadError } from '../../../src/engine/transcript/coldPart.js';
import type { EntryLink } from '../../../src/engine/transcript/tree.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { indexRest, linesExpectedBefore, readTail } from '../../../src/node/tailRead.js';
import { recordedModelOf, sessionModel } from '../../../src/cli/session.js';
import { LongSessionGen, writeLongSession } from '../../support/longSession.js';
import { tempDir, user } from './storeHelpers.js';
import { ending, op, sessionText } from './tailSessions.js';

/** Counts JSON.parse calls while `fn` runs: every entry parsed anywhere goes through it. */
async function countingParses<T>(fn: () => Promise<T>): Promise<{ readonly value: T; readonly parses: number }> {
  const real = JSON.parse;
  let parses = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    parses++;
    return real(text, reviver);
  }) as typeof JSON.parse;
  try {
    return { value: await fn(), parses };
  } finally {
    JSON.parse = real;
  }
}

/** A long session whose line `lineNo` (1-based) is replaced by `replace(entry)`. */
async function withLine(path: string, lineNo: number, replace: (raw: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  const raw = JSON.parse(lines[lineNo - 1] ?? '{}') as Record<string, unknown>;
  lines[lineNo - 1] = JSON.stringify(replace(raw));
  await writeFile(path, lines.join('\n'));
}

test('opening tail first parses only the tail; the figures read nothing back (what they fold is kept whole)', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-');
  const path = join(dir, 's.jsonl');
  const entries = [...(await writeLongSession(path, 4_000, dir))];
  // As Capsule writes a chat: the model recorded at its start, a reply that names the model at its end.
  await withLine(path, 2, (raw) => ({
    type: 'model_change',
    id: raw.id,
    parentId: null,
    timestamp: raw.timestamp,
    provider: 'openai',
    model: 'gpt-4o',
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
  }));
  const last = entries.at(-1)?.id ?? null;
  await appendFile(
    path,
    `${JSON.stringify({ type: 'assistant', id: 'a_last', parentId: last, timestamp: '2025-01-01T00:00:00.000Z', content: 'hi', toolCalls: [], model: 'gpt-4o', provider: 'openai' })}\n`,
  );
  const tail = await readTail(path, { maxLineBytes: 64 * 1024 * 1024 });
  assert.ok(tail !== undefined && tail.lines.length < 400, 'the tail is the last compaction span');
  const { value: store, parses } = await countingParses(async () => {
    const s = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true, readOnly: true });
    await s.whenIndexed();
    return s;
  });
  t.after(() => store.close());
  // The tail's lines, once, the header (read by the tail and by the index), and before the tail only the lines the
  // figures read, kept whole (capsules, system updates, the model change).
  const kept = entries.filter((e) => e.type === 'capsule' || e.type === 'system_update').length + 1;
  assert.ok(parses <= tail.lines.length + 2 + kept, `${parses} parses for a tail of ${tail.lines.length} lines and ${kept} kept whole`);
  assert.equal(store.tree.size, entries.length + 1);
  assert.equal(store.tree.coldReads, 0);
  const full = (await loadSessionFile(path)).tree;
  assert.deepEqual({ ...store.figures() }, { ...full.figures() });
  assert.equal(store.tree.coldReads, 0, 'the figures read nothing back: what they fold is kept whole');
  const before = store.tree.coldReads;
  assert.deepEqual(recordedModelOf(store.tree), sessionModel(full.branch()));
  assert.equal(recordedModelOf(store.tree)?.contextWindow, 128_000);
  assert.equal(store.tree.coldReads, before, 'the recorded model comes from the tail and the figures');
});

// No bad entries (the test below has one); more compactions than in tailSessions, so most tails are short.
const goodOp = fc.oneof(
  { weight: 5, arbitrary: op.filter((o) => o.k !== 'badEntry') },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('capsule' as const), keep: fc.nat(4), pins: fc.constant([]), checkpointFirst: fc.boolean() }) },
);

test('random trees: every read of the compact part (get, branch, children, entries, figures) equals the full load', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-');
  let n = 0;
  let cold = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(goodOp, { minLength: 30, maxLength: 150 }),
      ending,
      fc.constantFrom(3_000, 20_000, 10_000_000),
      async (ops, end, maxTailBytes) => {
        const path = join(dir, `s${n++}.jsonl`);
        await writeFile(path, sessionText(ops, end));
        const full = (await loadSessionFile(path)).tree;
        const store = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true, readOnly: true, maxTailBytes });
        try {
          await store.whenIndexed();
          const tree = store.tree;
          assert.equal(tree.leafId, full.leafId);
          assert.equal(tree.size, full.size);
          assert.deepEqual({ ...tree.figures() }, { ...full.figures() });
          assert.deepEqual(tree.entries(), full.entries());
          for (const e of full.entries()) {
            assert.deepEqual(tree.get(e.id), e);
            assert.deepEqual(tree.branch(e.id), full.branch(e.id));
            assert.deepEqual(tree.children(e.id), full.children(e.id));
          }
          assert.deepEqual(tree.children(null), full.children(null));
          assert.deepEqual([...tree.walkBack()], full.branch().reverse());
          // The shape-only reads the views fold from: links, branch ids, kinds, parents, and what folds on them.
          const shape = (l: EntryLink): unknown => ({ id: l.id, parentId: l.parentId, type: l.type, subagent: l.subagent !== undefined });
          assert.deepEqual(tree.linksFrom(0).map(shape), full.linksFrom(0).map(shape));
          assert.deepEqual(tree.branchIds(), full.branchIds());
          for (const e of full.entries()) {
            assert.equal(tree.typeOf(e.id), e.type);
            assert.equal(tree.parentOf(e.id), e.parentId);
          }
          const kinds = new Set(['user', 'capsule', 'system_update']);
          assert.deepEqual([...tree.branchOfKinds(kinds)], [...full.branchOfKinds(kinds)]);
          const [line, fullLine] = [new BranchLine(tree), new BranchLine(full)];
          assert.equal(line.length, fullLine.length);
          assert.deepEqual(line.slice(0), fullLine.slice(0));
          assert.deepEqual(line.keptSpan(), fullLine.keptSpan());
          assert.equal(line.messages, fullLine.messages);
          const [forks, fullForks] = [new BranchIndex(tree), new BranchIndex(full)];
          for (const e of full.entries()) {
            assert.equal(line.positionOf(e.id), fullLine.positionOf(e.id));
            assert.deepEqual(forks.forkOf(e.id), fullForks.forkOf(e.id));
          }
          // The Checkpoints tree's moments, folded from the records, equal the reference fold of the whole load.
          const moments = new MomentIndex(tree);
          const reference = momentsOf(full.entries(), full.branch());
          assert.deepEqual(moments.active(), reference.active);
          assert.deepEqual(moments.other(), reference.other);
          if (tree.coldReads > 0) cold++;
        } finally {
          await store.close();
        }
      },
    ),
    { numRuns: 150, endOnFailure: true },
  );
  assert.ok(cold > 20, `the compact part was read in ${cold} of ${n} runs`);
});

test('a bad entry in the compact part is found when it is read: one line naming it, the file untouched, appends still work', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-');
  const path = join(dir, 's.jsonl');
  await writeLongSession(path, 2_000, dir);
  // Line 3 is the second entry (a tool call's answer): its id and parent are fine, its content is not a string.
  await withLine(path, 3, (raw) => ({ ...raw, content: 42 }));
  const original = await readFile(path);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true });
  t.after(() => store.close());
  await store.whenIndexed();
  assert.ok(!store.readOnly);
  assert.deepEqual(store.problems, [], 'not read yet, so not known yet');
  assert.throws(
    () => store.tree.branch(),
    (err: unknown) => err instanceof ColdReadError && /^Session line 3 cannot be read: content: /.test(err.message) && !err.message.includes('\n'),
  );
  assert.throws(() => store.get('e2'), ColdReadError);
  assert.equal(store.get('e1')?.id, 'e1', 'the lines around it still read');
  const leaf = store.leafId();
  await store.append(user('u_next', leaf));
  await store.close();
  const after = await readFile(path);
  assert.deepEqual(after.subarray(0, original.length), original, 'nothing before the append was changed');
  assert.deepEqual(JSON.parse(after.subarray(original.length).toString('utf8')), user('u_next', leaf));
});

test('a line rewritten under an open store (same length, another entry) is refused when read, not taken for the one indexed', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-');
  const path = join(dir, 's.jsonl');
  await writeLongSession(path, 2_000, dir);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true, readOnly: true });
  t.after(() => store.close());
  await store.whenIndexed();
  // e5 → e6's twin spelled e9 at e5's place: same byte length, valid, but not what was indexed there.
  const text = await readFile(path, 'utf8');
  await writeFile(path, text.replace('"id":"e5"', '"id":"e9"'));
  assert.throws(() => store.get('e5'), /^ColdReadError: Session line 6 changed after the session was opened/u);
});

test('the branch line and the branch index fold the compact part from its records: only the entries a page shows are read back', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-line-');
  const path = join(dir, 's.jsonl');
  const entries = await writeLongSession(path, 3_000, dir);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true, readOnly: true });
  t.after(() => store.close());
  await store.whenIndexed();
  const tree = store.tree;
  const line = new BranchLine(tree);
  const forks = new BranchIndex(tree);
  const first = { length: line.length, fork: forks.forkOf(entries.at(-1)?.id ?? '') };
  assert.ok(first.length > 2_000 && tree.size > tree.linksFrom(0).filter((l) => l.cold === true).length, 'the session has a compact part');
  assert.equal(tree.coldReads, 0, 'the first fold reads no older entry back: ids, parents and kinds come from the records');
  // What a page of the chat does: many positions, many fork lookups. Only the entries asked for are read.
  assert.deepEqual(forks.forkOf(entries.at(-1)?.id ?? ''), first.fork);
  for (let i = 0; i < 200; i++) {
    assert.equal(line.length, first.length);
    assert.ok(line.at(first.length - 1 - i) !== undefined);
    forks.forkOf(entries.at(-1 - i)?.id ?? '');
  }
  assert.ok(tree.coldReads <= 200, `a page of 200 positions reads at most those 200 entries (${tree.coldReads})`);
  // Positions of older entries come from their slots, unread.
  const reads = tree.coldReads;
  assert.equal(line.positionOf(entries[5]?.id ?? ''), 5);
  assert.equal(line.idAt(5), entries[5]?.id);
  assert.equal(tree.coldReads, reads);
  // The same line and forks as a session parsed whole.
  const full = (await loadSessionFile(path)).tree;
  const whole = new BranchLine(full);
  assert.equal(whole.length, first.length);
  assert.equal(whole.at(0)?.id, line.at(0)?.id);
  assert.deepEqual(new BranchIndex(full).forkOf(entries[10]?.id ?? ''), forks.forkOf(entries[10]?.id ?? ''));
});

test('entries read back are kept for the next read up to 1,024 of them and 8 MB of lines in all, then read from the file again', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-recent-');
  const path = join(dir, 's.jsonl');
  const gen = new LongSessionGen().grow(4_000);
  // Ten answers of 1 MB each early in the chat: their lines together are over the bound.
  const big = gen.entries.filter((e) => e.type === 'assistant').slice(2, 12);
  const bigIds = new Set(big.map((e) => e.id));
  const entries = gen.entries.map((e) => (bigIds.has(e.id) && e.type === 'assistant' ? { ...e, content: 'x'.repeat(1024 * 1024) } : e));
  const header = { type: 'session', version: 1, id: 's_recent', createdAt: new Date(0).toISOString(), cwd: dir };
  await writeFile(path, `${[header, ...entries].map((e) => JSON.stringify(e)).join('\n')}\n`);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, readOnly: true });
  t.after(() => store.close());
  await store.whenIndexed();
  const tree = store.tree;
  const small = entries.find((e) => e.type === 'user');
  assert.ok(small !== undefined && big[0] !== undefined);
  tree.get(small.id);
  const reads = tree.coldReads;
  assert.ok(reads >= 1, 'an older entry is read from the file');
  tree.get(small.id);
  assert.equal(tree.coldReads, reads, 'read again at once: kept');
  // More than 8 MB of lines read since: the oldest are let go, and read from the file again when asked for.
  for (const b of big) tree.get(b.id);
  const afterBig = tree.coldReads;
  assert.equal(afterBig, reads + big.length);
  tree.get(big[0].id);
  assert.equal(tree.coldReads, afterBig + 1, 'the oldest megabyte line was let go');
  // Read again, then more than 1,024 small entries read since: it is let go by their number alone.
  tree.get(small.id);
  const before = tree.coldReads;
  tree.get(small.id);
  assert.equal(tree.coldReads, before, 'kept again');
  const others = entries.slice(100, 1_300).filter((e) => e.type !== 'capsule' && e.type !== 'system_update' && !bigIds.has(e.id));
  assert.ok(others.length > 1_024);
  for (const e of others) tree.get(e.id);
  const afterMany = tree.coldReads;
  tree.get(small.id);
  assert.equal(tree.coldReads, afterMany + 1, 'the entry read first was let go');
});

test('the index sizes itself from the tail: the estimate is close for an even session, bounded for a skewed one, and only a hint', async (t) => {
  const dir = await tempDir(t, 'capsule-cold-estimate-');
  const path = join(dir, 's.jsonl');
  await writeLongSession(path, 20_000, dir);
  const tail = await readTail(path, { maxLineBytes: 1 << 20 });
  assert.ok(tail !== undefined);
  const before = (await readFile(path, 'utf8')).slice(0, tail.start).split('\n').length - 1;
  const expected = linesExpectedBefore(tail);
  assert.ok(expected >= before * 0.8 && expected <= before * 2, `${String(expected)} expected for ${String(before)} lines`);
  // A tail of short lines after long ones cannot make the estimate exceed what the bytes allow.
  assert.ok(linesExpectedBefore({ ...tail, size: tail.start + 10, lines: tail.lines.slice(0, 1) }) <= Math.ceil(tail.start / 80));
  // Whatever it expects (far too few or far too many), the compact part links the same tree.
  const full = await loadSessionFile(path);
  for (const coldLines of [1, expected, before * 8]) {
    const load = await indexRest(path, tail, 1 << 20, true, coldLines);
    assert.equal(load.tree.size, full.tree.size);
    assert.equal(load.tree.leafId, full.tree.leafId);
    assert.deepEqual(
      load.tree.branch().map((e) => e.id),
      full.tree.branch().map((e) => e.id),
    );
  }
});
