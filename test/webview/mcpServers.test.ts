// The setup panel's MCP servers in real Chromium: each row's status, tools and schema tokens, why a failed one failed (once), Restart / Disable / Enable posted to the host, and the list following the host's updates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { McpServerView } from '../../src/protocol/messages.js';
import { snapshot } from '../unit/protocol/samples.js';
import { browserForFile, ofType, scenario } from './harness.js';

const browser = browserForFile();

const STDERR = 'the server exited during startup (stderr: db-mcp: cannot open database /nope/db.sqlite\nat open (db.js:12))';
const SERVERS: McpServerView[] = [
  { name: 'bad', status: 'failed', tools: 0, schemaTokens: 0, transport: 'stdio', source: '.mcp.json', error: STDERR },
  { name: 'fs', status: 'ready', tools: 14, schemaTokens: 1682, transport: 'stdio', source: 'setting capsule.mcp.servers' },
  { name: 'old', status: 'disabled', tools: 0, schemaTokens: 0 },
];

test('the panel lists each MCP server with status, tools and schema tokens; a failed one says why once; the buttons reach the host', async () => {
  await scenario(
    browser,
    'mcp-servers',
    async (h) => {
      await h.send({ ...snapshot, mcpServers: SERVERS });
      await h.page.getByRole('button', { name: 'Provider setup' }).click();
      const list = h.page.getByRole('list', { name: 'MCP servers' });
      const fs = list.locator('[data-mcp-server="fs"]');
      assert.match((await fs.textContent()) ?? '', /fs\s*running.*14 tools · 1682 schema tokens · stdio · setting capsule\.mcp\.servers/);
      const bad = list.locator('[data-mcp-server="bad"]');
      assert.match((await bad.textContent()) ?? '', /failed/);
      assert.equal(await bad.locator('.mcp-error').textContent(), STDERR, 'the reason with the stderr tail, whole');
      assert.equal(await h.value<number>(`document.body.textContent.split('cannot open database').length - 1`), 1, 'said once in the view');
      const old = list.locator('[data-mcp-server="old"]');
      assert.match((await old.textContent()) ?? '', /disabled in this workspace/);
      assert.equal(await old.getByRole('button', { name: /Restart/ }).count(), 0, 'a disabled server offers only Enable');
      assert.match(await h.value<string>("document.querySelector('.mcp-servers > p.help').textContent"), /1682 tokens with every request/);
      await h.page.locator('.mcp-servers').scrollIntoViewIfNeeded();
      await h.screenshot('mcp-servers');

      await fs.getByRole('button', { name: 'Restart' }).click();
      await bad.getByRole('button', { name: 'Disable' }).click();
      await old.getByRole('button', { name: 'Enable' }).click();
      assert.deepEqual(
        (await ofType(h, 'mcpServer')).map((m) => [m.name, m.action]),
        [
          ['fs', 'restart'],
          ['bad', 'disable'],
          ['old', 'enable'],
        ],
      );

      // The host's next list replaces the rows: fs restarting (no second Restart meanwhile), bad disabled, old running.
      await h.send({
        type: 'mcpServers',
        servers: [
          { name: 'bad', status: 'disabled', tools: 0, schemaTokens: 0 },
          { name: 'fs', status: 'restarting', tools: 14, schemaTokens: 1682, transport: 'stdio' },
          { name: 'old', status: 'ready', tools: 2, schemaTokens: 90, transport: 'http' },
        ],
      });
      await h.until(`document.querySelector('[data-mcp-server="old"]')?.textContent.includes('2 tools')`, 'the list to follow');
      assert.equal(await fs.getByRole('button', { name: 'Restart' }).isDisabled(), true, 'no Restart while it restarts');
      assert.equal(await fs.getByRole('button', { name: 'Disable' }).isDisabled(), false);
      assert.equal(await bad.locator('.mcp-error').count(), 0, 'a disabled server no longer shows the old failure');
      assert.equal(await bad.getByRole('button', { name: 'Enable' }).count(), 1);
    },
    { width: 292, height: 700 },
  );
});

test('no MCP server: the panel says where servers are configured', async () => {
  await scenario(
    browser,
    'mcp-servers-none',
    async (h) => {
      await h.send(snapshot);
      await h.page.getByRole('button', { name: 'Provider setup' }).click();
      assert.match(
        await h.value<string>("document.querySelector('.mcp-servers').textContent"),
        /None running\. Add servers in \.mcp\.json, \.vscode\/mcp\.json or the capsule\.mcp\.servers setting/,
      );
    },
    { width: 292, height: 500 },
  );
});
