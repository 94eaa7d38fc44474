// The streamed JSON writer produces exactly JSON.stringify's bytes, also across chunk boundaries and for awkward values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { writeJsonStreamed } from '../../../src/node/jsonStream.js';

async function written(value: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-json-'));
  try {
    const file = join(dir, 'x.json');
    const h = await open(file, 'wx');
    try {
      await writeJsonStreamed(h, value);
    } finally {
      await h.close();
    }
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}

test('equals JSON.stringify for random objects with top-level arrays', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.array(fc.oneof(fc.jsonValue(), fc.constant(undefined))), fc.constant(undefined))),
      async (obj) => {
        assert.equal(await written(obj), JSON.stringify(obj));
      },
    ),
    { numRuns: 150 },
  );
});

test('equals JSON.stringify for a multi-megabyte archive-like object (several chunks, non-ASCII text)', async () => {
  const excluded = Array.from({ length: 3000 }, (_, i) => ({ role: 'tool', toolCallId: `c${i}`, content: `résultat ${i} — 🎉 `.repeat(60) }));
  const value = { format: 'capsule-evidence', version: 1, excluded, summarizerInput: [], truncatedItems: [1, 2] };
  assert.equal(await written(value), JSON.stringify(value));
});
