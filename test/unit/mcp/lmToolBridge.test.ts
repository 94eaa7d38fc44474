// The tools VS Code knows, as MCP: which are offered (internal ones and VS Code's copies of Capsule's servers left out), their results as MCP content, and the in-process server the SDK client talks to (list, call, cancel, list_changed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bridgeTransport, type BridgeTool, type ToolSource } from '../../../src/node/mcp/bridgeServer.js';
import { leftOutBecause, lmPartToContent, lmResultToMcp, offeredLmTools, vscodeMcpPrefix, type LmToolInfo } from '../../../src/node/mcp/lmToolBridge.js';

const tool = (name: string, tags: readonly string[] = []): LmToolInfo => ({
  name,
  description: `${name} does things`,
  inputSchema: { type: 'object', properties: {} },
  tags,
});

test("VS Code's MCP tool prefix: lower-cased, other characters made _, cut to 13, dots made _", () => {
  assert.equal(vscodeMcpPrefix('github'), 'mcp_github');
  assert.equal(vscodeMcpPrefix('My Server'), 'mcp_my_server');
  assert.equal(vscodeMcpPrefix('io.github.upstash/context7'), 'mcp_io_github_ups');
  assert.equal(vscodeMcpPrefix('Ünïcode'), 'mcp__n_code');
});

test('offered: not the internal tools, not Capsule-run servers (also numbered or long-named), sorted by name', () => {
  const rule = { capsuleServers: ['filesystem', 'io.github.upstash/context7', 'gh'], own: ['capsule_tool'] };
  const all = [
    tool('zeta_tool'),
    tool('copilot_readFile', ['vscode_editing']),
    tool('vscode_fetchWebPage_internal'),
    tool('capsule_tool'),
    tool('mcp_filesystem_read_file', ['mcp']),
    tool('mcp_filesystem2_read_file', ['mcp']),
    tool('mcp_io_github_ups_resolve-library-id', ['mcp']),
    tool('mcp_gh_search', ['mcp']),
    tool('mcp_ghost_search', ['mcp']),
    tool('mcp_filesystem_lookalike'),
    tool('alpha_tool'),
  ];
  assert.deepEqual(
    offeredLmTools(all, rule).map((t) => t.name),
    ['alpha_tool', 'mcp_filesystem_lookalike', 'mcp_ghost_search', 'zeta_tool'],
    'a server named "gh" does not hide "ghost", and a tool without the mcp tag is not an MCP copy',
  );
  assert.match(leftOutBecause(tool('mcp_filesystem_read_file', ['mcp']), rule) ?? '', /the MCP server "filesystem", which Capsule runs itself/);
  assert.match(leftOutBecause(tool('copilot_readFile'), rule) ?? '', /internal tool of VS Code or Copilot/);
});

test('result parts: text, images kept as images, JSON and text data decoded, other data named, prompt-tsx as its text', () => {
  assert.deepEqual(lmPartToContent({ value: 'plain' }), { type: 'text', text: 'plain' });
  assert.deepEqual(lmPartToContent({ mimeType: 'image/png', data: new Uint8Array([1, 2, 3]) }), { type: 'image', mimeType: 'image/png', data: 'AQID' });
  assert.deepEqual(lmPartToContent({ mimeType: 'application/json', data: new TextEncoder().encode('{"a":1}') }), { type: 'text', text: '{"a":1}' });
  assert.deepEqual(lmPartToContent({ mimeType: 'application/octet-stream', data: new Uint8Array(10) }), {
    type: 'text',
    text: '[application/octet-stream data, 10 bytes, not shown]',
  });
  assert.deepEqual(
    lmPartToContent({
      value: {
        node: {
          type: 1,
          children: [
            { type: 2, text: 'Hello ' },
            { type: 1, children: [{ type: 2, text: 'world' }] },
          ],
        },
      },
    }),
    { type: 'text', text: 'Hello world' },
  );
  assert.deepEqual(lmResultToMcp({ content: [] }), { content: [{ type: 'text', text: '(the tool returned nothing)' }] });
});

class FakeSource implements ToolSource {
  tools: BridgeTool[] = [{ name: 'one', description: 'The first.', inputSchema: undefined }];
  readonly listeners = new Set<() => void>();
  aborted = false;
  waiting = false;
  list(): readonly BridgeTool[] {
    return this.tools;
  }
  async call(name: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<CallToolResult> {
    if (name === 'wait') {
      this.waiting = true;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      this.aborted = true;
      return { content: [{ type: 'text', text: 'stopped' }] };
    }
    return { content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] };
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

test('the in-process server: tools listed with an object schema, calls answered, a cancelled call reaches the source, a change is a list_changed; closing unsubscribes', async () => {
  const source = new FakeSource();
  const open = bridgeTransport(source, { name: 'vscode', version: '1.0' });
  const client = new Client({ name: 't', version: '1' }, { capabilities: {} });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
  await client.connect(open());
  assert.deepEqual((await client.listTools()).tools, [{ name: 'one', description: 'The first.', inputSchema: { type: 'object' } }]);
  assert.deepEqual(await client.callTool({ name: 'one', arguments: { a: 1 } }), { content: [{ type: 'text', text: 'one {"a":1}' }] });
  const gone = await client.callTool({ name: 'nope', arguments: {} });
  assert.equal(gone.isError, true);
  source.tools = [...source.tools, { name: 'wait', description: 'Waits to be cancelled.', inputSchema: { type: 'object', properties: {} } }];
  for (const l of source.listeners) l();
  for (let i = 0; i < 1000 && changed === 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(changed, 1, 'list_changed sent');
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ['one', 'wait'],
  );
  const ac = new AbortController();
  const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: ac.signal });
  for (let i = 0; i < 1000 && !source.waiting; i++) await new Promise((r) => setImmediate(r));
  ac.abort('stop');
  await assert.rejects(call);
  for (let i = 0; i < 1000 && !source.aborted; i++) await new Promise((r) => setImmediate(r));
  assert.equal(source.aborted, true, 'notifications/cancelled aborted the source call');
  await client.close();
  assert.equal(source.listeners.size, 0, 'the server let go of the source');
});
