// The setup panel's MCP list through the real extension: each server's status, tools and schema tokens reach the view, a failed one says why (its stderr tail) once, and Restart / Disable / Enable from the view act on the server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview, McpServerView } from '../../../src/protocol/messages.js';
import { parseHostMessage } from '../../../src/protocol/messages.js';
import { until } from './hostHarness.js';
import { mcpHost } from './mcpHost.js';

const BROKEN = "process.stderr.write('db-mcp: cannot open database /nope/db.sqlite\\n'); process.exit(3)";
const rig = mcpHost({ servers: { bad: { command: process.execPath, args: ['-e', BROKEN] } } });

/** The list the view holds now: the latest of a snapshot's and the mcpServers messages'. */
function listed(messages: readonly HostToWebview[] = rig.v.messages()): McpServerView[] | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.type === 'mcpServers') return m.servers;
    if (m?.type === 'snapshot' && m.mcpServers !== undefined) return m.mcpServers;
  }
  return undefined;
}
const row = (name: string, ms?: readonly HostToWebview[]): McpServerView | undefined => listed(ms)?.find((s) => s.name === name);

test('the view lists each server with status, tools and schema tokens; the failed one carries why, with its stderr tail', async () => {
  await until(() => row('h')?.status === 'ready' && row('bad')?.status === 'failed', 'h ready and bad failed in the list');
  const ready = row('h');
  assert.equal(ready?.tools, 7);
  assert.ok((ready?.schemaTokens ?? 0) > 50, JSON.stringify(ready));
  assert.equal(ready?.transport, 'stdio');
  assert.equal(ready?.source, 'setting capsule.mcp.servers');
  assert.equal(ready?.error, undefined);
  const bad = row('bad');
  assert.equal(bad?.tools, 0);
  assert.equal(bad?.schemaTokens, 0);
  assert.match(bad?.error ?? '', /exited during startup.*cannot open database \/nope\/db\.sqlite/s);
  assert.deepEqual(
    listed()?.map((s) => s.name),
    ['bad', 'h'],
    'in the hub order (by name)',
  );
  // Every list the host posted is what the protocol promises (the webview drops anything else).
  for (const m of rig.v.messages().filter((x) => x.type === 'mcpServers' || x.type === 'snapshot'))
    assert.equal(parseHostMessage(JSON.parse(JSON.stringify(m))).ok, true);
});

test('a server that failed to start is said once in the chat, and not again when another server is restarted', async () => {
  const said = (): number =>
    rig.v
      .messages()
      .filter(
        (m) => m.type === 'notice' && /MCP server "bad" did not start: the server exited during startup \(stderr: db-mcp: cannot open database/.test(m.text),
      ).length;
  assert.equal(said(), 1);
  const mark = rig.v.mark();
  rig.v.send({ type: 'mcpServer', name: 'h', action: 'restart' });
  await until(
    () => rig.v.since(mark).some((m) => m.type === 'mcpServers' && m.servers.some((s) => s.name === 'h' && s.status === 'starting')),
    'h starting again',
  );
  await until(() => row('h', rig.v.since(mark))?.status === 'ready', 'h ready after the restart');
  assert.equal(said(), 1);
});

test('Disable from the view stops the server and keeps it off in this workspace; Enable starts it again', async () => {
  let mark = rig.v.mark();
  rig.v.send({ type: 'mcpServer', name: 'h', action: 'disable' });
  await until(() => row('h', rig.v.since(mark))?.status === 'disabled', 'h disabled in the list');
  assert.equal(listed()?.filter((s) => s.name === 'h').length, 1, 'one row for the server, not a stopped one and a disabled one');
  mark = rig.v.mark();
  rig.v.send({ type: 'mcpServer', name: 'h', action: 'enable' });
  await until(() => row('h', rig.v.since(mark))?.status === 'ready', 'h ready after Enable');
  assert.equal(row('h')?.tools, 7);
});

test('Restart of a failed server runs it again and it fails again with the same reason, in the list only', async () => {
  const before = rig.v.messages().filter((m) => m.type === 'notice').length;
  const mark = rig.v.mark();
  rig.v.send({ type: 'mcpServer', name: 'bad', action: 'restart' });
  await until(
    () => rig.v.since(mark).some((m) => m.type === 'mcpServers' && m.servers.some((s) => s.name === 'bad' && s.status === 'starting')),
    'bad starting again',
  );
  await until(() => row('bad', rig.v.since(mark))?.status === 'failed', 'bad failed again');
  assert.match(row('bad')?.error ?? '', /cannot open database/);
  assert.equal(rig.v.messages().filter((m) => m.type === 'notice').length, before, 'no new line in the chat');
});

test('a view opened again (a reload) gets the list in its snapshot', async () => {
  rig.reopen();
  await until(() => rig.v.messages().some((m) => m.type === 'snapshot'), 'a snapshot for the new view');
  const snap = rig.v.messages().find((m) => m.type === 'snapshot');
  const servers = snap?.type === 'snapshot' ? snap.mcpServers : undefined;
  assert.deepEqual(
    servers?.map((s) => [s.name, s.status]),
    [
      ['bad', 'failed'],
      ['h', 'ready'],
    ],
  );
});
