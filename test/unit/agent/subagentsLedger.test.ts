// A subagent's commands and test runs join the parent's ledger (docs/subagents.md#results): the next capsule lists them like the parent's own runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSummaryRequest, startFakeOpenAI } from '../../fakes/openaiServer.js';
import { buildLedger, ledgerFromDetails } from '../../../src/engine/compaction/ledger.js';
import { effects } from '../../../src/engine/transcript/effects.js';
import { SessionBuilder } from '../compaction/sessionBuilder.js';
import { openSession, tempDir } from './agentHelpers.js';
import { scenario, task } from './subagentHelpers.js';

const TEST_RUN = 'npm test';
const FAILING = 'node -e "process.exit(3)"';

test("a child runs a failing command and a test file: the next capsule's ledger records both, with exit codes and the test verdict", {
  timeout: 120_000,
}, async (t) => {
  const dir = await tempDir(t);
  // A real test script (not node --test: this file already runs under it) that prints a runner's summary line.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'ws', private: true, scripts: { test: 'node one.mjs' } }));
  await writeFile(join(dir, 'one.mjs'), "console.log('Tests: 2 passed, 2 total');\n");
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  const script = scenario({
    parentCalls: [task('run the tests', 'CHILD-T: run the tests and report', { readOnly: false })],
    parentAnswer: 'Parent: the tests pass.',
    child: (_p, req) =>
      req.body.messages.some((m) => m.role === 'tool')
        ? { text: `The test file passes; the other command exits 3. ${'Detail of the run. '.repeat(250)}` }
        : {
            toolCalls: [
              { name: 'run_command', arguments: { command: FAILING } },
              { name: 'run_command', arguments: { command: TEST_RUN } },
            ],
          },
  });
  // A second, plain turn gives "compact up to here" a message to cut before.
  server.setFallback((req) => (!isSummaryRequest(req.body) && JSON.stringify(req.body.messages.at(-1)).includes('SECOND') ? { text: 'ok' } : script(req)));
  const o = await openSession(server, dir);
  t.after(() => o.session.close());
  const r = await o.session.turn({ userText: 'delegate the test run', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);

  // On the task's result: the child's runs as structured records.
  const result = o.session.store.tree.branch().find((e) => e.type === 'tool_result' && e.toolName === 'task');
  assert.ok(result?.type === 'tool_result');
  const runs = result.effects?.commands ?? [];
  assert.deepEqual(
    runs.map((c) => [c.command, c.exitCode, c.ok]),
    [
      [FAILING, 3, false],
      [TEST_RUN, 0, true],
    ],
  );
  assert.match(runs[1]?.summary ?? '', /2 passed/);

  // The parent's own branch holds no run_command call, yet the ledger built over it lists the child's runs.
  assert.ok(o.session.store.tree.branch().every((e) => e.type !== 'assistant' || e.toolCalls.every((c) => c.name !== 'run_command')));
  assert.equal((await o.session.turn({ userText: 'SECOND', signal: new AbortController().signal })).status, 'completed');
  const second = [...o.session.store.tree.branch()].reverse().find((e) => e.type === 'user');
  assert.ok(second);
  const compacted = await o.session.compactUpTo(second.id);
  assert.ok(
    compacted.outcomes.some((x) => x.outcome === 'completed'),
    JSON.stringify(compacted.lines),
  );
  const capsule = [...o.session.store.tree.branch()].reverse().find((e) => e.type === 'capsule');
  assert.ok(capsule?.type === 'capsule');
  const ledger = ledgerFromDetails(capsule.details);
  assert.ok(ledger);
  assert.deepEqual(
    ledger.commands.map((c) => [c.command, c.exitCode, c.ok]),
    [
      [FAILING, 3, false],
      [TEST_RUN, 0, true],
    ],
  );
  assert.equal(ledger.lastVerification?.command, TEST_RUN);
  assert.equal(ledger.lastVerification?.passed, true);
  assert.match(ledger.lastVerification?.summary ?? '', /2 passed/);
  // What the model reads of the capsule names the failed run.
  assert.match(capsule.summary, /process\.exit\(3\)/);
});

test("the ledger records a child's run once over overlapping spans, and a failing test run as the last verification", () => {
  const b = new SessionBuilder();
  b.user('go');
  b.assistant('', 10, [{ name: 'task', args: { description: 'd', prompt: 'p' }, result: 'done' }]);
  const at = b.entries.findIndex((e) => e.type === 'tool_result');
  const res = b.entries[at];
  assert.ok(res?.type === 'tool_result');
  b.entries[at] = {
    ...res,
    effects: effects({ source: 'measured', commands: [{ callId: 'c1', command: 'npm test', exitCode: 1, ok: false, summary: '3 passed, 1 failed' }] }),
  };
  const once = buildLedger(b.entries);
  const twice = buildLedger(b.entries, once);
  assert.deepEqual(
    twice.commands.map((c) => c.callId),
    ['c1'],
  );
  assert.equal(twice.lastVerification?.passed, false);
  assert.equal(twice.lastVerification?.summary, '3 passed, 1 failed');
});
