// Subagents (docs/subagents.md): two task calls of one batch run at once, each child over its own branch; only the answers reach the parent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import type { SubagentEvent } from '../../../src/node/subagents/subagentRunner.js';
import { openSession, rejected, tempDir, verifyFile } from './agentHelpers.js';
import { allText, Gate, isChild, scenario, task } from './subagentHelpers.js';

test('a parent calls task twice in one batch: both children run at once, the parent sees only their answers and goes on', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'alpha.txt'), 'ALPHA-SECRET-CONTENT\n');
  await writeFile(join(dir, 'beta.txt'), 'BETA-SECRET-CONTENT\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  // Each child's first request waits until the other child's first request arrived: run one after the other, they never would.
  const bothStarted = new Gate(2);
  server.setFallback(
    scenario({
      parentCalls: [task('read alpha', 'CHILD-A: read alpha.txt and report'), task('read beta', 'CHILD-B: read beta.txt and report')],
      child: async (prompt, req) => {
        const name = prompt.startsWith('CHILD-A') ? 'alpha' : 'beta';
        if (!req.body.messages.some((m) => m.role === 'tool')) {
          bothStarted.arrive();
          await bothStarted.wait('both children started');
          return { toolCalls: [{ name: 'read_file', arguments: { path: `${name}.txt` } }] };
        }
        return { text: `Report ${name}: the file holds one line.` };
      },
    }),
  );
  const events: SubagentEvent[] = [];
  const o = await openSession(server, dir, { subagents: { onEvent: (e) => events.push(e) } });
  const r = await o.session.turn({ userText: 'explore the workspace', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'Parent: both reports are in.');
  await o.session.close();

  assert.deepEqual(rejected(server), []);
  const parentBodies = server.chatRequests.filter((q) => !isChild(q.body as ChatBody)).map((q) => allText(q.body as ChatBody));
  const last = parentBodies[parentBodies.length - 1] ?? '';
  assert.match(last, /Report alpha/);
  assert.match(last, /Report beta/);
  for (const b of parentBodies) {
    assert.doesNotMatch(b, /SECRET-CONTENT/, 'a child read never reaches the parent');
    assert.doesNotMatch(b, /You are a subagent/);
  }
  // The file: the children's entries are marked and off the parent's branch; the parent's input has none of them.
  const load = await loadSessionFile(o.path);
  const all = load.tree.entries();
  const marked = all.filter((e) => e.subagent !== undefined);
  assert.equal(new Set(marked.map((e) => e.subagent?.id)).size, 2);
  const branch = load.tree.branch();
  assert.ok(branch.every((e) => e.subagent === undefined));
  const input = buildModelInput(branch, '');
  const ids = new Set(marked.map((e) => e.id));
  assert.ok(input.entryIds.every((id) => !ids.has(id)));
  // Each child entry names the parent's task call.
  const taskCalls = branch.flatMap((e) => (e.type === 'assistant' ? e.toolCalls.filter((c) => c.name === 'task').map((c) => c.id) : []));
  assert.equal(taskCalls.length, 2);
  assert.deepEqual(new Set(marked.map((e) => e.subagent?.toolCallId)), new Set(taskCalls));
  // The reads the children did join the parent's ledger through the task results' effects.
  const results = branch.filter((e) => e.type === 'tool_result' && e.toolName === 'task');
  const read = results.flatMap((e) => (e.type === 'tool_result' ? (e.effects?.read ?? []) : []));
  assert.deepEqual(read.sort(), ['alpha.txt', 'beta.txt']);
  // Progress: a start and an end per child, with their requests.
  const ends = events.filter((e): e is Extract<SubagentEvent, { type: 'subagent_end' }> => e.type === 'subagent_end');
  assert.equal(ends.length, 2);
  assert.ok(ends.every((e) => e.status === 'completed' && e.requests === 2 && e.tokens > 0));
  const report = await verifyFile(o.path);
  assert.ok(report.ok, report.issues.map((i) => i.message).join('; '));
});

test('a child that loops is stopped inside the child; the parent gets an error result and finishes its turn', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.txt'), 'a\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(
    scenario({
      parentCalls: [task('loop', 'CHILD-LOOP: read a.txt forever')],
      parentAnswer: 'Parent: the subagent failed, I carry on.',
      child: () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }),
    }),
  );
  const o = await openSession(server, dir);
  const r = await o.session.turn({ userText: 'delegate', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'Parent: the subagent failed, I carry on.');
  const load = await loadSessionFile(o.path);
  const result = load.tree.branch().find((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.ok(result?.type === 'tool_result');
  assert.equal(result.isError, true);
  assert.match(result.content, /stopped without an answer: it repeated the same tool call/);
  assert.deepEqual(rejected(server), []);
});

test('a child that hits a provider overflow recovers by its own compaction; the parent never compacts', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  for (const i of [1, 2, 3]) await writeFile(join(dir, `big${i}.txt`), `${`file ${i}: some line of text that fills the window quickly\n`.repeat(150)}`);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  let overflowed = false;
  server.setFallback(
    scenario({
      parentCalls: [task('read big', 'CHILD-BIG: read big.txt three times and summarize')],
      child: (_prompt, req) => {
        const rounds = req.body.messages.filter((m) => m.role === 'tool').length;
        if (rounds === 2 && !overflowed) {
          overflowed = true;
          return { contextOverflow: true };
        }
        if (rounds < 3 && !JSON.stringify(req.body.messages).includes('What did we do so far'))
          return { toolCalls: [{ name: 'read_file', arguments: { path: `big${rounds + 1}.txt` } }] };
        return { text: 'Report big: many repeated lines.' };
      },
    }),
  );
  const events: SubagentEvent[] = [];
  const o = await openSession(server, dir, { subagents: { onEvent: (e) => events.push(e) } });
  const r = await o.session.turn({ userText: 'delegate', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.ok(overflowed);
  const load = await loadSessionFile(o.path);
  const capsules = load.tree.entries().filter((e) => e.type === 'capsule');
  assert.ok(capsules.length >= 1, 'the child compacted');
  assert.ok(capsules.every((c) => c.subagent !== undefined && c.trigger === 'context_overflow'));
  assert.ok(
    load.tree.branch().every((e) => e.type !== 'capsule'),
    'the parent did not compact',
  );
  const result = load.tree.branch().find((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.ok(result?.type === 'tool_result' && !result.isError && result.content.includes('Report big'));
});
