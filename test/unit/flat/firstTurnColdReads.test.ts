// Structural: with compact history (docs/loading.md), opening a chat, its first turn and a compaction read as many lines back from the file at 100k entries as at 20k (no walk of the whole branch).
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
  /** Lines read back by a compaction after it (plan, ledger, new epoch base, skill section). */
  readonly compaction: number;
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
    // A small kept tail, so the compaction below has something to summarize.
    settings: { keepRecentTokens: 1000 },
    instructionFiles: { userDir: null },
  });
  t.after(() => session.close());
  session.budget();
  JSON.stringify(new TranscriptView().page(store, session.basis()));
  const open = store.tree.coldReads;
  const r = await session.agent.runTurn({ userText: 'read the notes', signal: new AbortController().signal });
  assert.equal(r.status, 'completed', r.error);
  session.budget();
  const turn = store.tree.coldReads - open;
  const c = await session.compact({});
  assert.equal(c.outcomes[0]?.outcome, 'completed', JSON.stringify(c.outcomes[0]));
  return { open, turn, compaction: store.tree.coldReads - open - turn };
}

// 20k, not 1k: at 1k the whole file is the tail read first, so nothing is read back; 20k and 100k end alike (4 entries
// after a compaction), so the page, its cards, the meter and the turn reach equally far back into the compact part.
test('opening a chat with compact history, its first turn and a compaction read no more lines back at 100k entries than at 20k', {
  timeout: 300_000,
}, async (t) => {
  const small = await readsAt(t, 20_000);
  const large = await readsAt(t, 100_000);
  t.diagnostic(
    `lines read back on open: ${small.open} at 20k, ${large.open} at 100k; by the first turn: ${small.turn} at 20k, ${large.turn} at 100k; by a compaction: ${small.compaction} at 20k, ${large.compaction} at 100k`,
  );
  const bound = (x: number): number => Math.ceil(x * 1.2) + 50;
  assert.ok(large.open <= bound(small.open), `opening reads ${large.open} lines back at 100k vs ${small.open} at 20k`);
  assert.ok(large.turn <= bound(small.turn), `the first turn reads ${large.turn} lines back at 100k vs ${small.turn} at 20k`);
  assert.ok(large.compaction <= bound(small.compaction), `a compaction reads ${large.compaction} lines back at 100k vs ${small.compaction} at 20k`);
});
