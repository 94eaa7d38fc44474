// The tools VS Code knows (vscode.lm.tools) through the real extension: served in-process as the MCP server "vscode", called with vscode.lm.invokeTool after the usual card; internal tools and VS Code's copy of a server Capsule runs are left out; a failure is a tool error; a change of the list is a list_changed.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ApprovalView, HostToWebview } from '../../../src/protocol/messages.js';
import { EventEmitter } from '../../support/fakeVscodeParts.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, type OpenView, until } from './hostHarness.js';

const HOSTILE = join(__dirname, '..', 'mcp', 'fixtures', 'hostileServer.mjs');
const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 64_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.mcp.servers': { h: { command: process.execPath, args: [HOSTILE, 'basic'] } },
  },
});

interface Info {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: object | undefined;
  readonly tags: readonly string[];
}
const obj = (properties: Record<string, unknown> = {}): object => ({ type: 'object', properties });
let lmTools: Info[] = [
  { name: 'weather_lookup', description: 'Looks up the weather of a city.', inputSchema: obj({ city: { type: 'string' } }), tags: [] },
  { name: 'broken_tool', description: 'Always fails.', inputSchema: undefined, tags: [] },
  { name: 'copilot_readFile', description: 'Copilot reads a file.', inputSchema: obj({ filePath: { type: 'string' } }), tags: ['vscode_editing'] },
  { name: 'vscode_editFile_internal', description: 'VS Code edits a file.', inputSchema: obj(), tags: [] },
  // VS Code's copy of Capsule's own server "h" (VS Code names it mcp_<server>_<tool>, tag mcp): offered once, as Capsule's.
  { name: 'mcp_h_echo', description: 'Echoes its text.', inputSchema: obj({ text: { type: 'string' } }), tags: ['mcp'] },
  // VS Code's copy of the workspace's .vscode/mcp.json server "Notes" (VS Code lower-cases the name): also offered once.
  { name: 'mcp_notes_echo', description: 'Echoes its text.', inputSchema: obj({ text: { type: 'string' } }), tags: ['mcp'] },
  // A server only VS Code runs: offered through VS Code.
  { name: 'mcp_github_search_issues', description: 'Searches issues.', inputSchema: obj({ q: { type: 'string' } }), tags: ['mcp'] },
];
const invoked: { name: string; input: unknown; token: unknown }[] = [];
const toolChanges = new EventEmitter<void>();
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  h.state.scopes.set('capsule.mcp.servers', 'user');
  mkdirSync(join(h.workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(h.workspace, '.vscode', 'mcp.json'),
    JSON.stringify({ servers: { Notes: { type: 'stdio', command: process.execPath, args: [HOSTILE, 'basic'] } } }),
  );
  // The workspace's server asks once in a modal dialog.
  h.state.answer = (kind, _prompt, items) => (kind === 'modal' ? items.find((i) => i === 'Allow') : undefined);
  const lm = h.api.lm as Record<string, unknown>;
  Object.defineProperty(lm, 'tools', { get: () => lmTools, configurable: true });
  lm.onDidChangeTools = toolChanges.event;
  lm.invokeTool = async (name: string, options: { input: { city?: string }; toolInvocationToken: unknown }): Promise<{ content: unknown[] }> => {
    invoked.push({ name, input: options.input, token: options.toolInvocationToken });
    if (name === 'broken_tool') throw new Error('the weather service is down');
    if (name === 'late_tool') return { content: [{ value: 'late tool answered' }] };
    return { content: [{ value: `sunny in ${options.input.city ?? '?'}` }, { value: { node: { children: [{ text: ' (prompt-tsx part)' }] } } }] };
  };
  server = await startFakeOpenAI({ window: 64_000 });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
const toolsOf = (i: number): string[] =>
  ((server.chatRequests[i]?.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
function lastToolMessage(): string {
  const msgs = (server.chatRequests.at(-1)?.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool');
  return String(msgs.at(-1)?.content ?? '');
}

/** One turn: the scripted replies, every card allowed once; returns the cards shown. */
async function turn(text: string, ...replies: Parameters<FakeOpenAIServer['enqueue']>): Promise<ApprovalView[]> {
  server.enqueue(...replies);
  const mark = v.mark();
  const answered = new Set<string>();
  v.send({ type: 'send', text, clientId: `c${mark}` });
  await until(() => {
    for (const c of v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))) {
      if (answered.has(c.id)) continue;
      answered.add(c.id);
      v.send({ type: 'approval', id: c.id, choice: 'allow' });
    }
    return idle(v.since(mark));
  }, `the turn "${text}"`);
  const seen = new Map<string, ApprovalView>();
  for (const c of v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))) seen.set(c.id, c);
  return [...seen.values()];
}

test('VS Code tools are offered as mcp__vscode__*, without internal tools or a second copy of a server Capsule runs; a call goes through the card to invokeTool and its result to the model', async () => {
  const cards = await turn('weather?', { toolCalls: [{ name: 'mcp__vscode__weather_lookup', arguments: { city: 'Oslo' } }] }, { text: 'Sunny.' });
  const tools = toolsOf(0);
  for (const t of ['mcp__vscode__weather_lookup', 'mcp__vscode__broken_tool', 'mcp__vscode__mcp_github_search_issues', 'mcp__h__echo', 'mcp__Notes__echo'])
    assert.ok(tools.includes(t), `${t} in ${tools.join(', ')}`);
  for (const t of ['mcp__vscode__copilot_readFile', 'mcp__vscode__vscode_editFile_internal', 'mcp__vscode__mcp_h_echo', 'mcp__vscode__mcp_notes_echo'])
    assert.equal(tools.includes(t), false, `${t} is left out`);
  assert.deepEqual(
    cards.map((c) => [c.kind, c.server, c.tool, c.rule]),
    [['mcp', 'vscode', 'weather_lookup', 'mcp__vscode__weather_lookup']],
    'the same card as any MCP tool',
  );
  assert.deepEqual(invoked, [{ name: 'weather_lookup', input: { city: 'Oslo' }, token: undefined }]);
  assert.equal(lastToolMessage(), 'sunny in Oslo\n (prompt-tsx part)');
  const setupRows = v.messages().flatMap((m) => (m.type === 'mcpServers' ? m.servers : m.type === 'snapshot' ? (m.mcpServers ?? []) : []));
  assert.ok(
    setupRows.some((s) => s.name === 'vscode' && s.status === 'ready' && s.tools === 3 && s.source === 'VS Code language model tools'),
    JSON.stringify(setupRows.filter((s) => s.name === 'vscode').at(-1)),
  );
});

test('a tool that throws is a tool error the model reads', async () => {
  await turn('break it', { toolCalls: [{ name: 'mcp__vscode__broken_tool', arguments: {} }] }, { text: 'It failed.' });
  assert.match(lastToolMessage(), /The VS Code tool broken_tool failed: the weather service is down/);
});

test("a change of VS Code's tools is a list_changed: one update the model reads, the tool list unchanged, the new tool callable", async () => {
  const before = server.chatRequests.length;
  lmTools = [...lmTools, { name: 'late_tool', description: 'Registered later.', inputSchema: obj(), tags: [] }];
  toolChanges.fire();
  await turn('use the new one', { toolCalls: [{ name: 'mcp_call', arguments: { name: 'mcp__vscode__late_tool', arguments: {} } }] }, { text: 'Used it.' });
  assert.deepEqual(toolsOf(before), toolsOf(0), 'the tool array is not rewritten');
  const system = (server.chatRequests[before]?.body as { messages: { role: string; content: unknown }[] }).messages
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
  assert.match(system, /MCP tools added since your tool list was fixed[\s\S]*mcp__vscode__late_tool/);
  assert.equal(lastToolMessage(), 'late tool answered');
  assert.equal(invoked.at(-1)?.name, 'late_tool');
});
