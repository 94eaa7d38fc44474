// The index thread: a large part before the tail indexed on a second thread gives exactly what indexing it here gives, and when the thread cannot run, it is indexed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import type { SessionLoad } from '../../../src/node/sessionLoad.js';
import { indexThreadHooks } from '../../../src/node/indexThread.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { indexRest, readTail } from '../../../src/node/tailRead.js';
import { threadScripts } from '../../../src/node/threadStart.js';
import { tempDir } from './storeHelpers.js';
import { ending, op, sessionText, type Op } from './tailSessions.js';

/** A compaction (a new epoch base, then its capsule) and a turn after it: the tail ends there. */
const COMPACTED: readonly Op[] = [{ k: 'base' }, { k: 'capsule', keep: 2, pins: [] }, { k: 'user' }, { k: 'answer' }];

/** Everything a load tells without reading the compact part back, plus what reading it all gives (or the error it stops at). */
function seen(l: SessionLoad): unknown {
  const links: unknown[] = [];
  l.tree.eachLink(0, (...link) => links.push(link));
  let entries: unknown;
  try {
    entries = l.tree.entries();
  } catch (err) {
    entries = err instanceof Error ? err.message : String(err);
  }
  return { header: l.header, links, leaf: l.tree.leafId, problems: l.problems, treeProblems: l.tree.problems, bytes: l.bytes, goodBytes: l.goodBytes, entries };
}

async function indexed(path: string, onThread: boolean, maxLineBytes: number): Promise<{ readonly load: SessionLoad; readonly threaded: boolean } | undefined> {
  const tail = await readTail(path, { maxLineBytes, maxTailBytes: 30_000 });
  if (tail === undefined) return undefined;
  const saved = indexThreadHooks.minBytes;
  const runs = indexThreadHooks.runs;
  indexThreadHooks.minBytes = onThread ? 0 : Number.POSITIVE_INFINITY;
  try {
    const load = await indexRest(path, tail, maxLineBytes, true);
    load.coldFile?.close();
    return { load, threaded: indexThreadHooks.runs > runs };
  } finally {
    indexThreadHooks.minBytes = saved;
  }
}

test('indexed on the thread or here: the same links, leaf, problems and entries, bad lines and torn tails included', async (t) => {
  const dir = await tempDir(t, 'capsule-index-thread-');
  let runs = 0;
  let threaded = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 150 }), ending, fc.constantFrom(400, 64 * 1024 * 1024), async (ops, end, maxLineBytes) => {
      const path = join(dir, `s${runs++}.jsonl`);
      // Ending in a compaction, so the tail can mostly be read first whatever came before it.
      await writeFile(path, sessionText([...ops, ...COMPACTED], end));
      const there = await indexed(path, true, maxLineBytes);
      const here = await indexed(path, false, maxLineBytes);
      assert.equal(there === undefined, here === undefined);
      if (there === undefined || here === undefined) return;
      assert.equal(here.threaded, false);
      if (there.threaded) threaded++;
      assert.deepEqual(seen(there.load), seen(here.load));
    }),
    { numRuns: 25, endOnFailure: true },
  );
  assert.ok(threaded >= 15, `the thread indexed ${threaded} of ${runs} sessions`);
});

test('lines across chunk boundaries and lines past the limit read the same on the thread', async (t) => {
  const dir = await tempDir(t, 'capsule-index-thread-big-');
  const path = join(dir, 's.jsonl');
  // About 1.2 MB: lines of some 7 KB cross each 1 MB chunk boundary; a compaction near the end lets the tail be read first.
  const ops: Op[] = [];
  for (let i = 0; i < 160; i++) ops.push({ k: 'user' }, { k: 'calls' }, { k: 'big' });
  // Short lines where the tail starts: a line over the limit there would leave only the load from the front.
  ops.push({ k: 'user' }, { k: 'answer' }, { k: 'user' }, { k: 'answer' }, ...COMPACTED);
  await writeFile(path, sessionText(ops, 'none'));
  for (const maxLineBytes of [64 * 1024 * 1024, 5_000]) {
    const there = await indexed(path, true, maxLineBytes);
    const here = await indexed(path, false, maxLineBytes);
    assert.ok(there?.threaded === true, 'the thread ran');
    assert.deepEqual(seen(there.load), seen(here?.load as SessionLoad));
    assert.equal(
      (here?.load.problems ?? []).some((p) => p.kind === 'oversized_line'),
      maxLineBytes === 5_000,
    );
  }
});

test('when the thread cannot start, the part before the tail is indexed here, with the same result', async (t) => {
  const dir = await tempDir(t, 'capsule-index-thread-none-');
  const path = join(dir, 's.jsonl');
  const ops: Op[] = [];
  for (let i = 0; i < 30; i++) ops.push({ k: 'user' }, { k: 'calls' }, { k: 'result' });
  ops.push(...COMPACTED);
  await writeFile(path, sessionText(ops, 'none'));
  const here = await indexed(path, false, 64 * 1024 * 1024);
  threadScripts.set('indexWorker', join(dir, 'missing-index-worker.js'));
  try {
    const fallback = await indexed(path, true, 64 * 1024 * 1024);
    assert.equal(fallback?.threaded, false, 'no thread indexed it');
    assert.deepEqual(seen(fallback.load), seen(here?.load as SessionLoad));
  } finally {
    threadScripts.delete('indexWorker');
  }
});

test('a store opened with indexThread: false (the CLI turn) indexes a large part here, with the same tree as on the thread', async (t) => {
  const dir = await tempDir(t, 'capsule-index-thread-store-');
  const path = join(dir, 's.jsonl');
  const ops: Op[] = [];
  for (let i = 0; i < 60; i++) ops.push({ k: 'user' }, { k: 'calls' }, { k: 'result' });
  ops.push(...COMPACTED);
  await writeFile(path, sessionText(ops, 'none'));
  const saved = indexThreadHooks.minBytes;
  indexThreadHooks.minBytes = 0;
  try {
    const open = async (indexThread: boolean | undefined): Promise<{ readonly entries: unknown; readonly threaded: boolean }> => {
      const runs = indexThreadHooks.runs;
      const store = await JsonlSessionStore.open(path, {
        tailFirst: true,
        readOnly: true,
        maxTailBytes: 30_000,
        ...(indexThread === undefined ? {} : { indexThread }),
      });
      try {
        await store.whenIndexed();
        return { entries: store.tree.entries(), threaded: indexThreadHooks.runs > runs };
      } finally {
        await store.close();
      }
    };
    const threaded = await open(undefined);
    const here = await open(false);
    assert.equal(threaded.threaded, true, 'by default the thread indexes it');
    assert.equal(here.threaded, false, 'indexThread: false indexes it here');
    assert.deepEqual(here.entries, threaded.entries);
  } finally {
    indexThreadHooks.minBytes = saved;
  }
});
