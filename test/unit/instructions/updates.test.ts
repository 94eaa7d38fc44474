// A mid-chat edit of AGENTS.md appends exactly one system update and keeps the request prefix; a nested AGENTS.md applies only once the agent works under its folder.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, tempDir, verifyFile, writeSession } from '../agent/agentHelpers.js';
import { session as historyOf } from '../compaction/harness.js';
import { bodyOf, messageTexts, openWithInstructions, put, systemText, workspaceWith } from './instructionHelpers.js';

function reader() {
  return agentResponder((text) => {
    const m = /^Read (\S+)/.exec(text);
    return m === null ? [] : [{ name: 'read_file', arguments: { path: m[1] ?? '' } }];
  });
}

test('editing AGENTS.md mid-chat appends one system update and the earlier request stays the prefix of the next', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(reader());
  const ws = await workspaceWith(dir, { 'AGENTS.md': 'Use three spaces. RULE-ONE.\n' }, 3, 120);
  const { session, path } = await openWithInstructions(server, dir, ws);
  t.after(() => session.close());
  const signal = new AbortController().signal;
  await session.turn({ userText: 'Read src/f0.ts', signal });
  await writeFile(join(ws, 'AGENTS.md'), 'Use three spaces. RULE-ONE.\nAlso: RULE-TWO, answer in English.\n');
  await session.turn({ userText: 'Read src/f1.ts', signal });
  await session.turn({ userText: 'Read src/f2.ts', signal });

  const updates = session.store.tree.branch().filter((e) => e.type === 'system_update' && e.mode === 'append' && e.reason === 'instructions update');
  assert.equal(updates.length, 1, 'exactly one update for one edit (the third turn adds none)');
  const [, r1, , r2, , r3] = agentRequests(server);
  assert.ok(r1 !== undefined && r2 !== undefined && r3 !== undefined);
  assert.equal(systemText(r2), systemText(r1), 'the system prompt (the cached prefix) is not rewritten');
  assert.deepEqual(bodyOf(r2).messages.slice(0, bodyOf(r1).messages.length), bodyOf(r1).messages, 'request 1 is a prefix of request 2');
  assert.deepEqual(bodyOf(r2).tools, bodyOf(r1).tools);
  const update = messageTexts(r2).find((m) => m.includes('# Instruction update'));
  assert.ok(
    update?.includes('## AGENTS.md (changed; it now reads)\nUse three spaces. RULE-ONE.\nAlso: RULE-TWO, answer in English.'),
    'the update carries the whole new text',
  );
  assert.deepEqual(bodyOf(r3).messages.slice(0, bodyOf(r2).messages.length), bodyOf(r2).messages);
  assert.equal((await verifyFile(path)).ok, true);
  // A compaction that opens no new epoch (compact up to here) summarizes the span with the update: the update is still sent.
  const third = session.store.tree.branch().find((e) => e.type === 'user' && e.content === 'Read src/f2.ts');
  assert.ok(third !== undefined);
  assert.deepEqual(
    (await session.compactUpTo(third.id)).outcomes.map((o) => o.outcome),
    ['completed'],
  );
  await session.turn({ userText: 'Last one.', signal });
  const last = agentRequests(server).pop();
  assert.ok(last !== undefined);
  const all = messageTexts(last).join('\n');
  assert.ok(all.includes('Use three spaces. RULE-ONE.\nAlso: RULE-TWO, answer in English.'), 'the edited text is in the request after the compaction');
  assert.equal(all.split('RULE-TWO').length - 1, 1, 'exactly once');
});

test('a nested AGENTS.md applies only once the agent works under its folder, and another folder stays out', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(reader());
  const ws = await workspaceWith(dir, {
    'AGENTS.md': 'ROOT-RULE\n',
    'src/api/AGENTS.md': 'API-RULE: every handler validates input.\n',
    'src/api/handler.ts': 'export const h = 1;\n',
    'lib/AGENTS.md': 'LIB-RULE\n',
  });
  const { session } = await openWithInstructions(server, dir, ws);
  t.after(() => session.close());
  const signal = new AbortController().signal;
  await session.turn({ userText: 'Read src/f0.ts', signal });
  const before = agentRequests(server).map((r) => messageTexts(r).join('\n'));
  assert.ok(
    before.every((t) => t.includes('ROOT-RULE') && !t.includes('API-RULE') && !t.includes('LIB-RULE')),
    'outside src/api only the root file applies',
  );
  await session.turn({ userText: 'Read src/api/handler.ts', signal });
  const after = agentRequests(server).slice(before.length);
  const [ask, afterRead] = after;
  assert.ok(ask !== undefined && afterRead !== undefined);
  assert.ok(!messageTexts(ask).join('\n').includes('API-RULE'), 'not before the agent worked there');
  const update = messageTexts(afterRead).find((m) => m.includes('API-RULE'));
  assert.ok(
    update?.includes('## src/api/AGENTS.md (applies to work under src/api/) (now applies)\nAPI-RULE: every handler validates input.'),
    'the request after the read carries it as one update',
  );
  assert.ok(!agentRequests(server).some((r) => messageTexts(r).join('\n').includes('LIB-RULE')), 'lib/AGENTS.md never applies');
  await put(ws, 'src/api/other.ts', 'x');
  await session.turn({ userText: 'Read src/api/other.ts', signal });
  const updates = session.store.tree.branch().filter((e) => e.type === 'system_update' && e.reason === 'instructions update');
  assert.equal(updates.length, 1, 'working there again adds nothing');
});

test('a reopened chat keeps its instructions and mode as recorded: nothing is appended again, Ask mode stays', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(reader());
  const ws = await workspaceWith(dir, { 'AGENTS.md': 'RELOAD-RULE\n' });
  const first = await openWithInstructions(server, dir, ws, { instr: { userDir: null, mode: 'ask' } });
  await first.session.turn({ userText: 'hello', signal: new AbortController().signal });
  await first.session.close();
  const again = await openWithInstructions(server, dir, ws, { sessionPath: first.path });
  t.after(() => again.session.close());
  assert.equal(again.session.instructions?.mode, 'ask', 'the mode the transcript recorded');
  await again.session.turn({ userText: 'hello again', signal: new AbortController().signal });
  const updates = again.session.store.tree.branch().filter((e) => e.type === 'system_update' && e.mode === 'append');
  assert.deepEqual(
    updates.map((e) => (e.type === 'system_update' ? e.reason : '')),
    ['instructions'],
    'one block, no update after the reopen',
  );
  const [r1, r2] = agentRequests(server);
  assert.ok(r1 !== undefined && r2 !== undefined);
  assert.equal(systemText(r2), systemText(r1));
});

test('a chat that talked before instructions were read gets them as one update; its system prompt stays as it was', async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(reader());
  const ws = await workspaceWith(dir, { 'AGENTS.md': 'LATE-RULE\n' });
  const path = join(dir, 'old.jsonl');
  await writeSession(path, historyOf(2, 20));
  const { session } = await openWithInstructions(server, dir, ws, { sessionPath: path });
  t.after(() => session.close());
  await session.turn({ userText: 'hello', signal: new AbortController().signal });
  const r = agentRequests(server)[0];
  assert.ok(r !== undefined);
  assert.ok(!systemText(r).includes('LATE-RULE'), 'the prefix the chat had is kept');
  assert.ok(messageTexts(r).some((m) => m.startsWith('# Instruction update') && m.includes('## AGENTS.md (now applies)\nLATE-RULE')));
});
