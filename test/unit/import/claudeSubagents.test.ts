// A Claude Code session whose Task call ran a sidechain imports it as that call's subagent (docs/session-format.md#subagents) and continues on a strict server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importTranscript } from '../../../src/engine/import/importTranscript.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { SessionTree } from '../../../src/engine/transcript/tree.js';
import { writeImportedSession } from '../../../src/node/importSession.js';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { allText } from '../agent/subagentHelpers.js';
import { openSession, rejected, tempDir, verifyFile } from '../agent/agentHelpers.js';

const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'import', 'claude-code.jsonl');

test('claude-code: the sidechain of a Task call becomes its subagent, off the main path; the chat continues', { timeout: 120_000 }, async (t) => {
  let i = 0;
  const r = importTranscript(readFileSync(FIXTURE, 'utf8'), {
    sessionId: 's1',
    cwd: '/elsewhere',
    now: '2025-01-01T00:00:00.000Z',
    ids: { next: (p) => `${p}${++i}` },
  });
  const side = r.entries.filter((e) => e.subagent !== undefined);
  assert.equal(side.length, 3);
  assert.ok(side.every((e) => e.subagent?.id === 'sa_a1b2c3'));
  const task = r.entries.find((e) => e.type === 'assistant' && e.toolCalls.some((c) => c.name === 'Task'));
  assert.ok(task?.type === 'assistant');
  const callId = task.toolCalls[0]?.id;
  assert.ok(side.every((e) => e.subagent?.toolCallId === callId));
  assert.equal(side[0]?.parentId, null, 'the child starts at its own root');
  assert.equal(side[0]?.subagent?.anchorId, task.id);
  assert.ok(!r.entries.some((e) => e.type === 'leaf'), 'no leaf move is needed: marked entries never move the leaf');
  const tree = SessionTree.from(r.entries);
  const input = buildModelInput(tree.branch(), '');
  assert.ok(
    input.messages.every((m) => m.role !== 'assistant' || !(m.toolCalls ?? []).some((c) => c.id === 'toolu_S1')),
    "the sidechain's calls are not in the parent's input",
  );
  assert.ok(input.messages.some((m) => m.content.includes('Now also handle leap years')));

  const dir = await tempDir(t);
  const path = join(dir, 'imported.jsonl');
  await writeImportedSession(path, r, (p) => `${p}${++i}`);
  const server = await startFakeOpenAI({ window: 64_000 });
  t.after(() => server.close());
  server.setFallback(() => ({ text: 'Continuing the imported work.' }));
  const o = await openSession(server, dir, { sessionPath: path, window: 64_000, maxOutput: 4_000 });
  assert.deepEqual(
    o.session.subagentRuns().map((run) => [run.id, run.requests]),
    [['sa_a1b2c3', 1]],
  );
  const turn = await o.session.turn({ userText: 'what next?', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(turn.status, 'completed', turn.error);
  assert.deepEqual(rejected(server), []);
  for (const q of server.chatRequests) assert.doesNotMatch(allText(q.body as ChatBody), /toolu_S1/);
  const report = await verifyFile(path);
  assert.ok(report.ok, report.issues.map((x) => x.message).join('; '));
});
