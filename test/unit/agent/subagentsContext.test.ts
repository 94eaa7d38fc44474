// Subagents keep the parent's window small (docs/subagents.md#measured): one child compacts at 8k while the parent does not; inline vs delegated at 16k.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSummaryRequest, startFakeOpenAI } from '../../fakes/openaiServer.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { makeWorkspace, openSession, rejected, SMALL_SETTINGS, tempDir } from './agentHelpers.js';
import { explorationModel, figures } from './exploration.js';
import { allText, firstUser, Gate, isChild } from './subagentHelpers.js';

test('one child compacts at 8k while its sibling (not blocked meanwhile) and the parent do not', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  await makeWorkspace(dir, 9, 60);
  const server = await startFakeOpenAI({ window: 16_000 });
  t.after(() => server.close());
  // Child 1 reads eight files (well past 8k), child 2 one.
  const model = explorationModel('subagents', 9, [[0, 1, 2, 3, 4, 5, 6, 7], [8]]);
  // Child 2 waits until child 1's summary request is in flight, and that summary is answered only once child 2 has
  // sent its next request: child 2 ran a tool and went on while its sibling compacted.
  const summaryStarted = new Gate(1);
  const secondGoesOn = new Gate(1);
  let secondRequests = 0;
  server.setFallback(async (req) => {
    const body = req.body;
    if (isSummaryRequest(body) && allText(body).includes('CHILD 1')) {
      summaryStarted.arrive();
      await secondGoesOn.wait('the second child to go on while the first compacts');
    } else if (isChild(body) && firstUser(body).startsWith('CHILD 2')) {
      secondRequests++;
      if (secondRequests === 1) await summaryStarted.wait('the first child to start compacting');
      if (secondRequests === 2) secondGoesOn.arrive();
    }
    return model(req);
  });
  // hard = 16000 - 2000 - 1000 = 13000; soft = 62% of it ≈ 8k.
  const o = await openSession(server, dir, { window: 16_000, settings: { ...SMALL_SETTINGS, autoCompactThresholdRatio: 0.62 } });
  const r = await o.session.turn({ userText: 'explore the workspace', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.deepEqual(rejected(server), []);
  const load = await loadSessionFile(o.path);
  const capsules = load.tree.entries().filter((e) => e.type === 'capsule');
  const runs = new Map<string, string>();
  for (const e of load.tree.entries()) if (e.subagent?.description !== undefined) runs.set(e.subagent.id, e.subagent.description);
  const owners = new Set(capsules.map((c) => runs.get(c.subagent?.id ?? '') ?? 'parent'));
  assert.deepEqual([...owners], ['explore part 1'], 'only the reading child compacted');
  for (const c of capsules) assert.ok(c.tokensBefore >= 8000 * 0.9 && c.tokensBefore <= 13_000, `compacted at ${c.tokensBefore}`);
  const f = figures(server);
  assert.ok(f.parentLargestPrompt < 4000, `the parent stayed small: ${f.parentLargestPrompt}`);
  const answer = load.tree.branch().find((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.ok(answer?.type === 'tool_result' && answer.content.startsWith('Report: 8 files read'));
});

test('an exploration at 16k, inline and through two subagents: the parent’s largest prompt, compactions and tokens', { timeout: 300_000 }, async (t) => {
  const results: Record<string, ReturnType<typeof figures> & { parentCompactions: number; childCompactions: number }> = {};
  for (const mode of ['inline', 'subagents'] as const) {
    const dir = await tempDir(t);
    await makeWorkspace(dir, 10, 60);
    const server = await startFakeOpenAI({ window: 16_000 });
    t.after(() => server.close());
    server.setFallback(explorationModel(mode, 10));
    // The window-derived defaults of a 16k window (no test settings).
    const o = await openSession(server, dir, { window: 16_000, settings: {} });
    const r = await o.session.turn({ userText: 'explore the workspace and report', signal: new AbortController().signal });
    await o.session.close();
    assert.equal(r.status, 'completed', `${mode}: ${r.error ?? ''}`);
    assert.deepEqual(rejected(server), []);
    const load = await loadSessionFile(o.path);
    const capsules = load.tree.entries().filter((e) => e.type === 'capsule');
    results[mode] = {
      ...figures(server),
      parentCompactions: capsules.filter((c) => c.subagent === undefined).length,
      childCompactions: capsules.filter((c) => c.subagent !== undefined).length,
    };
  }
  t.diagnostic(JSON.stringify(results));
  const inline = results.inline;
  const sub = results.subagents;
  assert.ok(inline !== undefined && sub !== undefined);
  assert.ok(inline.parentCompactions >= 1, 'inline, ten files do not fit a 16k window without compaction');
  assert.equal(sub.parentCompactions, 0);
  assert.ok(sub.parentLargestPrompt * 2 < inline.parentLargestPrompt, `delegated ${sub.parentLargestPrompt} vs inline ${inline.parentLargestPrompt}`);
});
