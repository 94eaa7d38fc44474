// Summaries that are what they claim: a cut-off answer or one without any section is retried once tighter; missing sections are filled (partial).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCompaction } from '../../../src/engine/compaction/compactor.js';
import { makePlan } from '../../../src/engine/compaction/plan.js';
import { SUMMARY_MAX_OUTPUT_TOKENS, withoutReasoning } from '../../../src/engine/compaction/summaryRequest.js';
import { summaryWordsFor } from '../../../src/engine/compaction/summaryPrompt.js';
import { GOOD_SUMMARY, harness, session } from './harness.js';
import { ScriptedModel } from './memoryStore.js';
import { retentionFromDetails, retentionLine } from '../../../src/engine/compaction/retention.js';

function compactWith(model: ScriptedModel) {
  const h = harness(session(12, 100), { model });
  const m = h.barrier.measure();
  const plan = makePlan({
    operationId: 'op_q',
    trigger: 'user',
    mandatory: false,
    roiExempt: true,
    branch: m.branch,
    leafAtPlan: m.leaf,
    level: 0,
    tokensOf: (e) => h.cache.tokensOf(e),
    tokensBefore: m.tokens,
    tokensSource: m.source,
    limits: h.barrier.limits(),
    keepRecentTokens: h.resolved.settings.keepRecentTokens,
  });
  return { h, run: () => runCompaction(h.deps, plan, new AbortController().signal) };
}

const lastText = (m: ScriptedModel, i: number): string => {
  const msgs = m.requests[i]?.messages ?? [];
  const c = msgs[msgs.length - 1]?.content;
  return typeof c === 'string' ? c : '';
};

test("the size the prompt asks for derives from the summary request's real max_tokens", () => {
  assert.equal(summaryWordsFor(SUMMARY_MAX_OUTPUT_TOKENS), 4000, "the seed's 4,000 words at the default 8,192-token cap");
  assert.equal(summaryWordsFor(2000), 1000);
  assert.equal(summaryWordsFor(1024), 500);
});

test('finish_reason "length" twice: one tighter retry with the same prefix, then a degraded capsule merged with what arrived', async () => {
  const cut = `## Goal\nShip the parser rewrite with the exact grammar from RFC-7.\n\n## Constraints & Preferences\nKeep the public API.\n\n## Progress\n### Done\n- lexer`;
  const model = new ScriptedModel([{ text: cut, finish: 'length' }]);
  const { h, run } = compactWith(model);
  const o = await run();
  assert.equal(o.outcome, 'completed', JSON.stringify(o));
  assert.equal(model.requests.length, 2, 'exactly one retry');
  const [a, b] = model.requests;
  assert.ok(a && b);
  assert.equal(a.maxOutputTokens, b.maxOutputTokens);
  assert.match(lastText(model, 0), /Stay under about 1,000 words\./);
  assert.match(lastText(model, 1), /Stay under about 500 words\./);
  assert.deepEqual(b.messages.slice(0, -1), a.messages.slice(0, -1), 'the retry keeps the cached prefix: only the instruction changes');
  const capsule = h.store
    .entries()
    .filter((e) => e.type === 'capsule')
    .pop();
  assert.ok(capsule?.type === 'capsule');
  assert.equal(capsule.quality, 'degraded', 'a cut-off summary is never full');
  assert.match(capsule.summary, /cut off at its output limit/);
  assert.match(capsule.summary, /exact grammar from RFC-7/, 'what arrived is merged in');
});

test("an answer missing sections is used as it is: one request, quality partial, the report names the model's sections", async () => {
  const model = new ScriptedModel([{ text: '## Goal\nship ZQX-9\n\n## Progress\n- parser done\n\n## Next Steps\n- the grammar' }, { text: GOOD_SUMMARY }]);
  const { h, run } = compactWith(model);
  const o = await run();
  assert.equal(o.outcome, 'completed');
  assert.equal(model.requests.length, 1, 'no retry for missing sections');
  assert.ok(o.outcome === 'completed' && o.quality === 'partial');
  const capsule = h.store
    .entries()
    .filter((e) => e.type === 'capsule')
    .pop();
  assert.ok(capsule?.type === 'capsule');
  assert.equal(capsule.quality, 'partial');
  assert.match(capsule.summary, /ship ZQX-9/);
  assert.match(capsule.summary, /## Key Decisions\n_\(Filled from the ledger/);
  const retention = retentionFromDetails(capsule.details);
  assert.deepEqual(retention?.sectionsFromModel, ['Goal', 'Progress', 'Next Steps']);
  assert.match(retentionLine(retention ?? assert.fail()), /summary sections from the model: Goal, Progress, Next Steps \(3\/7/);
});

test('an answer with no section at all is retried once; a complete retry is full', async () => {
  const model = new ScriptedModel([{ text: 'I summarized nothing in particular.' }, { text: GOOD_SUMMARY }]);
  const { h, run } = compactWith(model);
  const o = await run();
  assert.equal(o.outcome, 'completed');
  assert.equal(model.requests.length, 2);
  const capsule = h.store
    .entries()
    .filter((e) => e.type === 'capsule')
    .pop();
  assert.equal(capsule?.type === 'capsule' && capsule.quality, 'full');
});

test('reasoning text is not the summary', async () => {
  assert.equal(withoutReasoning('<think>let me think about the goal</think>\n## Goal\nx'), '## Goal\nx');
  assert.equal(withoutReasoning('## Goal\nx\n<think>unfinished'), '## Goal\nx');
  const model = new ScriptedModel([{ text: `<think>I should summarize the secret plan ZQX-42</think>\n${GOOD_SUMMARY}` }]);
  const { h, run } = compactWith(model);
  assert.equal((await run()).outcome, 'completed');
  const capsule = h.store
    .entries()
    .filter((e) => e.type === 'capsule')
    .pop();
  assert.ok(capsule?.type === 'capsule');
  assert.equal(capsule.quality, 'full');
  assert.doesNotMatch(capsule.summary, /ZQX-42|<think>/);
});
