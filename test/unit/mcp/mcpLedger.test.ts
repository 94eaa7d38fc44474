// MCP calls in the capsule ledger (server, tool, status, error; direct and through mcp_call) and the loaded MCP tools, rendered in the capsule's ledger block.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildLedger } from '../../../src/engine/compaction/ledger.js';
import { renderLedger } from '../../../src/engine/compaction/ledgerFormat.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';

let n = 0;
const base = () => ({ id: `e${++n}`, parentId: null, timestamp: '2026-01-01T00:00:00.000Z' });
const call = (id: string, name: string, args: unknown): Entry =>
  ({ ...base(), type: 'assistant', content: '', toolCalls: [{ id, name, arguments: JSON.stringify(args) }] }) as Entry;
const result = (id: string, name: string, content: string, isError = false, denied = false): Entry =>
  ({
    ...base(),
    type: 'tool_result',
    toolCallId: id,
    toolName: name,
    content,
    isError,
    ...(denied ? { effects: { source: 'measured', created: [], modified: [], deleted: [], renamed: [], read: [], denied: true } } : {}),
  }) as Entry;

test('the ledger records MCP calls and loaded tools; a session without MCP keeps its old shape', () => {
  const entries: Entry[] = [
    call('c1', 'mcp__fs__read_text_file', { path: 'a' }),
    result('c1', 'mcp__fs__read_text_file', 'text'),
    call('c2', 'mcp_tools', { names: ['mcp__gh__search'] }),
    result('c2', 'mcp_tools', '{"name":"mcp__gh__search","description":"x","parameters":{}}'),
    call('c3', 'mcp_call', { name: 'mcp__gh__search', arguments: { q: 'x' } }),
    result('c3', 'mcp_call', 'mcp__gh__search failed: rate limited\nmore', true),
    call('c4', 'mcp__fs__write_file', { path: 'b' }),
    result('c4', 'mcp__fs__write_file', 'The user denied it', true, true),
    call('c5', 'read_file', { path: 'x' }),
    result('c5', 'read_file', 'x'),
  ];
  const l = buildLedger(entries);
  assert.deepEqual(l.mcpCalls, [
    { callId: 'c1', server: 'fs', tool: 'read_text_file', ok: true },
    { callId: 'c3', server: 'gh', tool: 'search', ok: false, error: 'mcp__gh__search failed: rate limited' },
    { callId: 'c4', server: 'fs', tool: 'write_file', ok: false, denied: true, error: 'The user denied it' },
  ]);
  assert.deepEqual(l.mcpToolsLoaded, ['mcp__gh__search']);
  const text = renderLedger(l);
  assert.match(
    text,
    /\*\*MCP calls \(3, newest first\):\*\*\n- `fs` \/ `write_file` → denied\n- `gh` \/ `search` → error: mcp__gh__search failed: rate limited\n- `fs` \/ `read_text_file` → ok/,
  );
  assert.match(text, /\*\*MCP tools loaded \(call them with mcp_call\):\*\* `mcp__gh__search`/);
  // Carried into the next capsule without repeats.
  const next = buildLedger([call('c6', 'mcp__fs__list_directory', {}), result('c6', 'mcp__fs__list_directory', 'ok')], l);
  assert.deepEqual(
    next.mcpCalls?.map((c) => c.callId),
    ['c1', 'c3', 'c4', 'c6'],
  );
  const plain = buildLedger([call('c7', 'read_file', { path: 'x' }), result('c7', 'read_file', 'x')]);
  assert.ok(!('mcpCalls' in plain) && !('mcpToolsLoaded' in plain));
  assert.ok(!renderLedger(plain).includes('MCP'));
});
