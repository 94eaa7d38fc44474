// Subagent limits (docs/subagents.md): read-only tools and depth 1 by default, a long answer paged with the rest archived, Stop reaching every child.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { openSession, rejected, tempDir, verifyFile } from './agentHelpers.js';
import { Gate, isChild, scenario, task } from './subagentHelpers.js';

function toolNames(body: ChatBody): string[] {
  return (body.tools ?? []).map((t) => String((t as { function?: { name?: unknown } }).function?.name));
}

test('a child gets read-only tools and no task tool; an answer over the cap comes back paged and reads on from the archive', {
  timeout: 120_000,
}, async (t) => {
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 8_000 });
  t.after(() => server.close());
  const words = Array.from({ length: 1200 }, (_, i) => `w${i}`).join(' ');
  let parentStep = 0;
  server.setFallback((req) => {
    if (isChild(req.body)) return { text: `LONG ${words} END` };
    parentStep++;
    if (parentStep === 1) return { toolCalls: [task('long answer', 'CHILD: answer at length')] };
    if (parentStep === 2) {
      const id = /"subagent": "(sa_\w+)", "page": 2/.exec(JSON.stringify(req.body.messages).replace(/\\"/g, '"'))?.[1] ?? 'missing';
      return { toolCalls: [{ name: 'task', arguments: { subagent: id, page: 2 } }] };
    }
    return { text: 'Parent: read both pages.' };
  });
  // hard limit 8000 - 3000 - 1000 = 4000: one tool result is capped at 3000 characters.
  const o = await openSession(server, dir, { window: 8_000, maxOutput: 3_000 });
  const r = await o.session.turn({ userText: 'delegate', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.deepEqual(rejected(server), []);
  const child = server.chatRequests.find((q) => isChild(q.body as ChatBody));
  assert.ok(child);
  assert.deepEqual(toolNames(child.body as ChatBody).sort(), ['list_files', 'read_compaction_evidence', 'read_file', 'search']);
  const parent = server.chatRequests.find((q) => !isChild(q.body as ChatBody));
  assert.ok(parent && toolNames(parent.body as ChatBody).includes('task'));
  const results = (await loadSessionFile(o.path)).tree.branch().filter((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.equal(results.length, 2);
  const [first, second] = results;
  assert.ok(first?.type === 'tool_result' && second?.type === 'tool_result');
  assert.ok(first.content.startsWith('LONG w0 '));
  assert.match(first.content, /\[Subagent answer, page 1 of \d+\. Read on with task \{"subagent": "sa_\w+", "page": 2\}\.\]$/);
  assert.ok(first.content.length < 3_200, `bounded: ${first.content.length}`);
  assert.equal(second.isError, false);
  assert.match(second.content, /^w\d+/);
  assert.match(second.content, /\[Page 2 of \d+/);
});

test('Stop while two children run: both are cancelled, every call is answered, and the next turn is valid on a strict server', {
  timeout: 120_000,
}, async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.txt'), 'a\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const hanging = new Gate(2);
  server.setFallback(
    scenario({
      parentCalls: [task('one', 'CHILD-1: wait'), task('two', 'CHILD-2: wait')],
      child: () => {
        hanging.arrive();
        return { hang: true };
      },
    }),
  );
  const o = await openSession(server, dir);
  const ctrl = new AbortController();
  const turn = o.session.turn({ userText: 'delegate and stop', signal: ctrl.signal });
  await hanging.wait('both children asked the model');
  ctrl.abort();
  const r = await turn;
  assert.equal(r.status, 'cancelled');
  const load = await loadSessionFile(o.path);
  const ends = load.tree.entries().filter((e) => e.type === 'turn_end' && e.subagent !== undefined);
  assert.equal(ends.length, 2);
  assert.ok(
    ends.every((e) => e.type === 'turn_end' && e.status === 'cancelled'),
    'each child ended cancelled',
  );
  const results = load.tree.branch().filter((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.equal(results.length, 2);
  server.reset();
  server.setFallback(() => ({ text: 'after the stop' }));
  const next = await o.session.turn({ userText: 'go on', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(next.status, 'completed', next.error);
  assert.deepEqual(rejected(server), []);
  const report = await verifyFile(o.path);
  assert.ok(report.ok, report.issues.map((i) => i.message).join('; '));
});

test('maxConcurrent 1 runs the children one after the other; maxRequests stops a child with a clear error and the parent goes on', {
  timeout: 120_000,
}, async (t) => {
  const dir = await tempDir(t);
  for (const n of [1, 2, 3, 4]) await writeFile(join(dir, `f${n}.txt`), `${n}\n`);
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const steps = new Map<string, number>();
  server.setFallback(
    scenario({
      parentCalls: [task('first', 'CHILD-A: read four files'), task('second', 'CHILD-B: read four files')],
      parentAnswer: 'Parent: carried on.',
      child: (prompt) => {
        const n = (steps.get(prompt) ?? 0) + 1;
        steps.set(prompt, n);
        return { toolCalls: [{ name: 'read_file', arguments: { path: `f${n}.txt` } }] };
      },
    }),
  );
  const o = await openSession(server, dir, { subagents: { settings: { maxConcurrent: 1, maxRequests: 2 } } });
  const r = await o.session.turn({ userText: 'delegate twice', signal: new AbortController().signal });
  await o.session.close();
  assert.equal(r.status, 'completed', r.error);
  assert.equal(r.answer, 'Parent: carried on.');
  // One slot: every request of the first child comes before any of the second.
  const order = server.chatRequests
    .filter((q) => isChild(q.body as ChatBody))
    .map((q) => (JSON.stringify((q.body as ChatBody).messages).includes('CHILD-A') ? 'A' : 'B'));
  assert.deepEqual(order, ['A', 'A', 'B', 'B']);
  const results = (await loadSessionFile(o.path)).tree.branch().filter((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.equal(results.length, 2);
  for (const e of results) {
    assert.ok(e.type === 'tool_result' && e.isError);
    assert.match(e.content, /stopped without an answer: it reached its limit of 2 model requests \(capsule\.subagents\.maxRequests\)/);
  }
});
