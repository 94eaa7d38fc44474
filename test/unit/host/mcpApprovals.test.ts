// The MCP approval card through the real extension: readOnlyHint tools skip it only with the setting on; "Always allow this tool" keeps the tool's name in user settings, listed with its ×; × asks again; a workspace value never allows; deny with feedback reaches the model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AllowRule, ApprovalView, HostToWebview } from '../../../src/protocol/messages.js';
import { until } from './hostHarness.js';
import { idle, mcpHost } from './mcpHost.js';

const KEY = 'capsule.approvals.allowedMcpTools';
const rig = mcpHost({ settings: { 'capsule.mcp.autoAllowReadOnly': true } });
const { h } = rig;

const cardsIn = (ms: readonly HostToWebview[]): ApprovalView[] => ms.flatMap((m) => (m.type === 'approvals' ? m.approvals : []));
function lastToolMessage(): string {
  const msgs = (rig.server.chatRequests.at(-1)?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool');
  return String(msgs.at(-1)?.content ?? '');
}

/** One turn in which the model calls `tool` once; `answer` answers its card (if one comes); returns the cards shown. */
async function callOnce(tool: string, args: Record<string, unknown>, answer?: (card: ApprovalView) => void): Promise<ApprovalView[]> {
  rig.server.enqueue({ toolCalls: [{ name: tool, arguments: args }] }, { text: 'Done.' });
  const mark = rig.v.mark();
  rig.v.send({ type: 'send', text: `call ${tool}`, clientId: `c${mark}` });
  await until(() => idle(rig.v.since(mark)) || cardsIn(rig.v.since(mark)).length > 0, 'a card or the end of the turn');
  const card = cardsIn(rig.v.since(mark))[0];
  if (card !== undefined) {
    assert.ok(answer !== undefined, `an unexpected card: ${card.title}`);
    answer(card);
  }
  await until(() => idle(rig.v.since(mark)), 'the turn to finish');
  return cardsIn(rig.v.since(mark));
}

test('a readOnlyHint tool runs without a card when capsule.mcp.autoAllowReadOnly is on', async () => {
  const cards = await callOnce('mcp__h__echo', { text: 'quiet' });
  assert.deepEqual(cards, []);
  assert.equal(lastToolMessage(), 'echo: quiet');
});

test('a tool without the hint asks on an MCP card; "Always allow this tool" keeps its name in user settings and the next call runs without asking', async () => {
  let seen: ApprovalView | undefined;
  await callOnce('mcp__h__big', { bytes: 5 }, (card) => {
    seen = card;
    rig.v.send({ type: 'approval', id: card.id, choice: 'allowAlways' });
  });
  assert.equal(seen?.kind, 'mcp');
  assert.equal(seen?.rule, 'mcp__h__big');
  assert.equal(lastToolMessage(), 'xxxxx');
  assert.deepEqual(h.state.config.get(KEY), ['mcp__h__big']);
  const rules = rig.v.messages().flatMap((m) => (m.type === 'approvals' ? (m.allowRules ?? []) : []));
  assert.ok(
    rules.some((r) => r.rule === 'mcp__h__big' && r.kind === 'mcpTool' && r.scope === 'user'),
    'listed with the other rules',
  );
  assert.deepEqual(await callOnce('mcp__h__big', { bytes: 3 }), [], 'allowed from now on');
  assert.equal(lastToolMessage(), 'xxx');
});

test('× on the listed tool makes the next call ask again, and a deny with feedback reaches the model as the tool error', async () => {
  const rule: AllowRule = { rule: 'mcp__h__big', scope: 'user', kind: 'mcpTool' };
  const mark = rig.v.mark();
  rig.v.send({ type: 'removeAllowRule', rule });
  await until(
    () => rig.v.since(mark).some((m) => m.type === 'approvals' && !(m.allowRules ?? []).some((r) => r.rule === rule.rule)),
    'the list to drop the tool',
  );
  assert.equal(h.state.config.get(KEY), undefined);
  const cards = await callOnce('mcp__h__big', { bytes: 2 }, (card) =>
    rig.v.send({ type: 'approval', id: card.id, choice: 'deny', feedback: 'use echo instead' }),
  );
  assert.equal(cards.length > 0, true, 'asked again');
  assert.match(lastToolMessage(), /The user denied mcp__h__big; it was not run\. The user said: "use echo instead"/);
});

test('a workspace value of capsule.approvals.allowedMcpTools allows nothing', async () => {
  h.state.config.set(KEY, ['mcp__h__big']);
  h.state.scopes.set(KEY, 'workspace');
  const cards = await callOnce('mcp__h__big', { bytes: 1 }, (card) => rig.v.send({ type: 'approval', id: card.id, choice: 'allow' }));
  assert.equal(cards.length > 0, true, 'a repository cannot pre-approve tools');
  assert.equal(lastToolMessage(), 'x');
});
