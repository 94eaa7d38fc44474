// MCP through the real extension: a server from the user setting starts with the chat (a notice says so), its tool is approved on a card (always for this tool), the result reaches the model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApprovalView } from '../../../src/protocol/messages.js';
import { until } from './hostHarness.js';
import { idle, mcpHost } from './mcpHost.js';

const rig = mcpHost();
const { h } = rig;

function toolMessages(): string[] {
  return rig.server.chatRequests.flatMap((r) =>
    (r.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
  );
}

test('a user-configured server starts with the chat, its tool is offered, approved always for the tool, and answers', async () => {
  assert.ok(
    rig.v.messages().some((m) => m.type === 'notice' && /Starting MCP server: h/.test(m.text)),
    'the chat says the server starts',
  );
  rig.server.enqueue(
    { toolCalls: [{ name: 'mcp__h__echo', arguments: { text: 'one' } }] },
    { toolCalls: [{ name: 'mcp__h__echo', arguments: { text: 'two' } }] },
    { text: 'Echoed.' },
  );
  const mark = rig.v.mark();
  rig.v.send({ type: 'send', text: 'Echo twice', clientId: 'm1' });
  await until(() => rig.v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'an approval card');
  const card: ApprovalView | undefined = rig.v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(card !== undefined);
  assert.equal(card.title, 'Call echo on MCP server h');
  // echo declares readOnlyHint, yet it asks: capsule.mcp.autoAllowReadOnly is off by default.
  assert.equal(card.kind, 'mcp');
  assert.equal(card.rule, 'mcp__h__echo', 'always allow is the tool, by its full name');
  assert.equal(card.ruleChoices, undefined, 'no command prefixes to pick');
  assert.deepEqual([card.server, card.tool, card.args], ['h', 'echo', JSON.stringify({ text: 'one' }, null, 2)]);
  rig.v.send({ type: 'approval', id: card.id, choice: 'allowAlways' });
  await until(() => idle(rig.v.since(mark)), 'the turn to finish');
  const cards = rig.v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []));
  assert.equal(new Set(cards.map((c) => c.id)).size, 1, 'the second call ran without asking');
  assert.deepEqual([...new Set(toolMessages().filter((t) => t.startsWith('echo:')))], ['echo: one', 'echo: two']);
  const tools = (rig.server.chatRequests[0]?.body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name) ?? [];
  assert.ok(tools.includes('mcp__h__echo') && tools.includes('mcp_call'));
  assert.equal(
    h.state.writes.some((w) => w.key === 'capsule.approvals.allowedCommands'),
    false,
    'no command rule is written for an MCP tool',
  );
  assert.deepEqual(
    h.state.writes.filter((w) => w.key === 'capsule.approvals.allowedMcpTools').map((w) => [w.value, w.target]),
    [[['mcp__h__echo'], 1]],
    'the tool name is kept in user settings',
  );
});

test('/budget shows the MCP schema tokens per server and whether they are deferred', async () => {
  const mark = rig.v.mark();
  rig.v.send({ type: 'send', text: '/budget', clientId: 'b1' });
  await until(() => rig.v.since(mark).some((m) => JSON.stringify(m).includes('MCP tool schemas:')), 'the budget text');
  const text = JSON.stringify(rig.v.since(mark));
  assert.match(text, /MCP tool schemas: \d+ tokens \(h \d+\); offered in full/);
  const item = h.state.statusItems.find((i) => i.text.startsWith('$(pulse)'));
  assert.match((item?.tooltip as { value?: string } | undefined)?.value ?? '', /MCP tool schemas: \d+ tokens \(h \d+\)/, 'the status bar tooltip too');
});

test('the MCP Servers command lists each server with status, tools and schema tokens; Disable stops it in this workspace', async () => {
  const seen: unknown[][] = [];
  h.state.answer = (kind, prompt, items) => {
    if (kind !== 'quickPick') return undefined;
    seen.push([...items]);
    return prompt === 'MCP servers' ? items[0] : 'Disable in this workspace';
  };
  await h.state.commands.get('capsule.mcpServers')?.();
  h.state.answer = () => undefined;
  const first = seen[0]?.[0] as { label: string; description: string } | undefined;
  assert.equal(first?.label, 'h');
  assert.match(first?.description ?? '', /^ready · 7 tools · \d+ schema tokens · stdio · setting capsule\.mcp\.servers$/);
  assert.deepEqual(seen[1], ['Restart', 'Disable in this workspace']);
  const listed: unknown[][] = [];
  h.state.answer = (kind, _prompt, items) => {
    if (kind === 'quickPick') listed.push([...items]);
    return undefined;
  };
  await h.state.commands.get('capsule.mcpServers')?.();
  h.state.answer = () => undefined;
  const after = (listed[0] ?? []) as { label: string; description: string }[];
  assert.ok(
    after.some((i) => i.label === 'h' && /^stopped/.test(i.description)),
    JSON.stringify(after),
  );
  assert.ok(after.some((i) => i.label === 'h' && i.description === 'disabled in this workspace'));
});
