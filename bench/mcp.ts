// MCP: one tool call through Capsule's MCP tool host vs the same call through the SDK client directly (same servers, same run), and server startup vs `node -e 0`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpHub } from '../src/node/mcp/hub.js';
import { McpToolHost } from '../src/node/mcp/mcpToolHost.js';
import { counterForModel } from '../src/node/tokenCounter.js';
import { type BenchRow, compare, median, timeMedian } from './lib.js';

/** Times `a` and `b` alternately, so load from other processes falls on both alike; medians of each. */
async function paired(a: () => Promise<unknown>, b: () => Promise<unknown>, runs: number): Promise<[number, number]> {
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    tb.push(performance.now() - t0);
  }
  return [median(ta), median(tb)];
}

const RUNS = 41;
const BIN = join(__dirname, '..', 'node_modules', '.bin');

async function direct(command: string, args: string[]): Promise<Client> {
  const c = new Client({ name: 'bench', version: '0' }, { capabilities: {} });
  await c.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return c;
}

export async function run(): Promise<BenchRow[]> {
  const ws = mkdtempSync(join(tmpdir(), 'capsule-bench-mcp-'));
  writeFileSync(join(ws, 'a.txt'), 'alpha\n'.repeat(100));
  const fsBin = join(BIN, 'mcp-server-filesystem');
  const evBin = join(BIN, 'mcp-server-everything');
  const rows: BenchRow[] = [];
  const hub = new McpHub([
    { name: 'fs', source: { kind: 'cli', label: 'bench' }, needsApproval: false, transport: { type: 'stdio', command: fsBin, args: [ws], env: {} } },
    { name: 'everything', source: { kind: 'cli', label: 'bench' }, needsApproval: false, transport: { type: 'stdio', command: evBin, args: [], env: {} } },
  ]);
  const fsDirect = await direct(fsBin, [ws]);
  const evDirect = await direct(evBin, []);
  try {
    const floor = await timeMedian(() => execFileSync(process.execPath, ['-e', '0']), 9);
    const startFs = await timeMedian(async () => {
      const h = new McpHub([
        { name: 'fs', source: { kind: 'cli', label: 'bench' }, needsApproval: false, transport: { type: 'stdio', command: fsBin, args: [ws], env: {} } },
      ]);
      await h.start();
      await h.stop();
    }, 5);
    rows.push(compare('filesystem server: start, initialize, tools/list, stop', startFs, 'node -e 0', floor, 5));
    await hub.start();
    const counter = counterForModel('gpt-4o');
    const host = new McpToolHost({
      hub,
      count: (t) => counter.count(t),
      hardLimit: 120_000,
      roots: [ws],
      approve: async () => true,
      trusted: () => true,
      headBytes: 100 * 1024,
      tailBytes: 100 * 1024,
    });
    const signal = new AbortController().signal;
    const path = join(ws, 'a.txt');
    const [viaHost, viaSdk] = await paired(
      () => host.run('mcp__fs__read_text_file', JSON.stringify({ path }), signal),
      () => fsDirect.callTool({ name: 'read_text_file', arguments: { path } }),
      RUNS,
    );
    rows.push(compare('fs read_text_file through the MCP tool host', viaHost, 'the same call through the SDK client', viaSdk, RUNS));
    const [echoHost, echoSdk] = await paired(
      () => host.run('mcp__everything__echo', JSON.stringify({ message: 'hi' }), signal),
      () => evDirect.callTool({ name: 'echo', arguments: { message: 'hi' } }),
      RUNS,
    );
    rows.push(compare('everything echo through the MCP tool host', echoHost, 'the same call through the SDK client', echoSdk, RUNS));
    let i = 0;
    // A write is measured on disk around the call (a small workspace here), like run_command.
    const [writeHost, writeSdk] = await paired(
      () => host.run('mcp__fs__write_file', JSON.stringify({ path: join(ws, `w${i++ % 3}.txt`), content: `v${i}` }), signal),
      () => fsDirect.callTool({ name: 'write_file', arguments: { path: join(ws, `w${i++ % 3}.txt`), content: `v${i}` } }),
      21,
    );
    rows.push(compare('fs write_file through the host (files measured on disk)', writeHost, 'the same call through the SDK client', writeSdk, 21));
  } finally {
    await hub.stop();
    await fsDirect.close();
    await evDirect.close();
    rmSync(ws, { recursive: true, force: true, maxRetries: 10 });
  }
  return rows;
}
