// Subagents and rewind (docs/subagents.md#rewind): rewinding to before a task leaves the child's branch off the active path and restores the files it wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import { openSession, tempDir } from './agentHelpers.js';
import { isChild, scenario, task } from './subagentHelpers.js';
import { activeSubagentRuns, activeSubagentRunsOf } from '../../../src/engine/agent/subagentResult.js';

test('rewind to before a task: the child is off the active path, its file changes are undone, /budget lists no run', { timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.ts'), 'export const a = 1;\n');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(
    scenario({
      parentCalls: [task('edit a', 'CHILD-W: change a.ts and add b.ts', { readOnly: false })],
      child: (_p, req) =>
        req.body.messages.some((m) => m.role === 'tool')
          ? { text: 'Changed a.ts, added b.ts.' }
          : {
              toolCalls: [
                { name: 'write_file', arguments: { path: 'a.ts', content: 'export const a = 2;\n' } },
                { name: 'write_file', arguments: { path: 'b.ts', content: 'export const b = 1;\n' } },
              ],
            },
    }),
  );
  const o = await openSession(server, dir);
  t.after(() => o.session.close());
  const r = await o.session.turn({ userText: 'delegate the edit', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 2;\n');
  assert.ok(existsSync(join(dir, 'b.ts')));
  // readOnly false: writes and commands, each through the same approval; never task (depth 1) or checkpoint.
  const childTools =
    (server.chatRequests.find((q) => isChild(q.body as ChatBody))?.body as ChatBody | undefined)?.tools?.map((x) =>
      String((x as { function?: { name?: unknown } }).function?.name),
    ) ?? [];
  assert.ok(childTools.includes('write_file') && childTools.includes('run_command'));
  assert.ok(!childTools.includes('task') && !childTools.includes('checkpoint'));
  const runs = o.session.subagentRuns();
  assert.equal(runs.length, 1);
  // Read from the runs' own lines (their anchor on the branch line) = the reference fold of every entry and the branch.
  const tree = o.session.store.tree;
  assert.deepEqual(activeSubagentRunsOf(tree), activeSubagentRuns(tree.entries(), tree.branch()));
  const anchor = tree.entries().find((e) => e.subagent !== undefined)?.subagent?.anchorId;
  assert.equal(tree.get(anchor ?? '')?.type, 'assistant', 'the child names the answer holding its task call');
  assert.equal(runs[0]?.description, 'edit a');
  assert.equal(runs[0]?.requests, 2);
  // The child's writes joined the parent's ledger through the task result's measured effects.
  const result = o.session.store.tree.branch().find((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.ok(result?.type === 'tool_result');
  assert.deepEqual(result.effects?.modified, ['a.ts']);
  assert.deepEqual(result.effects?.created, ['b.ts']);

  const user = o.session.store.tree.branch().find((e) => e.type === 'user');
  assert.ok(user);
  const rw = await o.session.rewind(user.id);
  assert.ok(rw.ok, rw.ok ? '' : rw.error);
  assert.equal(await readFile(join(dir, 'a.ts'), 'utf8'), 'export const a = 1;\n');
  assert.equal(existsSync(join(dir, 'b.ts')), false);
  const branch = o.session.store.tree.branch();
  assert.ok(branch.every((e) => e.subagent === undefined && !(e.type === 'tool_result' && e.toolName === 'task')));
  assert.deepEqual(o.session.subagentRuns(), []);
  assert.deepEqual(activeSubagentRunsOf(tree), activeSubagentRuns(tree.entries(), tree.branch()));
  assert.ok(buildModelInput(branch, '').messages.every((m) => !m.content.includes('CHILD-W')));

  // The chat goes on from there.
  const again = await o.session.turn({ userText: 'hello again', signal: new AbortController().signal });
  assert.equal(again.status, 'completed', again.error);
});
