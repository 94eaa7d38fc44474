// A store opened tail-first: the tail at once, then the whole file, equal to a plain open; appends wait for the index; torn tails, other writers, shrunk files and rewinds past the tail.
import assert from 'node:assert/strict';
import { appendFile, copyFile, readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { ColdReadError } from '../../../src/engine/transcript/coldPart.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { JsonlSessionStore, loadSessionFile, tailFirstHooks } from '../../../src/node/jsonlStore.js';
import { rewindSession } from '../../../src/node/sessionRewind.js';
import { exportFromTree } from '../../../src/node/capsuleFiles.js';
import { nodeClock, nodeIds } from '../../../src/node/nodeClock.js';
import { assistant, capsule, headerLine, line, tempDir, user } from './storeHelpers.js';
import { ending, op, sessionText, shape } from './tailSessions.js';

/** A long chat compacted near its end: u0…u{n-1}, a capsule keeping the last two asks, a new base, one more ask. */
function compactedSession(n: number): { text: string; entries: Entry[] } {
  const entries: Entry[] = [];
  let parent: string | null = null;
  const add = (e: Entry): void => {
    entries.push(e);
    parent = e.id;
  };
  for (let i = 0; i < n; i++) {
    add(user(`u${i}`, parent, `ask ${i} ${'context '.repeat(40)}`));
    add(assistant(`a${i}`, parent));
  }
  add(capsule('k1', parent, `u${n - 2}`));
  add({ type: 'system_update', id: 'b1', parentId: parent, timestamp: '2025-01-01T00:00:00.000Z', mode: 'base', content: 'the base after k1' });
  add(user('u_last', parent));
  return { text: `${[headerLine(), ...entries.map(line)].join('\n')}\n`, entries };
}

/** Holds indexing until `release()` (the store's test seam). */
function holdIndexing(t: { after(fn: () => void): void }): { release(): void; started: Promise<void> } {
  let release = (): void => undefined;
  let started = (): void => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const began = new Promise<void>((r) => (started = r));
  tailFirstHooks.beforeIndex = async () => {
    started();
    await gate;
  };
  t.after(() => {
    tailFirstHooks.beforeIndex = undefined;
  });
  return { release: () => release(), started: began };
}

test('a tail-first store shows the tail at once, appends wait for the index, and ends equal to a plain open', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  const { text } = compactedSession(400);
  await writeFile(path, text);
  const gate = holdIndexing(t);
  const store = await JsonlSessionStore.open(path, { tailFirst: true });
  assert.equal(store.indexed, false);
  assert.ok(store.tree.partial);
  assert.ok(store.entries().length < 20, `only the tail is loaded (${store.entries().length} entries)`);
  assert.equal(store.leafId(), 'u_last');
  const full = await loadSessionFile(path);
  assert.deepEqual(buildModelInput(store.tree.branch(), 'D'), buildModelInput(full.tree.branch(), 'D'), 'the meter measures the same input');

  // An append made now waits for the whole tree (its links are checked against it): it lands after the index, never before.
  const order: string[] = [];
  await gate.started;
  const indexed = store.whenIndexed().then(() => order.push('indexed'));
  const write = store.append(user('u_next', 'u_last')).then(() => order.push('appended'));
  gate.release();
  await Promise.all([indexed, write]);
  assert.deepEqual(order, ['indexed', 'appended']);
  assert.equal(store.indexed, true);
  assert.equal(store.tree.partial, false);
  assert.deepEqual(store.entries().slice(0, -1), full.tree.entries());
  assert.deepEqual(store.problems, []);
  await store.close();
  const after = await loadSessionFile(path);
  assert.equal(after.tree.leafId, 'u_next');
  assert.equal((await readFile(path, 'utf8')).startsWith(text), true, 'the file was only appended to');
});

test('random sessions: tail-first and plain opens agree on tree, leaf, problems, the torn tail moved aside and the next append', async (t) => {
  const dir = await tempDir(t);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 80 }), ending, fc.constantFrom(300, 5_000, 10_000_000), async (ops, end, maxTailBytes) => {
      const a = join(dir, `a${n}.jsonl`);
      const b = join(dir, `b${n++}.jsonl`);
      await writeFile(a, sessionText(ops, end));
      await copyFile(a, b);
      const plain = await JsonlSessionStore.open(a);
      const fast = await JsonlSessionStore.open(b, { tailFirst: true, maxTailBytes });
      await fast.whenIndexed();
      if (plain.problems.some((p) => p.kind === 'invalid_entry')) {
        // A bad entry before the tail is kept by its id and parent and found when read (docs/loading.md): reading the
        // entries gives that one clear line, or (a bad line inside the tail, judged at once) the plain open's entries.
        try {
          assert.deepEqual(fast.entries(), plain.entries());
        } catch (err) {
          assert.ok(err instanceof ColdReadError, String(err));
        }
        await plain.close();
        await fast.close();
        return;
      }
      assert.deepEqual(fast.entries(), plain.entries());
      assert.equal(fast.leafId(), plain.leafId());
      assert.deepEqual(fast.problems, plain.problems);
      assert.equal(fast.readOnly, plain.readOnly);
      assert.equal(fast.recoveredTail?.bytes, plain.recoveredTail?.bytes);
      if (!plain.readOnly) {
        const next = user('u_next', plain.leafId());
        await plain.append(next);
        await fast.append(next);
      }
      await plain.close();
      await fast.close();
      assert.equal(await readFile(b, 'utf8'), await readFile(a, 'utf8'));
    }),
    { numRuns: 60, endOnFailure: true },
  );
});

test('lines another window appends after the tail was read are not part of this load (as with a plain open at that moment)', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  const { text } = compactedSession(50);
  await writeFile(path, text);
  const gate = holdIndexing(t);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, readOnly: true });
  await appendFile(path, `${line(user('u_other', 'u_last'))}\n`);
  gate.release();
  await store.whenIndexed();
  await writeFile(join(dir, 'then.jsonl'), text);
  const then = await loadSessionFile(join(dir, 'then.jsonl'));
  assert.deepEqual(shape({ ...then, tree: store.tree, problems: store.problems }), shape(then));
  assert.equal(store.leafId(), 'u_last');
  await store.close();
});

test('a file that got shorter before it was indexed is loaded front to back as it is now', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  const { text } = compactedSession(50);
  await writeFile(path, text);
  const gate = holdIndexing(t);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, readOnly: true });
  await gate.started;
  await truncate(path, 2_000);
  gate.release();
  await store.whenIndexed();
  const now = await loadSessionFile(path);
  assert.deepEqual(store.entries(), now.tree.entries());
  assert.deepEqual(store.problems, now.problems);
  await store.close();
});

test('a tail longer than the budget, or a bad line inside the tail, opens front to back at once', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  const { text } = compactedSession(50);
  await writeFile(path, text);
  const small = await JsonlSessionStore.open(path, { tailFirst: true, maxTailBytes: 100 });
  assert.equal(small.indexed, true);
  assert.equal(small.tree.partial, false);
  await small.close();
  const lines = text.split('\n');
  lines.splice(lines.length - 3, 0, '{"broken json');
  await writeFile(path, lines.join('\n'));
  const bad = await JsonlSessionStore.open(path, { tailFirst: true });
  assert.equal(bad.indexed, true);
  assert.equal(
    bad.problems.some((p) => p.kind === 'invalid_json'),
    true,
  );
  await bad.close();
});

test('a rewind to an entry before the tail, and a switch back to the other branch, reopen tail-first as a plain open does', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  await writeFile(path, compactedSession(200).text);
  const store = await JsonlSessionStore.open(path, { tailFirst: true });
  assert.equal(store.tree.has('u3'), false, 'u3 lies before the tail');
  // The rewind resolves its point in the whole tree: it waits for the index.
  const r = await rewindSession({ store, snapshots: undefined, ids: nodeIds, clock: nodeClock }, 'u3', { mode: 'conversation' });
  assert.ok(r.ok);
  const target = r.point.targetId;
  assert.ok(target !== null && !['u_last', 'k1'].includes(target));
  await store.close();
  for (const expectLeaf of [target, 'u_last']) {
    if (expectLeaf === 'u_last') {
      const s = await JsonlSessionStore.open(path);
      await s.append({ type: 'leaf', id: 'l_back', parentId: s.leafId(), timestamp: '2025-01-01T00:00:00.000Z', targetId: 'u_last', reason: 'switch' });
      await s.close();
    }
    const gate = holdIndexing(t);
    const again = await JsonlSessionStore.open(path, { tailFirst: true });
    const full = await loadSessionFile(path);
    assert.equal(again.leafId(), expectLeaf);
    assert.deepEqual(buildModelInput(again.tree.branch(), 'D'), buildModelInput(full.tree.branch(), 'D'));
    gate.release();
    await again.whenIndexed();
    assert.deepEqual(again.entries(), full.tree.entries());
    await again.close();
  }
});

test('an export asked for before the chat is indexed is refused with a clear message, and goes ahead once it is', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's_test.jsonl');
  await writeFile(path, compactedSession(60).text);
  const gate = holdIndexing(t);
  const store = await JsonlSessionStore.open(path, { tailFirst: true, readOnly: true });
  const out = join(dir, 'k1.capsule.md');
  await assert.rejects(exportFromTree(store.tree, store.header, { out, checkpointId: 'ck_k1' }), /still being read from disk/);
  gate.release();
  await store.whenIndexed();
  // Indexed, the export goes on to the capsule itself (this test's capsule lacks the sections a file needs).
  await assert.rejects(exportFromTree(store.tree, store.header, { out, checkpointId: 'ck_k1' }), /missing sections/);
  await store.close();
});
