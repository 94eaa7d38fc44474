// The compaction bookkeeping (ledger, fallback capsule, retention, evidence archive) produces byte-identical output to the recorded golden files, and the span-only ledger equals the whole-branch ledger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCompaction } from '../../../src/engine/compaction/compactor.js';
import { buildLedger, ledgerFromDetails } from '../../../src/engine/compaction/ledger.js';
import { makePlan, type CompactionPlan } from '../../../src/engine/compaction/plan.js';
import type { CompactionLevel } from '../../../src/engine/compaction/cut.js';
import type { CapsuleEntry, Entry } from '../../../src/engine/transcript/schema.js';
import { FileEvidenceArchive } from '../../../src/node/evidenceArchive.js';
import { harness } from './harness.js';
import { goldenSession, moreTurns } from './goldenSession.js';

const GOLDEN = resolve(__dirname, '../../fixtures/compaction');
/** Set to rewrite the golden files from the current code (only when the output is meant to change). */
const UPDATE = process.env['CAPSULE_UPDATE_GOLDEN'] === '1';

type H = ReturnType<typeof harness>;

function planFor(h: H, level: CompactionLevel, turnId?: string): CompactionPlan {
  const m = h.barrier.measure();
  return makePlan({
    operationId: h.ids.next('op_'),
    trigger: 'user',
    mandatory: false,
    roiExempt: true,
    branch: m.branch,
    leafAtPlan: m.leaf,
    level,
    tokensOf: (e) => h.cache.tokensOf(e),
    tokensBefore: m.tokens,
    tokensSource: m.source,
    limits: h.barrier.limits(),
    keepRecentTokens: h.resolved.settings.keepRecentTokens,
    ...(turnId === undefined ? {} : { turnId }),
  });
}

async function golden(name: string, actual: Buffer | string): Promise<void> {
  const file = join(GOLDEN, name);
  const bytes = typeof actual === 'string' ? Buffer.from(actual, 'utf8') : actual;
  if (UPDATE) {
    await mkdir(GOLDEN, { recursive: true });
    await writeFile(file, bytes);
    return;
  }
  const expected = await readFile(file);
  // Compared as bytes; on a mismatch the text diff is what a reader needs.
  if (!expected.equals(bytes)) assert.equal(bytes.toString('utf8'), expected.toString('utf8'), `${name} differs from the golden file`);
}

/** Runs one fallback compaction (no model) and checks the archive file, the capsule text and its details against the golden files. */
async function compactAndCompare(h: H, dir: string, label: string, level: CompactionLevel, turnId?: string): Promise<CapsuleEntry> {
  const plan = planFor(h, level, turnId);
  const outcome = await runCompaction({ ...h.deps, archive: new FileEvidenceArchive(dir) }, plan, new AbortController().signal);
  assert.equal(outcome.outcome, 'completed', JSON.stringify(outcome));
  if (outcome.outcome !== 'completed') throw new Error('unreachable');
  await golden(`${label}.archive.json`, await readFile(join(dir, `${plan.operationId}.json`)));
  await golden(`${label}.capsule.md`, outcome.capsule.summary);
  await golden(`${label}.details.json`, `${JSON.stringify(outcome.capsule.details, null, 2)}\n`);
  return outcome.capsule;
}

test('first, later and level-2 fallback compactions write the same archive bytes, capsule text and details as the golden files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-golden-'));
  try {
    const h = harness(goldenSession(42), { contextWindow: 24_000 });
    await compactAndCompare(h, dir, 'first', 0);
    for (const e of moreTurns(h.store.entries(), 43, 30)) await h.store.append(e);
    await compactAndCompare(h, dir, 'later', 0);
    for (const e of moreTurns(h.store.entries(), 73, 12)) await h.store.append(e);
    await compactAndCompare(
      h,
      dir,
      'level2',
      2,
      h.store
        .entries()
        .filter((e) => e.type === 'user')
        .at(-1)?.turnId,
    );
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
});

test('the ledger a later capsule builds from its span and the previous ledger equals the ledger of the whole branch', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-golden-'));
  try {
    const h = harness(goldenSession(42), { contextWindow: 24_000 });
    const archive = new FileEvidenceArchive(dir);
    const capsules: CapsuleEntry[] = [];
    for (let round = 0; round < 3; round++) {
      if (round > 0) for (const e of moreTurns(h.store.entries(), 43 + 20 * round, 20)) await h.store.append(e);
      const plan = planFor(h, 0);
      const o = await runCompaction({ ...h.deps, archive }, plan, new AbortController().signal);
      assert.equal(o.outcome, 'completed', JSON.stringify(o));
      if (o.outcome === 'completed') capsules.push(o.capsule);
    }
    assert.equal(capsules.length, 3);
    for (const capsule of capsules) {
      // Everything on the branch up to the capsule, capsules and checkpoints included (they carry no tool calls).
      const branch: Entry[] = [];
      for (
        let e: Entry | undefined = h.store.tree.get(capsule.parentId ?? '');
        e !== undefined;
        e = e.parentId === null ? undefined : h.store.tree.get(e.parentId)
      )
        branch.unshift(e);
      const whole = buildLedger(
        branch.filter((e) => e.type !== 'capsule'),
        undefined,
        { root: h.store.header.cwd },
      );
      assert.deepEqual(ledgerFromDetails(capsule.details), whole);
    }
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
});
