// The 60-turn scenario through `capsule chat`: large tool outputs cross a 65k window many times and the server never rejects a request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { flightLogFor } from '../../src/cli/commands/compact.js';
import { main } from '../../src/cli/main.js';
import type { CapsuleEntry } from '../../src/engine/transcript/schema.js';
import { readFlightRecords } from '../../src/node/flightRecorder.js';
import { startFakeOpenAI, type ChatBody, type ChatRequestView, type ScriptedReply } from '../fakes/openaiServer.js';
import { entriesOf, GOOD_SUMMARY, makeWorkspace, tempDir } from '../unit/agent/agentHelpers.js';

const TURNS = 60;
const WINDOW = 65_000;
const MAX_OUTPUT = 8_000;

/** Each turn: read one module, run a command printing another, answer. Two multi-KB tool outputs a turn. */
function scriptedModel(req: ChatRequestView): ScriptedReply {
  const body = req.body;
  if (body.tool_choice === 'none') return { text: GOOD_SUMMARY };
  const lastUser = body.messages.map((m) => m.role).lastIndexOf('user');
  const task = Number(/Task (\d+)/.exec(String(body.messages[lastUser]?.content ?? ''))?.[1] ?? 0);
  const results = body.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  if (results === 0) return { toolCalls: [{ name: 'read_file', arguments: { path: `src/f${task % 20}.ts` } }] };
  if (results === 1) return { toolCalls: [{ name: 'run_command', arguments: { command: `cat src/f${(task + 7) % 20}.ts && echo "exit ok"` } }] };
  return { text: `Turn ${task} done: checked src/f${task % 20}.ts.` };
}

test(`capsule chat completes a ${TURNS}-turn session that crosses a ${WINDOW}-token window many times, with zero rejected requests`, async (t) => {
  const dir = await tempDir(t, 'capsule-long-');
  const ws = await makeWorkspace(dir, 20, 130); // ~2.6k tokens per file
  const server = await startFakeOpenAI({ window: WINDOW });
  t.after(() => server.close());
  server.setFallback(scriptedModel);
  const session = join(dir, 'long.jsonl');
  const base = [
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--window',
    String(WINDOW),
    '--max-output',
    String(MAX_OUTPUT),
    '--session',
    session,
    '--workspace',
    ws,
    '--yes',
  ];

  let lastLines: string[] = [];
  for (let i = 1; i <= TURNS; i++) {
    const lines: string[] = [];
    const code = await main([...base, `Task ${i}: check the next module.`], (s) => lines.push(s));
    assert.equal(code, 0, `turn ${i}:\n${lines.join('\n')}`);
    assert.equal(lines[lines.length - 1], '[turn completed]', `turn ${i}`);
    lastLines = lines;
  }
  assert.ok(lastLines.includes(`Turn ${TURNS} done: checked src/f${TURNS % 20}.ts.`), 'the final answer arrived');

  // The server rejected nothing, and nothing it received came near its window.
  const statuses = server.chatRequests.map((r) => r.status);
  assert.deepEqual(
    statuses.filter((s) => s !== 200),
    [],
    'no request was rejected',
  );
  const largest = Math.max(...server.chatRequests.map((r) => r.promptTokens ?? 0));
  assert.ok(largest + MAX_OUTPUT <= WINDOW, `largest request ${largest} tokens`);
  assert.equal(server.chatRequests.filter((r) => (r.body as ChatBody).tool_choice !== 'none').length, TURNS * 3);

  // Every compaction completed with the model's capsule; each is in the transcript.
  const flights = await readFlightRecords(flightLogFor(session));
  assert.ok(flights.length >= 5, `crossed the window several times (${flights.length} compactions)`);
  assert.deepEqual(
    flights.filter((f) => f.outcome !== 'completed' || f.quality !== 'full'),
    [],
  );
  assert.ok(
    flights.every((f) => ['auto_threshold', 'turn_complete', 'hard_limit'].includes(f.trigger)),
    flights.map((f) => f.trigger).join(','),
  );
  const capsules = (await entriesOf(session)).filter((e): e is CapsuleEntry => e.type === 'capsule');
  assert.equal(capsules.length, flights.length);

  const verify: string[] = [];
  assert.equal(await main(['verify', session], (s) => verify.push(s)), 0, verify.join('\n'));
  const budget: string[] = [];
  await main(['budget', session, '--window', String(WINDOW), '--max-output', String(MAX_OUTPUT), '--json'], (s) => budget.push(s));
  const figures = JSON.parse(budget.join('\n')) as { effectiveTokens: number; hardLimit: number };
  assert.ok(figures.effectiveTokens <= figures.hardLimit);
});
