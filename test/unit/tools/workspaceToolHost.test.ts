// WorkspaceToolHost: a fixed tool list, run() that never throws, checkpoint and evidence delegation, names the ledger understands.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { READ_COMPACTION_EVIDENCE_TOOL } from '../../../src/engine/compaction/evidence.js';
import { toolActionsOf } from '../../../src/engine/compaction/toolActions.js';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { files, makeHost, workspace } from './toolHelpers.js';

const CORE = ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'run_command', 'update_plan'];

test('schemas() is the same fixed list every time and for every host with the same options', async (t) => {
  const { ws } = await workspace(t);
  const a = makeHost(ws).host;
  const b = makeHost(ws, { trusted: false }).host;
  assert.deepEqual(
    a.schemas().map((s) => s.name),
    CORE,
  );
  assert.equal(JSON.stringify(a.schemas()), JSON.stringify(a.schemas()));
  assert.equal(JSON.stringify(a.schemas()), JSON.stringify(b.schemas()), 'trust changes what runs, not the tool list');
  const full = makeHost(ws, { checkpoint: async () => 'ck_1', evidence: async () => ({ isError: false, content: '' }) }).host;
  assert.deepEqual(
    full.schemas().map((s) => s.name),
    [...CORE, 'checkpoint', 'read_compaction_evidence'],
  );
  assert.deepEqual(full.schemas()[8], READ_COMPACTION_EVIDENCE_TOOL);
  for (const s of full.schemas()) {
    assert.equal(s.parameters['type'], 'object');
    assert.equal(s.parameters['additionalProperties'], false);
    assert.ok(s.description.length > 20);
  }
});

test('bad JSON, non-objects, unknown and mistyped arguments are tool errors, never exceptions', async (t) => {
  const { ws } = await workspace(t);
  const { call } = makeHost(ws, { checkpoint: async () => 'ck_1' });
  for (const name of [...CORE, 'checkpoint']) {
    for (const bad of ['{"path": ', '[1,2]', '"str"', 'null', '42']) {
      const r = await call(name, bad);
      assert.equal(r.isError, true, `${name} ${bad}`);
      assert.match(r.content, new RegExp(`^Invalid arguments for ${name}: `));
    }
  }
  const unknownKey = await call('read_file', { file_path: 'a.txt' });
  // The model is told which argument is missing, which one is unknown, and what it may pass instead.
  assert.match(
    unknownKey.content,
    /^Invalid arguments for read_file: missing required argument "path".*; unknown argument "file_path" \(allowed: path, startLine, endLine\)\.$/,
  );
  const wrongType = await call('read_file', { path: 42 });
  assert.match(wrongType.content, /^Invalid arguments for read_file: "path": [^;]+\.$/, 'one problem, about "path"');
  const unknownTool = await call('delete_everything', {});
  assert.equal(unknownTool.isError, true);
  assert.match(
    unknownTool.content,
    /^Unknown tool "delete_everything"\. Available tools: read_file, list_files, search, write_file, edit_file, run_command, update_plan, checkpoint\.$/,
  );
  const nulls = await call('list_files', { path: null, recursive: null, maxEntries: null });
  assert.equal(nulls.isError, false, 'null means "not given"');
  const empty = await call('list_files', '');
  assert.equal(empty.isError, false, 'empty arguments mean {}');
});

test('checkpoint calls the callback and returns the id; callback failures become tool errors', async (t) => {
  const { ws } = await workspace(t);
  const recorded: [string, string][] = [];
  const { call } = makeHost(ws, {
    checkpoint: async (kind, note) => {
      recorded.push([kind, note]);
      if (note === 'fail') throw new Error('session is read-only');
      return 'ck_42';
    },
  });
  assert.deepEqual(await call('checkpoint', { kind: 'milestone', note: '  tests pass  ' }), {
    isError: false,
    content: 'Checkpoint ck_42 recorded (milestone).',
  });
  assert.deepEqual(recorded, [['milestone', 'tests pass']]);
  const bad = await call('checkpoint', { kind: 'done', note: 'x' });
  assert.match(bad.content, /^Invalid arguments for checkpoint: "kind": .*"milestone".*"plan_pivot"/, 'the allowed kinds are listed');
  const failed = await call('checkpoint', { kind: 'plan_pivot', note: 'fail' });
  assert.deepEqual(failed, { isError: true, content: 'checkpoint failed: session is read-only' });
  const without = await makeHost(ws).call('checkpoint', { kind: 'milestone', note: 'x' });
  assert.equal(without.isError, true);
  assert.match(without.content, /^Unknown tool "checkpoint"/);
});

test('read_compaction_evidence is delegated with the raw arguments and signal; a throwing callback is a tool error', async (t) => {
  const { ws } = await workspace(t);
  const seen: string[] = [];
  const { call } = makeHost(ws, {
    evidence: async (args, signal) => {
      seen.push(args);
      assert.equal(signal.aborted, false);
      if (args.includes('boom')) throw new Error('archive unreadable');
      return { isError: false, content: 'page 1 of 1' };
    },
  });
  assert.deepEqual(await call('read_compaction_evidence', { page: 1 }), { isError: false, content: 'page 1 of 1' });
  assert.deepEqual(seen, ['{"page":1}']);
  assert.deepEqual(await call('read_compaction_evidence', { query: 'boom' }), {
    isError: true,
    content: 'read_compaction_evidence failed: archive unreadable',
  });
});

test('an already-aborted signal runs nothing', async (t) => {
  const { ws } = await workspace(t);
  const { call, asked } = makeHost(ws);
  const ac = new AbortController();
  ac.abort();
  const r = await call('write_file', { path: 'x.txt', content: 'x' }, ac.signal);
  assert.deepEqual(r, { isError: true, content: 'Cancelled: write_file was not run.' });
  assert.equal(asked.length, 0);
});

test('the ledger reads these tools: kinds, paths, commands, queries and exit codes', async (t) => {
  const { ws } = await workspace(t);
  await files(ws, { 'src/a.ts': 'const a = 1;\n' });
  const { call } = makeHost(ws);
  const calls = [
    { id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'src/a.ts' }) },
    { id: 'c2', name: 'list_files', arguments: JSON.stringify({ path: 'src' }) },
    { id: 'c3', name: 'search', arguments: JSON.stringify({ query: 'const', path: 'src' }) },
    { id: 'c4', name: 'write_file', arguments: JSON.stringify({ path: 'src/b.ts', content: 'b\n' }) },
    { id: 'c5', name: 'edit_file', arguments: JSON.stringify({ path: 'src/a.ts', oldText: '1', newText: '2' }) },
    { id: 'c6', name: 'run_command', arguments: JSON.stringify({ command: 'exit 4' }) },
  ];
  const ts = '2025-01-01T00:00:00.000Z';
  const entries: Entry[] = [{ type: 'assistant', id: 'e1', parentId: null, timestamp: ts, content: '', toolCalls: calls }];
  for (const c of calls) {
    const r = await call(c.name, c.arguments);
    entries.push({
      type: 'tool_result',
      id: `r_${c.id}`,
      parentId: 'e1',
      timestamp: ts,
      toolCallId: c.id,
      toolName: c.name,
      content: r.content,
      isError: r.isError,
    });
  }
  const actions = toolActionsOf(entries);
  assert.deepEqual(
    actions.map((a) => [a.name, a.kind, a.paths, a.command ?? a.query ?? null, a.exitCode]),
    [
      ['read_file', 'read', ['src/a.ts'], null, null],
      ['list_files', 'list', ['src'], null, null],
      ['search', 'search', ['src'], 'const', null],
      ['write_file', 'modify', ['src/b.ts'], null, null],
      ['edit_file', 'modify', ['src/a.ts'], null, null],
      ['run_command', 'command', [], 'exit 4', 4],
    ],
  );
});

test('a key Capsule holds is masked in every tool result (a .env read, command output) before it is stored or sent', async (t) => {
  const ws = await workspace(t);
  const key = 'sk-held-key-0123456789abcdef';
  await files(ws.ws, { '.env': `OPENAI_API_KEY=${key}\nOTHER=1\n` });
  const { call } = makeHost(ws.ws, { secrets: () => [key] });
  const read = await call('read_file', { path: '.env' });
  assert.equal(read.isError, false);
  assert.ok(!read.content.includes(key), read.content);
  assert.match(read.content, /OPENAI_API_KEY=\[API key hidden by Capsule\]/);
  const ran = await call('run_command', { command: 'cat .env; echo "$OPENAI_API_KEY"' });
  assert.ok(!ran.content.includes(key), ran.content);
  assert.match(ran.content, /\[API key hidden by Capsule\]/);
});
