// Structural: a turn, and the meter after each appended entry, visit as many entries at 100k as at 1k (no walk of the whole branch per turn).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, openSession, tempDir } from '../agent/agentHelpers.js';
import { countVisits, writeLongSession } from '../../support/longSession.js';

interface Costs {
  /** Entries visited by one whole turn (a tool call, its result, an answer) through AgentSession. */
  readonly turn: number;
  /** Entries visited by the meter's budget after one appended entry, the worst of the turn's appends. */
  readonly meterPerEntry: number;
  readonly appended: number;
}

async function costsAt(t: Parameters<typeof tempDir>[0] & { after(fn: () => unknown): void }, n: number): Promise<Costs> {
  const dir = await tempDir(t, 'capsule-flat-');
  await writeFile(join(dir, 'notes.txt'), 'a small file the agent reads\n');
  // The chat reads instruction files as the VS Code host does: kept in step before every request.
  await writeFile(join(dir, 'AGENTS.md'), 'Answer briefly.\n');
  const path = join(dir, 'chat.jsonl');
  await writeLongSession(path, n, dir);
  const server = await startFakeOpenAI({ window: 128_000 });
  t.after(() => server.close());
  server.setFallback(agentResponder(() => [{ name: 'read_file', arguments: { path: 'notes.txt' } }], 'It is a small file.'));
  const { session } = await openSession(server, dir, { sessionPath: path, window: 128_000, maxOutput: 4096, settings: {}, instructionFiles: { userDir: null } });
  t.after(() => session.close());
  // The first turn writes what a session writes once (its model entry, its epoch base): not per-turn work.
  const warm = await session.agent.runTurn({ userText: 'warm up', signal: new AbortController().signal });
  assert.equal(warm.status, 'completed', warm.error);
  const counter = countVisits(session.store.tree);
  let meterPerEntry = 0;
  let appended = 0;
  // The chat's meter recomputes after every appended entry; measure it there, apart from the turn's own cost.
  const unlisten = session.store.onAppended(() => {
    const before = counter.reset();
    session.budget();
    meterPerEntry = Math.max(meterPerEntry, counter.reset());
    counter.visits.total = before;
    appended++;
  });
  counter.reset();
  const r = await session.agent.runTurn({ userText: 'read the notes', signal: new AbortController().signal });
  unlisten();
  assert.equal(r.status, 'completed', r.error);
  return { turn: counter.reset(), meterPerEntry, appended };
}

test('a whole turn and the meter per appended entry visit no more entries at 100k than at 1k', { timeout: 300_000 }, async (t) => {
  const small = await costsAt(t, 1_000);
  const large = await costsAt(t, 100_000);
  assert.ok(small.appended >= 4, `a turn appends at least a checkpoint, the message, the call, its result and the answer (${small.appended})`);
  assert.equal(large.appended, small.appended, 'the same turn appends the same entries');
  t.diagnostic(`visits per turn: ${small.turn} at 1k, ${large.turn} at 100k; meter per appended entry: ${small.meterPerEntry} at 1k, ${large.meterPerEntry} at 100k`);
  const bound = (x: number): number => Math.ceil(x * 1.5) + 50;
  assert.ok(large.turn <= bound(small.turn), `a turn visits ${large.turn} entries at 100k vs ${small.turn} at 1k`);
  assert.ok(large.meterPerEntry <= bound(small.meterPerEntry), `the meter visits ${large.meterPerEntry} entries per appended entry at 100k vs ${small.meterPerEntry} at 1k`);
});
