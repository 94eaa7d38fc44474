// Structural: a turn, the meter and the Checkpoints tree refresh after each appended entry, and the chat snapshot visit as many entries at 100k as at 1k (no walk of the whole branch per turn).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, openSession, tempDir } from '../agent/agentHelpers.js';
import { countVisits, writeLongSession, type Visits } from '../../support/longSession.js';
import { lineOf, type BranchLine } from '../../../src/engine/transcript/branchLine.js';
import { planFigureOf } from '../../../src/engine/compaction/planFigure.js';
import { TranscriptView } from '../../../src/vscode/projection/transcriptView.js';
import { momentIndexOf } from '../../../src/engine/transcript/momentIndex.js';
import type { SessionTree } from '../../../src/engine/transcript/tree.js';
import { newestPage } from '../../../src/vscode/views/treePages.js';

/** The branch line is a copy of the branch the views read by position: a read of it is a visit as much as one of the tree. */
function countLineVisits(line: BranchLine, visits: Visits): void {
  const at = line.at.bind(line);
  const slice = line.slice.bind(line);
  const positionOf = line.positionOf.bind(line);
  Object.assign(line, {
    // A position looked up is an entry visited: a loop over every message asking where it stands is a walk.
    positionOf: (id: string) => {
      visits.total++;
      return positionOf(id);
    },
    at: (position: number) => {
      visits.total++;
      return at(position);
    },
    slice: (from: number, to?: number) => {
      const out = slice(from, to);
      visits.total += out.length;
      return out;
    },
  });
}

/** What the Checkpoints tree reads when it refreshes the open chat's row (src/vscode/views/checkpointsTree.ts). */
function treeRefresh(tree: SessionTree): void {
  const page = newestPage(momentIndexOf(tree));
  for (const m of page.moments) if (m.message !== undefined) page.summarized(m.message.id);
}

interface Costs {
  /** Entries visited by one whole turn (a tool call, its result, an answer) through AgentSession. */
  readonly turn: number;
  /** Entries visited by the meter's budget after one appended entry, the worst of the turn's appends. */
  readonly meterPerEntry: number;
  /** Entries visited by the Checkpoints tree's refresh of the open chat after one appended entry, the worst of the turn's. */
  readonly treePerEntry: number;
  /** Entries visited by a chat snapshot after the turn (its page of items, serialized as posted, and the plan). */
  readonly snapshot: number;
  /** Entries visited by the page before the snapshot's (loadOlder). */
  readonly older: number;
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
  const { session } = await openSession(server, dir, {
    sessionPath: path,
    window: 128_000,
    maxOutput: 4096,
    settings: {},
    instructionFiles: { userDir: null },
  });
  t.after(() => session.close());
  // The first turn writes what a session writes once (its model entry, its epoch base): not per-turn work.
  const warm = await session.agent.runTurn({ userText: 'warm up', signal: new AbortController().signal });
  assert.equal(warm.status, 'completed', warm.error);
  const store = session.store;
  const basis = session.basis();
  const view = new TranscriptView();
  // The views of the open chat are built once when it opens (one walk); what follows must not walk again.
  // Posting a snapshot builds the cards of its compactions (a tokenization of the span each one summarized, bounded by the
  // interval between compactions, cached per capsule): the first snapshot builds them, as the chat does when it opens.
  treeRefresh(store.tree);
  JSON.stringify(view.page(store, basis));
  const counter = countVisits(store.tree);
  countLineVisits(lineOf(store.tree), counter.visits);
  let meterPerEntry = 0;
  let treePerEntry = 0;
  let appended = 0;
  // The chat's meter and the open tree refresh after every appended entry; measure them there, apart from the turn's own cost.
  const unlisten = session.store.onAppended(() => {
    const before = counter.reset();
    session.budget();
    meterPerEntry = Math.max(meterPerEntry, counter.reset());
    treeRefresh(store.tree);
    treePerEntry = Math.max(treePerEntry, counter.reset());
    counter.visits.total = before;
    appended++;
  });
  counter.reset();
  const r = await session.agent.runTurn({ userText: 'read the notes', signal: new AbortController().signal });
  unlisten();
  assert.equal(r.status, 'completed', r.error);
  const turn = counter.reset();
  const page = view.page(store, basis);
  JSON.stringify({ transcript: page, plan: planFigureOf(store.tree).plan() });
  const snapshot = counter.reset();
  const first = page.items[0];
  assert.ok(first && page.hasMore, 'the snapshot is a page of a longer chat');
  // An older page the user scrolled to before (its cards built once), asked for again after the turn.
  JSON.stringify(view.older(store, basis, first.id));
  counter.reset();
  JSON.stringify(view.older(store, basis, first.id));
  const older = counter.reset();
  return { turn, meterPerEntry, treePerEntry, snapshot, older, appended };
}

test('a whole turn, the meter and the tree per appended entry, and a snapshot visit no more entries at 100k than at 1k', { timeout: 300_000 }, async (t) => {
  const small = await costsAt(t, 1_000);
  const large = await costsAt(t, 100_000);
  assert.ok(small.appended >= 4, `a turn appends at least a checkpoint, the message, the call, its result and the answer (${small.appended})`);
  assert.equal(large.appended, small.appended, 'the same turn appends the same entries');
  t.diagnostic(
    `visits per turn: ${small.turn} at 1k, ${large.turn} at 100k; meter per appended entry: ${small.meterPerEntry} at 1k, ${large.meterPerEntry} at 100k`,
  );
  t.diagnostic(
    `tree refresh per appended entry: ${small.treePerEntry} at 1k, ${large.treePerEntry} at 100k; snapshot: ${small.snapshot} at 1k, ${large.snapshot} at 100k; older page: ${small.older} at 1k, ${large.older} at 100k`,
  );
  const bound = (x: number): number => Math.ceil(x * 1.5) + 50;
  assert.ok(large.turn <= bound(small.turn), `a turn visits ${large.turn} entries at 100k vs ${small.turn} at 1k`);
  assert.ok(
    large.meterPerEntry <= bound(small.meterPerEntry),
    `the meter visits ${large.meterPerEntry} entries per appended entry at 100k vs ${small.meterPerEntry} at 1k`,
  );
  assert.ok(
    large.treePerEntry <= bound(small.treePerEntry),
    `the tree refresh visits ${large.treePerEntry} entries per appended entry at 100k vs ${small.treePerEntry} at 1k`,
  );
  assert.ok(large.snapshot <= bound(small.snapshot), `a snapshot visits ${large.snapshot} entries at 100k vs ${small.snapshot} at 1k`);
  assert.ok(large.older <= bound(small.older), `an older page visits ${large.older} entries at 100k vs ${small.older} at 1k`);
});
