// The compaction apply step (docs/behaviour.md#barrier, #cut, #capsule, #roi, #evidence, #rewind): guarded append, fallback, gates, evidence, flight records, every await point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreflightBarrier } from '../../../src/engine/compaction/barrier.js';
import { type CompactionDeps, runCompaction } from '../../../src/engine/compaction/compactor.js';
import { isNothingToCompact, type CompactionLevel } from '../../../src/engine/compaction/cut.js';
import { ledgerFromDetails } from '../../../src/engine/compaction/ledger.js';
import { makePlan, type CompactionPlan } from '../../../src/engine/compaction/plan.js';
import { compactionInstruction, summaryWordsFor } from '../../../src/engine/compaction/summaryPrompt.js';

/** The instruction as sent with the harness's 2,000-token output budget: the size it asks for follows max_tokens. */
const COMPACTION_INSTRUCTION = compactionInstruction(undefined, summaryWordsFor(2_000));
import { estimateRequest } from '../../../src/engine/tokens/estimate.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry, Trigger } from '../../../src/engine/transcript/schema.js';
import { FileEvidenceArchive } from '../../../src/node/evidenceArchive.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { GOOD_SUMMARY, harness, session, TOOLS, type HarnessOptions } from './harness.js';
import { httpError, ScriptedModel } from './memoryStore.js';

type H = ReturnType<typeof harness>;

function planFor(h: H, trigger: Trigger, opts: { level?: CompactionLevel; roiExempt?: boolean; mandatory?: boolean; turnId?: string } = {}): CompactionPlan {
  const m = h.barrier.measure();
  return makePlan({
    operationId: h.ids.next('op_'),
    trigger,
    mandatory: opts.mandatory ?? trigger === 'hard_limit',
    roiExempt: opts.roiExempt ?? true,
    branch: m.branch,
    leafAtPlan: m.leaf,
    level: opts.level ?? 0,
    tokensOf: (e) => h.cache.tokensOf(e),
    tokensBefore: m.tokens,
    tokensSource: m.source,
    limits: h.barrier.limits(),
    keepRecentTokens: h.resolved.settings.keepRecentTokens,
    ...(opts.turnId === undefined ? {} : { turnId: opts.turnId }),
  });
}

const run = (h: H, plan: CompactionPlan, signal = new AbortController().signal, deps: Partial<CompactionDeps> = {}) =>
  runCompaction({ ...h.deps, ...deps }, plan, signal);

function setup(entries: readonly Entry[] = session(12, 100), opts: HarnessOptions = {}): H {
  return harness(entries, { model: new ScriptedModel([{ text: GOOD_SUMMARY, usage: { promptTokens: 9000, completionTokens: 300 } }]), ...opts });
}

test('a completed compaction appends the checkpoint, then the capsule; the rebuilt input is the capsule pair plus the kept tail, under the hard limit', async () => {
  const h = setup();
  const leaf = h.store.leafId();
  const before = buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem);
  const plan = planFor(h, 'user');
  assert.ok(!isNothingToCompact(plan.cut));
  const o = await run(h, plan);
  assert.equal(o.outcome, 'completed', JSON.stringify(o));
  if (o.outcome !== 'completed') return;

  const all = h.store.entries();
  const [ck, capsule] = all.slice(-2);
  assert.equal(ck?.type, 'checkpoint');
  assert.equal(capsule?.type, 'capsule');
  if (ck?.type !== 'checkpoint' || capsule?.type !== 'capsule') return;
  assert.equal(ck.kind, 'auto');
  assert.match(ck.checkpointId, /^ck_/);
  assert.equal(ck.parentId, leaf);
  assert.equal(capsule.parentId, ck.id);
  assert.equal(capsule.checkpointId, ck.checkpointId);
  assert.equal(o.checkpointId, ck.checkpointId);
  assert.equal(capsule.quality, 'full');

  const after = buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem);
  const kept = plan.cut.kept.filter((e) => e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result').map((e) => e.id);
  assert.equal(after.messages[0]?.content, 'What did we do so far?');
  assert.equal(after.messages[1]?.content, capsule.summary);
  assert.deepEqual(after.entryIds, kept);
  assert.ok(after.messages.length < before.messages.length);
  // The figure recorded is the exact measure of the continuation, and it fits.
  assert.equal(o.tokensAfter, h.barrier.measure().tokens);
  assert.equal(capsule.tokensAfter, o.tokensAfter);
  assert.ok(o.tokensAfter <= h.barrier.limits().hardLimit);
  assert.ok(o.tokensAfter < o.tokensBefore);

  const ledger = ledgerFromDetails(capsule.details);
  assert.ok(ledger?.filesRead.includes('src/mod1.ts'));
  assert.equal(ledger?.originalTask, 'Please fix bug #1 in src/mod1.ts');
  assert.equal(capsule.details.operationId, plan.operationId);
  assert.deepEqual(capsule.details.summaryUsage, { promptTokens: 9000, completionTokens: 300 });
});

test('evidence is archived before the capsule, and the flight record carries figures but never capsule text', async () => {
  const h = setup();
  const plan = planFor(h, 'auto_threshold', { roiExempt: false });
  let capsuleSeenAtSave = true;
  h.archive.afterSave = () => {
    capsuleSeenAtSave = h.store.ofType('capsule').length > 0;
  };
  const o = await run(h, plan);
  assert.equal(o.outcome, 'completed');
  assert.equal(capsuleSeenAtSave, false);
  const snap = h.archive.saved.get(plan.operationId);
  assert.ok(snap);
  if (isNothingToCompact(plan.cut) || !snap) return;
  const excludedIds = snap.excluded.map((m) => m.entryId);
  const summarizedIds = plan.cut.summarize.filter((e) => e.type === 'user' || e.type === 'assistant' || e.type === 'tool_result').map((e) => e.id);
  // Then the exact originals of the older retained results the model now sees bounded.
  assert.deepEqual(excludedIds, [...summarizedIds, ...plan.cut.boundedResultIds]);
  assert.equal(snap.summarizerInput[snap.summarizerInput.length - 1]?.content, COMPACTION_INSTRUCTION);
  assert.equal(h.flights.length, 1);
  const f = h.flights[0];
  assert.equal(f?.outcome, 'completed');
  assert.equal(f?.checkpointId, o.checkpointId);
  assert.equal(f?.tokensBefore, plan.tokensBefore);
  assert.ok((f?.reclaimedTokens ?? 0) > 0);
  assert.ok(!JSON.stringify(h.flights).includes('Fix the failing modules'), 'no capsule text in flight records');
});

test('the summary request repeats the last request exactly (same system, tools, messages), with tool_choice none and the instruction last', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  // Well under the limit: a request that only just fits would need bounding once the instruction is added.
  const h = setup(session(8, 100), { model });
  const last = buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem);
  await run(h, planFor(h, 'user'));
  const req = model.requests[0];
  assert.ok(req);
  if (!req) return;
  const same = last.messages.filter((m, i) => JSON.stringify(m) === JSON.stringify(req.messages[i])).length;
  console.log(`prefix ${same}/${last.messages.length} messages identical`);
  assert.equal(same, last.messages.length);
  assert.equal(req.messages.length, last.messages.length + 1);
  assert.equal(req.messages[req.messages.length - 1]?.content, COMPACTION_INSTRUCTION);
  assert.equal(req.system, last.system);
  assert.deepEqual(req.tools, TOOLS);
  assert.equal(req.toolChoice, 'none');
  assert.equal(req.stream, false);
});

test('summarizer faults end in the deterministic fallback capsule, degraded but completed', async (t) => {
  const cases: { name: string; steps: ConstructorParameters<typeof ScriptedModel>[0]; reason: RegExp }[] = [
    { name: '500 four times', steps: [{ error: httpError(500) }], reason: /provider_error/ },
    { name: 'a hang', steps: [{ hang: true }], reason: /timeout/ },
    { name: 'an empty answer', steps: [{ text: '   ' }], reason: /empty/ },
    { name: 'a fatal 401', steps: [{ error: httpError(401, 'bad key') }], reason: /provider_error/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const model = new ScriptedModel(c.steps);
      const h = setup(undefined, { model });
      const o = await run(h, planFor(h, 'user'), undefined, { settings: { ...h.resolved.settings, timeoutMs: 150 } });
      assert.equal(o.outcome, 'completed');
      if (o.outcome !== 'completed') return;
      assert.equal(o.quality, 'degraded');
      assert.match(o.fallbackReason ?? '', c.reason);
      assert.equal(o.capsule.quality, 'degraded');
      assert.match(o.capsule.summary, /Degraded capsule/);
      assert.match(o.capsule.summary, /src\/mod1\.ts/);
      assert.equal(h.flights[0]?.quality, 'degraded');
      assert.match(h.flights[0]?.fallbackReason ?? '', c.reason);
    });
  }
});

test('429 then success gives a full capsule after two attempts', async () => {
  const model = new ScriptedModel([{ error: httpError(429) }, { text: GOOD_SUMMARY }]);
  const h = setup(undefined, { model });
  const o = await run(h, planFor(h, 'user'));
  assert.equal(o.outcome, 'completed');
  assert.equal(o.outcome === 'completed' && o.quality, 'full');
  assert.equal(o.attempts, 2);
});

test('a provider overflow on the summary request is retried once, bounded, and still gives a full capsule', async () => {
  const overflow = httpError(400, "This model's maximum context length is 16385 tokens", 'context_length_exceeded');
  const model = new ScriptedModel([{ error: overflow }, { text: GOOD_SUMMARY }]);
  const h = setup(undefined, { model });
  const o = await run(h, planFor(h, 'user'));
  assert.equal(o.outcome, 'completed');
  assert.equal(model.requests.length, 2);
  const [first, second] = model.requests.map((r) => estimateRequest({ system: r.system, messages: r.messages, entryIds: [] }, r.tools, h.cache, 0).total);
  assert.ok((second ?? 0) <= 0.75 * (first ?? 0), `bounded retry ${second} vs ${first}`);
  if (o.outcome === 'completed') {
    assert.equal(o.quality, 'full');
    assert.ok(o.capsule.details.summaryBounded);
  }
});

test('over the hard limit, the summary request itself is bounded by what the provider accepts (window − summary output) before it is sent', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = setup(session(16, 100), { model });
  const plan = planFor(h, 'hard_limit');
  assert.ok(plan.tokensBefore > plan.limits.hardLimit, `${plan.tokensBefore} > ${plan.limits.hardLimit}`);
  const o = await run(h, plan);
  assert.equal(o.outcome, 'completed');
  const r = model.requests[0];
  assert.ok(r);
  if (!r) return;
  const sent = estimateRequest({ system: r.system, messages: r.messages, entryIds: [] }, r.tools, h.cache, 0).total;
  const accepted = plan.limits.contextWindow - (r.maxOutputTokens ?? 0);
  assert.ok(sent <= accepted, `summary request ${sent} <= ${accepted}`);
  assert.ok(sent < plan.tokensBefore, 'never the oversized request itself');
  assert.equal(r.messages[r.messages.length - 1]?.content, COMPACTION_INSTRUCTION);
});

test('a soft trigger whose capsule misses the post-generation gate is skipped: nothing is appended and the input is unchanged', async () => {
  const h = setup();
  const entriesBefore = h.store.entries().length;
  const inputBefore = buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem);
  const plan = planFor(h, 'auto_threshold', { roiExempt: false });
  const o = await run(h, plan, undefined, { settings: { ...h.resolved.settings, minSavingsRatio: 0.99 } });
  assert.equal(o.outcome, 'skipped');
  if (o.outcome !== 'skipped') return;
  assert.match(o.reason, /goes out unchanged/);
  assert.ok(o.tokensAfter !== undefined && o.tokensAfter < plan.tokensBefore);
  assert.equal(h.store.entries().length, entriesBefore, 'no capsule and no checkpoint');
  assert.deepEqual(buildModelInput(h.barrier.measure().branch, h.deps.defaultSystem), inputBefore);
  assert.equal(h.flights[0]?.outcome, 'skipped');
  // The user trigger is exempt from the same gate.
  const exempt = await run(h, planFor(h, 'user'), undefined, { settings: { ...h.resolved.settings, minSavingsRatio: 0.99 } });
  assert.equal(exempt.outcome, 'completed');
});

test('nothing to compact on a tiny session: skipped, nothing appended, no model call', async () => {
  const model = new ScriptedModel([{ text: GOOD_SUMMARY }]);
  const h = setup(session(1, 3), { model });
  const n = h.store.entries().length;
  const o = await run(h, planFor(h, 'user'));
  assert.equal(o.outcome, 'skipped');
  assert.match(o.outcome === 'skipped' ? o.reason : '', /^nothing safe to compact/);
  assert.equal(h.store.entries().length, n);
  assert.equal(model.requests.length, 0);
});

test('a read-only session or a failing archive ends failed with nothing appended', async () => {
  const ro = setup();
  ro.store.readOnly = true;
  const a = await run(ro, planFor(ro, 'user'));
  assert.equal(a.outcome, 'failed');
  const h = setup();
  h.archive.fail = new Error('disk full');
  const n = h.store.entries().length;
  const b = await run(h, planFor(h, 'user'));
  assert.equal(b.outcome, 'failed');
  assert.match(b.outcome === 'failed' ? b.reason : '', /disk full/);
  assert.equal(h.store.entries().length, n);
  assert.equal(h.flights[0]?.outcome, 'failed');
});

/**
 * Runs one compaction with every port instrumented, calling `inject` after the Nth port call resolves.
 * Returns the outcome, the port call labels, and whether a capsule was appended.
 */
async function instrumented(n: number, inject: (h: H, ctrl: AbortController) => void, withModel: boolean) {
  const model = withModel ? new ScriptedModel([{ error: httpError(429) }, { text: GOOD_SUMMARY }]) : undefined;
  const h = harness(session(12, 100), model ? { model } : {});
  const ctrl = new AbortController();
  const labels: string[] = [];
  const hit = (label: string): void => {
    labels.push(label);
    if (labels.length === n) inject(h, ctrl);
  };
  h.store.afterAppend = (e) => hit(`append:${e.type}`);
  h.archive.afterSave = () => hit('archive.save');
  if (model) model.onCall = () => hit('model.chat');
  const sleep = h.clock.sleep.bind(h.clock);
  h.clock.sleep = async (ms: number) => {
    await sleep(ms);
    hit('clock.sleep');
  };
  const o = await runCompaction({ ...h.deps, recordFlight: () => hit('flight') }, planFor(h, 'user'), ctrl.signal);
  return { o, labels, capsules: h.store.ofType('capsule').length };
}

for (const withModel of [true, false]) {
  const mode = withModel ? 'with a summarizer' : 'with the fallback only';
  test(`an abort or a leaf change injected after every await point (${mode}) never appends a capsule before the commit`, async () => {
    const dry = await instrumented(0, () => undefined, withModel);
    assert.equal(dry.o.outcome, 'completed');
    const commit = dry.labels.indexOf('append:capsule') + 1;
    assert.ok(commit > 0, dry.labels.join(','));
    console.log(`${mode}: await points ${dry.labels.join(' → ')}`);
    const injections = {
      abort: (_h: H, ctrl: AbortController) => ctrl.abort(),
      leaf: (h: H) => {
        h.store.tree.add({ type: 'user', id: `foreign${h.store.entries().length}`, parentId: h.store.leafId(), timestamp: 'now', content: 'typed meanwhile' });
      },
    };
    for (const [kind, inject] of Object.entries(injections)) {
      for (let n = 1; n <= dry.labels.length; n++) {
        const r = await instrumented(n, inject, withModel);
        const at = `${kind} after ${dry.labels[n - 1]} (#${n})`;
        if (n < commit) {
          assert.equal(r.o.outcome, kind === 'abort' ? 'cancelled' : 'stale', at);
          assert.equal(r.capsules, 0, at);
        } else {
          // The append of the capsule is the commit point: what happens after it cannot undo it.
          assert.equal(r.o.outcome, 'completed', at);
          assert.equal(r.capsules, 1, at);
        }
      }
    }
  });
}

test('a repeated compaction starts from the previous firstKeptEntryId and rolls the previous ledger in', async () => {
  const h = setup(session(12, 100));
  const first = await run(h, planFor(h, 'user'));
  assert.equal(first.outcome, 'completed');
  if (first.outcome !== 'completed') return;
  // More work after the first capsule.
  let parent = h.store.leafId();
  for (let i = 0; i < 6; i++) {
    const u: Entry = { type: 'user', id: `late_u${i}`, parentId: parent, timestamp: 'now', content: `Now look at docs/page${i}.md\n${'text '.repeat(400)}` };
    const a: Entry = {
      type: 'assistant',
      id: `late_a${i}`,
      parentId: u.id,
      timestamp: 'now',
      content: `Done with page ${i}. ${'note '.repeat(300)}`,
      toolCalls: [],
    };
    await h.store.append(u);
    await h.store.append(a);
    parent = a.id;
  }
  const plan = planFor(h, 'user');
  assert.ok(!isNothingToCompact(plan.cut));
  if (isNothingToCompact(plan.cut)) return;
  assert.equal(plan.cut.previousCapsule?.id, first.capsule.id);
  assert.equal(plan.cut.summarize[0]?.id, first.capsule.firstKeptEntryId, 'starts at the previously retained tail');
  const second = await run(h, plan);
  assert.equal(second.outcome, 'completed');
  if (second.outcome !== 'completed') return;
  const ledger = ledgerFromDetails(second.capsule.details);
  assert.equal(ledger?.originalTask, 'Please fix bug #1 in src/mod1.ts');
  assert.ok(ledger?.filesRead.includes('src/mod1.ts'), 'files from the first span survive');
  const snap = h.archive.saved.get(plan.operationId);
  assert.equal(snap?.excluded[1]?.content, first.capsule.summary, 'the previous capsule is part of what leaves the input');
});

test('on the real JSONL store: the capsule survives a reopen and the reloaded session rebuilds exactly the same model input', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-compactor-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const path = join(dir, 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_real', cwd: '/w' } });
  for (const e of session(16, 100)) await store.append(e);
  const h = setup(store.entries());
  const archive = new FileEvidenceArchive(join(dir, 'archive'));
  const barrier = new PreflightBarrier({
    ...h.deps,
    store,
    archive,
    resolved: h.resolved,
    modelInfo: { provider: 'fake', model: 'gpt-4o', contextWindow: h.contextWindow, maxOutputTokens: h.maxOutputTokens },
    triggers: h.triggers,
  });
  const r = await barrier.preflight({ signal: new AbortController().signal, turnId: 't1' });
  assert.equal(r.outcomes[0]?.outcome, 'completed');
  assert.equal(r.mayProceed, true);
  const live = buildModelInput(store.tree.branch(), h.deps.defaultSystem);
  await store.close();
  const load = await loadSessionFile(path);
  assert.deepEqual(load.problems, []);
  const reloaded = buildModelInput(load.tree.branch(), h.deps.defaultSystem);
  assert.deepEqual(reloaded, live);
  assert.equal(reloaded.capsule?.trigger, 'hard_limit');
  const evidence = await archive.load(r.outcomes[0]?.operationId ?? '');
  assert.ok(evidence && evidence.excluded.length > 0);
});
