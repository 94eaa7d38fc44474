// `capsule mcp list` / `capsule mcp call`, and workspace servers in the CLI: skipped until approved, approved once with --approve-mcp and remembered, --no-mcp.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { mcpChatRig, requests } from './chatRig.js';
import { FILESYSTEM_BIN, HOSTILE } from './mcpRig.js';

async function cli(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, lines };
}

test('mcp list: status, tools and schema tokens per server, the reason of one that failed; --json', async (t) => {
  const rig = await mcpChatRig(t, 32_768);
  const bad = join(rig.dir, 'bad.json');
  await writeFile(bad, JSON.stringify({ mcpServers: { ghost: { command: 'capsule-no-such-command-xyz' } } }));
  const r = await cli('mcp', 'list', '--workspace', rig.ws, '--mcp-config', rig.config, '--mcp-config', bad);
  assert.equal(r.code, 1, 'a failed server makes the listing fail');
  assert.ok(
    r.lines.some((l) => /^everything {2}ready {2}stdio {2}\d+ tools {2}\d+ schema tokens/.test(l)),
    r.lines.join('\n'),
  );
  assert.ok(r.lines.some((l) => /^fs {2}ready {2}stdio {2}\d+ tools/.test(l)));
  assert.ok(r.lines.some((l) => /^ghost {2}failed/.test(l)));
  assert.ok(r.lines.some((l) => /command "capsule-no-such-command-xyz" was not found/.test(l)));
  const j = await cli('mcp', 'list', '--workspace', rig.ws, '--mcp-config', rig.config, '--json');
  assert.equal(j.code, 0);
  const doc = JSON.parse(j.lines.join('\n')) as { servers: { name: string; status: string; tools: number; schemaTokens: number }[]; schemaTokens: number };
  assert.deepEqual(
    doc.servers.map((s) => [s.name, s.status]),
    [
      ['everything', 'ready'],
      ['fs', 'ready'],
    ],
  );
  assert.equal(
    doc.schemaTokens,
    doc.servers.reduce((n, s) => n + s.schemaTokens, 0),
  );
  assert.ok(doc.servers.every((s) => s.tools > 5 && s.schemaTokens > 500));
});

test('mcp call: one call and its result; an error result exits 1; bad JSON is one line', async (t) => {
  const rig = await mcpChatRig(t, 32_768, 'basic');
  const ok = await cli('mcp', 'call', 'h', 'echo', '{"text":"direct"}', '--workspace', rig.ws, '--mcp-config', rig.config);
  assert.deepEqual([ok.code, ok.lines.at(-1)], [0, 'echo: direct']);
  assert.ok(!ok.lines.some((l) => l.includes('everything')), 'only the named server starts');
  const fail = await cli('mcp', 'call', 'h', 'fail', '{}', '--workspace', rig.ws, '--mcp-config', rig.config);
  assert.deepEqual([fail.code, fail.lines.at(-1)], [1, 'something went wrong on the server']);
  await assert.rejects(cli('mcp', 'call', 'h', 'echo', '{nope', '--workspace', rig.ws, '--mcp-config', rig.config), /the arguments must be a JSON object/);
  await assert.rejects(cli('mcp', 'call', 'zz', 'echo', '{}', '--workspace', rig.ws, '--mcp-config', rig.config), /no MCP server 'zz'/);
});

test('workspace servers: skipped without approval (one line), approved once with --approve-mcp and remembered; --no-mcp starts none', async (t) => {
  const rig = await mcpChatRig(t, 32_768);
  await writeFile(
    join(rig.ws, '.mcp.json'),
    JSON.stringify({
      mcpServers: { wsfs: { command: FILESYSTEM_BIN, args: ['${workspaceFolder}'] }, wsh: { command: process.execPath, args: [HOSTILE, 'basic'] } },
    }),
  );
  rig.server.setFallback(() => ({ text: 'ok' }));
  const chat = (...flags: string[]): Promise<{ code: number; lines: string[] }> => {
    const lines: string[] = [];
    return main(
      ['chat', '--base-url', rig.server.url, '--model', 'fake-model', '--session', rig.session, '--workspace', rig.ws, '--window', '32768', ...flags, 'hello'],
      (s) => lines.push(s),
    ).then((code) => ({ code, lines }));
  };
  const first = await chat();
  assert.equal(first.code, 0);
  assert.ok(
    first.lines.some((l) =>
      /^\[mcp\] \.mcp\.json: server "wsfs" skipped: servers defined by the workspace run only after your approval \(run once with --approve-mcp/.test(l),
    ),
    first.lines.join('\n'),
  );
  assert.ok(!first.lines.some((l) => l.startsWith('[mcp] starting')));
  const approved = await chat('--approve-mcp');
  assert.ok(approved.lines.includes('[mcp] starting 2 servers: wsfs, wsh'), approved.lines.join('\n'));
  const again = await chat();
  assert.ok(again.lines.includes('[mcp] starting 2 servers: wsfs, wsh'), 'remembered for this workspace');
  const none = await chat('--no-mcp');
  assert.ok(!none.lines.some((l) => l.startsWith('[mcp] starting')));
  const last = requests(rig.server).at(-1);
  assert.ok(last !== undefined && !last.tools.some((n) => n.startsWith('mcp')), '--no-mcp: no MCP tool offered');
  // A changed command is a different server: asked again.
  await writeFile(join(rig.ws, '.mcp.json'), JSON.stringify({ mcpServers: { wsh: { command: process.execPath, args: [HOSTILE, 'many'] } } }));
  const changed = await chat();
  assert.ok(
    changed.lines.some((l) => /server "wsh" skipped/.test(l)),
    changed.lines.join('\n'),
  );
});
