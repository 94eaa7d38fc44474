// Tail-first loading equals the full load (a bad entry before the tail aside, found when read): random sessions with compactions, branches, bad lines, duplicates and torn tails, read from the end first and then indexed, give the full load's tree, leaf, problems and model input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { ColdReadError } from '../../../src/engine/transcript/coldPart.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { loadSessionFile } from '../../../src/node/sessionLoad.js';
import { indexRest, readTail } from '../../../src/node/tailRead.js';
import { tempDir } from './storeHelpers.js';
import { ending, op, sessionText, shape } from './tailSessions.js';

test('read from the end first, then indexed: the same load as front to back, and the tail alone gives the same model input', async (t) => {
  const dir = await tempDir(t, 'capsule-tail-');
  let fast = 0;
  let checked = 0;
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(op, { minLength: 0, maxLength: 150 }),
      ending,
      fc.constantFrom(200, 4_000, 30_000, 10_000_000),
      fc.constantFrom(400, 64 * 1024 * 1024),
      async (ops, end, maxTailBytes, maxLineBytes) => {
        const path = join(dir, `s${runs++}.jsonl`);
        const text = Buffer.from(sessionText(ops, end));
        await writeFile(path, text);
        const full = await loadSessionFile(path, { maxLineBytes });
        const tail = await readTail(path, { maxLineBytes, maxTailBytes });
        if (tail === undefined) return;
        fast++;
        const firstTailLine = text.subarray(0, tail.start).filter((b) => b === 0x0a).length + 1;
        const rest = await indexRest(path, tail, maxLineBytes, true);
        assert.deepEqual(shape(await indexRest(path, tail, maxLineBytes)), shape(full), 'without the compact history, exactly the full load');
        // A line before the tail whose id, parent and type read fine but whose entry is invalid is kept by its record
        // and found when it is read (docs/loading.md): reading it gives one clear line instead of the load's problem.
        const lazyBad = full.problems.find((p) => p.kind === 'invalid_entry' && p.line !== undefined && p.line < firstTailLine);
        if (lazyBad === undefined) assert.deepEqual(shape(rest), shape(full));
        else
          assert.throws(
            () => rest.tree.entries(),
            (err: unknown) => err instanceof ColdReadError && err.message.startsWith(`Session line ${String(lazyBad.line)} cannot be read:`),
          );
        rest.coldFile?.close();
        assert.ok(tail.size - tail.start <= maxTailBytes, 'the tail stays within its budget');
        // Damage before the tail (a skipped line orphaning the entries after it, the first copy of a duplicated id) is
        // the one thing the tail cannot see: the store shows the indexed state once it is known (docs/loading.md).
        if (full.problems.some((p) => p.kind === 'duplicate_id' || (p.line !== undefined && p.line < firstTailLine))) return;
        checked++;
        assert.equal(tail.tree.leafId, full.tree.leafId);
        assert.deepEqual(buildModelInput(tail.tree.branch(), 'D'), buildModelInput(full.tree.branch(), 'D'));
      },
    ),
    { numRuns: 300, endOnFailure: true },
  );
  assert.ok(fast > 100 && checked > 50, `the fast path was taken in ${fast} of ${runs} runs, its model input compared in ${checked}`);
});
