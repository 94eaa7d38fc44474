// The MCP client against real servers: filesystem and everything over stdio, everything over Streamable HTTP, and the hostile fixture (initialize timeout, crash mid-call, cancel, list_changed, process group).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { McpConnection } from '../../../src/node/mcp/connection.js';
import { McpHub } from '../../../src/node/mcp/hub.js';
import { EVERYTHING_BIN, FILESYSTEM_BIN, freePort, hostile, pidAlive, stdio, until } from './mcpRig.js';

const never = new AbortController().signal;

test('filesystem and everything over stdio: tools listed, a call answered, stop leaves no process', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  await writeFile(join(dir, 'hello.txt'), 'hello from disk');
  const hub = new McpHub([stdio('fs', FILESYSTEM_BIN, [dir]), stdio('everything', EVERYTHING_BIN)]);
  t.after(() => hub.stop());
  await hub.start();
  const fs = hub.get('fs');
  const ev = hub.get('everything');
  assert.equal(fs?.status, 'ready', fs?.error);
  assert.equal(ev?.status, 'ready', ev?.error);
  assert.ok((fs?.tools.length ?? 0) >= 10);
  const r = await fs?.call('read_text_file', { path: join(dir, 'hello.txt') }, never);
  assert.equal(r?.content[0]?.type === 'text' ? r.content[0].text : '', 'hello from disk');
  const names = hub.catalog().map((c) => c.name);
  assert.deepEqual(names, [...names].sort(), 'catalog in a deterministic order');
  assert.ok(names.includes('mcp__everything__echo') && names.includes('mcp__fs__read_text_file'));
  await hub.stop();
  assert.equal(fs?.status, 'stopped');
});

test('everything over Streamable HTTP', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => {
    child.kill('SIGKILL');
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  await until(() => /listening/i.test(err), 'the HTTP server to listen');
  const c = new McpConnection({
    name: 'remote',
    source: { kind: 'cli', label: 'test' },
    needsApproval: false,
    transport: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} },
  });
  t.after(() => c.stop());
  await c.start();
  assert.equal(c.status, 'ready', c.error);
  assert.equal(c.transportUsed, 'http');
  const r = await c.call('echo', { message: 'over http' }, never);
  assert.match(JSON.stringify(r.content), /over http/);
});

test('a command that does not exist fails once with a clear reason', async () => {
  const c = new McpConnection(stdio('ghost', 'capsule-no-such-command-xyz'));
  await c.start();
  assert.equal(c.status, 'failed');
  assert.match(c.error ?? '', /command "capsule-no-such-command-xyz" was not found/);
});

test('a server that never answers initialize times out, with its stderr tail, and is stopped', async () => {
  // Long enough for the process to start and speak on a loaded machine; it never answers however long it gets.
  const c = new McpConnection(stdio('mute', process.execPath, [join(__dirname, 'fixtures', 'hangServer.mjs')]), { initializeMs: 5000, callMs: 5000 });
  await c.start();
  assert.equal(c.status, 'failed');
  assert.match(c.error ?? '', /no answer to initialize within/);
  assert.match(c.error ?? '', /hang server: waiting forever/);
});

test('a crash mid-call is a tool error; the server is restarted and answers again', async (t) => {
  const c = new McpConnection(hostile('h', 'basic'));
  t.after(() => c.stop());
  await c.start();
  assert.equal(c.status, 'ready', c.error);
  await assert.rejects(c.call('crash', {}, never), /crashed during the call; it is being restarted.*crashing on purpose/);
  await until(() => c.status === 'ready', 'the restart');
  const r = await c.call('echo', { text: 'back' }, never);
  assert.match(JSON.stringify(r.content), /echo: back/);
});

test('cancelling a call sends notifications/cancelled to the server', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const flag = join(dir, 'cancelled');
  const c = new McpConnection(hostile('h', 'basic', flag));
  t.after(() => c.stop());
  await c.start();
  const ctrl = new AbortController();
  const call = c.call('slow', {}, ctrl.signal);
  // The server must have the request before the cancel means anything; it answers nothing until then.
  setTimeout(() => ctrl.abort(), 200);
  await assert.rejects(call);
  await until(async () => (await readFile(flag, 'utf8').catch(() => '')) === 'cancelled', 'the server to see the cancel');
});

test('tools/list_changed is honoured: the new tool is listed and callable', async (t) => {
  const c = new McpConnection(hostile('h', 'basic'));
  t.after(() => c.stop());
  await c.start();
  assert.ok(!c.tools.some((x) => x.name === 'late'));
  await c.call('add_tool', {}, never);
  await until(() => c.tools.some((x) => x.name === 'late'), 'the re-listed tools');
  assert.match(JSON.stringify((await c.call('late', {}, never)).content), /late tool ran/);
});

test('stop kills the server with its process group: no orphaned child', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'capsule-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const pidFile = join(dir, 'child.pid');
  const c = new McpConnection(hostile('h', 'child', pidFile));
  await c.start();
  assert.equal(c.status, 'ready', c.error);
  const pid = Number(await readFile(pidFile, 'utf8'));
  assert.ok(pidAlive(pid));
  await c.stop();
  await until(() => !pidAlive(pid), 'the grandchild to die');
});
