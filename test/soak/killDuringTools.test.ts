// A CLI SIGKILLed between a tool call and its result never wedges the chat: the next turn against a strict server succeeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeOpenAI, type ChatRequestView, type FakeOpenAIServer, type ScriptedReply } from '../fakes/openaiServer.js';
import { cliBundle } from '../unit/cli/cliBundle.js';
import { entriesOf, openSession, rejected, tempDir, verifyFile } from '../unit/agent/agentHelpers.js';

/** CAPSULE_KILLS raises or lowers the number of kills (the figure is 100 of 100). */
const KILLS = Number(process.env.CAPSULE_KILLS ?? 100);
/** The tool batch below takes at least this long, so a kill this soon after the call lands before its last result. */
const BATCH_MS = 600;

/** The scripted model: every task turn asks for three tools (the middle one slow); the follow-up turn gets an answer. */
function responder(req: ChatRequestView): ScriptedReply {
  const users = req.body.messages.filter((m) => m.role === 'user');
  const last = String(users[users.length - 1]?.content ?? '');
  if (last.startsWith('next')) return { text: 'The previous work was interrupted; continuing.' };
  return {
    toolCalls: [
      { name: 'list_files', arguments: { path: '.' } },
      { name: 'run_command', arguments: { command: `sleep ${BATCH_MS / 1000}; echo slept` } },
      { name: 'read_file', arguments: { path: 'notes.txt' } },
    ],
  };
}

async function hasOpenCall(path: string): Promise<boolean> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.includes('"toolCalls":[{');
}

/** Kills run in lanes at once: each iteration mostly waits (child start, the slow tool, lock reclaim), not computes. */
const LANES = 4;

test(`SIGKILL at random points between tool calls and their results, then a next turn: ${KILLS} of ${KILLS} continue`, { timeout: 1_800_000 }, async (t) => {
  const dir = await tempDir(t, 'capsule-kill-');
  await writeFile(join(dir, 'notes.txt'), 'remember the milk\n');
  const cli = await cliBundle();
  let seed = Number(process.env.CAPSULE_PBT_SEED ?? 20261201);
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  let continued = 0;
  const failures: string[] = [];

  const once = async (server: FakeOpenAIServer, k: number): Promise<void> => {
    const session = join(dir, `s${k}.jsonl`);
    server.reset();
    server.setFallback(responder);
    const child = spawn(
      process.execPath,
      [
        cli,
        'chat',
        '--base-url',
        server.url,
        '--model',
        'fake-model',
        '--window',
        '60000',
        '--max-output',
        '2000',
        '--session',
        session,
        '--workspace',
        dir,
        '--yes',
        'do the work',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let gone = false;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => ((gone = true), resolve())));
    while (!(await hasOpenCall(session))) {
      // A CLI that ends before it ever calls a tool would make this wait forever: that is a failure, not a kill.
      if (gone) throw new Error(`kill ${k}: the CLI exited before its first tool call: ${stderr.trim().slice(0, 300)}`);
      await sleep(5);
    }
    await sleep(Math.floor(random() * (BATCH_MS - 100)));
    child.kill('SIGKILL');
    await exited;

    server.reset();
    server.setFallback(responder);
    const o = await openSession(server, dir, { sessionPath: session, window: 60_000 });
    const r = await o.session.agent.runTurn({ userText: 'next: go on', signal: new AbortController().signal });
    await o.session.close();
    const report = await verifyFile(session);
    const bad = rejected(server);
    if (r.status === 'completed' && bad.length === 0 && report.ok) continued++;
    else failures.push(`kill ${k}: ${r.status} ${r.error ?? ''}; ${bad.length} rejected; verify ${report.issues.map((i) => i.message).join(' | ')}`);
    // Repair is append-only and visible: every call the kill left open now has an "interrupted" result.
    const entries = await entriesOf(session);
    const calls = entries.flatMap((e) => (e.type === 'assistant' ? e.toolCalls.map((c) => c.id) : []));
    const results = new Set(entries.flatMap((e) => (e.type === 'tool_result' ? [e.toolCallId] : [])));
    if (calls.some((id) => !results.has(id))) failures.push(`kill ${k}: a call was left without a result`);
  };

  const lanes = Array.from({ length: Math.min(LANES, KILLS) }, async (_, lane) => {
    // Strict like OpenAI: an assistant tool_calls message not followed by a result for every id is answered 400.
    const server = await startFakeOpenAI({ window: 60_000, validateToolPairs: true });
    try {
      for (let k = lane; k < KILLS; k += LANES) await once(server, k);
    } finally {
      await server.close();
    }
  });
  await Promise.all(lanes);
  assert.deepEqual(failures.slice(0, 5), []);
  assert.equal(continued, KILLS);
});
