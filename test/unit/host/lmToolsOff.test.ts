// capsule.mcp.vscodeTools off: the tools VS Code knows are not offered (no "vscode" server, no MCP meta-tools when nothing else is configured).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, turnOn, type OpenView } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 64_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.mcp.vscodeTools': false,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;
let invoked = 0;

before(async () => {
  const lm = h.api.lm as Record<string, unknown>;
  lm.tools = [{ name: 'weather_lookup', description: 'Looks up the weather.', inputSchema: { type: 'object', properties: {} }, tags: [] }];
  lm.invokeTool = () => Promise.resolve({ content: [{ value: String(++invoked) }] });
  server = await startFakeOpenAI({ window: 64_000 });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

test('with capsule.mcp.vscodeTools off, no VS Code tool and no MCP meta-tool is in the tool list', async () => {
  server.enqueue({ text: 'Hello.' });
  await turnOn(v, 'hi');
  const tools = ((server.chatRequests[0]?.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
  assert.ok(tools.includes('read_file'), tools.join(', '));
  assert.equal(
    tools.some((t) => t.startsWith('mcp')),
    false,
    tools.join(', '),
  );
  assert.equal(invoked, 0);
});
