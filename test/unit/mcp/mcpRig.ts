// Test helpers for MCP: the servers installed from npm, the hostile fixture server, server configs, and waiting for an event with a generous bound.
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import type { McpServerConfig } from '../../../src/node/mcp/configTypes.js';

export const ROOT = resolve(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');
export const FILESYSTEM_BIN = join(BIN, 'mcp-server-filesystem');
export const EVERYTHING_BIN = join(BIN, 'mcp-server-everything');
export const HOSTILE = join(__dirname, 'fixtures', 'hostileServer.mjs');

export function stdio(name: string, command: string, args: readonly string[] = [], env: Record<string, string> = {}): McpServerConfig {
  return { name, source: { kind: 'cli', label: 'test' }, needsApproval: false, transport: { type: 'stdio', command, args: [...args], env } };
}

export function hostile(name: string, mode: string, arg?: string): McpServerConfig {
  return stdio(name, process.execPath, [HOSTILE, mode, ...(arg === undefined ? [] : [arg])]);
}

/** Polls `check` until it is true; fails after `ms` (generous: the machine is shared). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolvePort(port));
    });
  });
}
