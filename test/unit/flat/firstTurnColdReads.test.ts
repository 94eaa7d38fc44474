// Structural: with compact history (docs/loading.md), opening a chat and its first turn read as many lines back from the file at 100k entries as at 1k (no walk of the whole branch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, openSession, tempDir } from '../agent/agentHelpers.js';
import { writeLongSession } from '../../support/longSession.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { TranscriptView } from '../../../src/vscode/projection/transcriptView.js';

interface Reads {
  /** Lines read back while opening the chat (the agent's start, its budget, the chat's first page). */
  readonly open: number;
  /** Lines read back by the first turn (a tool call, its result, an answer). */
  readonly turn: number;
}

async function readsAt(t: Parameters<typeof tempDir>[0] & { after(fn: () => unknown): void }, n: number): Promise<Reads> {
  const dir = await tempDir(t, 'capsule-cold-');
  await writeFile(join(dir, 'notes.txt'), 'a small file the agent reads\n');
  await writeFile(join(dir, 'AGENTS.md'), 'Answer briefly.\n');
  const path = join(dir, 'chat.jsonl');
  await writeLongSession(path, n, dir);
  const server = await startFakeOpenAI({ window: 128_000 });
  t.after(() => server.close());
  server.setFallback(agentResponder(() => [{ name: 'read_file', arguments: { path: 'notes.txt' } }], 'It is a small file.'));
  const store = await JsonlSessionStore.open(path, { tailFirst: true, compactHistory: true });
  t.after(() => store.close());
  await store.whenIndexed();
  assert.ok(store.tree.size >= n, `the whole file is indexed (${store.tree.size})`);
  const { session } = await openSession(server, dir, {
    sessionPath: path,
    store,
    window: 128_000,
    maxOutput: 4096,
    settings: {},
    instructionFiles: { userDir: null },
  });
  t.after(() => session.close());
  session.budget();
  JSON.stringify(new TranscriptView().page(store, session.basis()));
  const open = store.tree.coldReads;
  const r = await session.agent.runTurn({ userText: 'read the notes', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  session.budget();
  return { open, turn: store.tree.coldReads - open };
}

// Gated: today the chat's first page reads the whole history back several times over (BranchLine and BranchIndex call
// tree.entries(), which reads every compact line), so at 100k this runs for hours; docs/loading.md lists the walks.
// Run it with CAPSULE_COLD_READS=1 once they are gone, then drop the gate.
const gate =
  process.env.CAPSULE_COLD_READS === '1'
    ? {}
    : { skip: 'compact history still walks the branch on open (docs/loading.md#compact-history); CAPSULE_COLD_READS=1 runs it' };

test('opening a chat with compact history and its first turn read no more lines back at 100k entries than at 1k', { timeout: 300_000, ...gate }, async (t) => {
  const small = await readsAt(t, 1_000);
  const large = await readsAt(t, 100_000);
  t.diagnostic(`lines read back on open: ${small.open} at 1k, ${large.open} at 100k; by the first turn: ${small.turn} at 1k, ${large.turn} at 100k`);
  const bound = (x: number): number => Math.ceil(x * 1.5) + 50;
  assert.ok(large.open <= bound(small.open), `opening reads ${large.open} lines back at 100k vs ${small.open} at 1k`);
  assert.ok(large.turn <= bound(small.turn), `the first turn reads ${large.turn} lines back at 100k vs ${small.turn} at 1k`);
});
