// The window-derived compaction defaults leave room for the MCP tool schemas (or their index) that every request carries.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { McpHub } from '../../../src/node/mcp/hub.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { openSession } from '../agent/agentHelpers.js';
import { EVERYTHING_BIN, stdio } from './mcpRig.js';

test('with an MCP server configured at 16k, the derived keepRecent shrinks by what its schemas take; explicit settings still win', {
  timeout: 120_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcp-overhead-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const server = await startFakeOpenAI({ window: 16_384 });
  t.after(() => server.close());
  const hub = new McpHub([stdio('everything', EVERYTHING_BIN)]);
  t.after(() => hub.stop());
  await hub.start();
  assert.equal(hub.get('everything')?.status, 'ready', hub.get('everything')?.error);

  const base = { window: 16_384, maxOutput: 2_000, settings: {} };
  const plain = await openSession(server, dir, { ...base, sessionPath: join(dir, 'plain.jsonl') });
  const withMcp = await openSession(server, dir, { ...base, sessionPath: join(dir, 'mcp.jsonl'), mcp: { hub, deferShare: 0.9 } });
  const pinned = await openSession(server, dir, {
    ...base,
    sessionPath: join(dir, 'pinned.jsonl'),
    settings: { keepRecentTokens: 3_000 },
    mcp: { hub, deferShare: 0.9 },
  });
  const keep = (o: typeof plain): number => o.session.agent.settings.settings.keepRecentTokens;
  const plainKeep = keep(plain);
  const mcpKeep = keep(withMcp);
  const pinnedKeep = keep(pinned);
  await plain.session.close();
  await withMcp.session.close();
  await pinned.session.close();
  assert.ok(mcpKeep < plainKeep, `keepRecent with MCP ${mcpKeep} < without ${plainKeep}`);
  assert.equal(pinnedKeep, 3_000, 'a value the user set is never derived');
});
