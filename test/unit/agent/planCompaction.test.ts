// A plan the agent keeps with update_plan survives compaction: the first request after the capsule carries it exactly (real openai client, fake server).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderPlanLines, type Plan } from '../../../src/engine/compaction/taskPlan.js';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, makeWorkspace, openSession, tempDir, verifyFile } from './agentHelpers.js';

const PLAN: Plan = [
  { step: 'Reproduce the date bug with a failing test', status: 'done' },
  { step: 'Fix parseDate in src/date.ts', status: 'in_progress' },
  { step: 'Run npm test and report', status: 'pending' },
];

function bodyText(body: ChatBody): string {
  return body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
}

test('the plan is in the model input after compaction, exactly, and a bad update keeps the previous plan', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  let asks = 0;
  server.setFallback(
    agentResponder((text) => {
      asks++;
      if (text.startsWith('Plan it')) return [{ name: 'update_plan', arguments: { plan: PLAN } }];
      const read = /^Read (f\d+)/.exec(text);
      if (read !== null) return [{ name: 'read_file', arguments: { path: `src/${read[1] ?? ''}.ts` } }];
      if (text.startsWith('Break it')) return [{ name: 'update_plan', arguments: { plan: [{ step: 'x', status: 'started' }] } }];
      return [];
    }),
  );
  const ws = await makeWorkspace(dir, 3, 60);
  const { session, path } = await openSession(server, dir, { workspace: { roots: [ws], approve: async () => true, trusted: () => true } });
  t.after(() => session.close());
  const signal = new AbortController().signal;
  assert.equal((await session.turn({ userText: 'Plan it: fix the date bug.', signal })).status, 'completed');
  for (const f of ['f0', 'f1', 'f2']) assert.equal((await session.turn({ userText: `Read ${f} and check it.`, signal })).status, 'completed');
  const broken = await session.turn({ userText: 'Break it.', signal });
  assert.equal(broken.status, 'completed');
  const errorResult = session.store.tree
    .branch()
    .filter((e) => e.type === 'tool_result')
    .pop();
  assert.equal(errorResult?.type === 'tool_result' && errorResult.isError, true, 'a bad plan is a tool error');
  assert.match(errorResult?.type === 'tool_result' ? errorResult.content : '', /The previous plan stays\.$/);

  const c = await session.compact();
  assert.deepEqual(
    c.outcomes.map((o) => o.outcome),
    ['completed'],
  );
  const before = server.chatRequests.length;
  assert.equal((await session.turn({ userText: 'Where are we?', signal })).status, 'completed');
  const next = agentRequests(server).filter((r) => server.chatRequests.indexOf(r) >= before)[0];
  assert.ok(next !== undefined && asks > 0);
  const body = next.body as ChatBody;
  const capsuleMessage = body.messages.find((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content.includes('## Ledger'));
  assert.ok(capsuleMessage !== undefined, 'the first request after compaction carries the capsule');
  assert.doesNotMatch(bodyText(body), /"name":"update_plan"|Plan updated:/, 'the plan call itself was summarized away, so only the capsule can carry it');
  for (const line of renderPlanLines(PLAN))
    assert.ok(String(capsuleMessage.content).includes(`\n${line}\n`) || String(capsuleMessage.content).endsWith(`\n${line}\n`), `capsule carries "${line}"`);
  assert.doesNotMatch(String(capsuleMessage.content), /started/, 'the rejected update never entered the plan');
  const sys = body.messages[0];
  assert.match(typeof sys?.content === 'string' ? sys.content : '', /update_plan/, 'the system prompt tells the model to keep a plan');
  assert.equal((await verifyFile(path)).ok, true);
});
