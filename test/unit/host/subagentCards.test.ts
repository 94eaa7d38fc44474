// The subagent card (docs/subagents.md#seeing-them): a parent that calls task twice gets two cards that follow the children live and end with their status, requests and tokens; the transcript comes on demand; the chat's meter holds none of a child's context.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview, SubagentView, ToolItem } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { scenario, task } from '../agent/subagentHelpers.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.subagents.maxConcurrent': 2,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

/** A file the reading child loads whole: its context grows by it, the chat's must not. */
const BIG = Array.from({ length: 160 }, (_, i) => `line ${i}: CHILD-ONLY ${'lorem ipsum dolor sit amet '.repeat(2)}`).join('\n');

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'big.txt'), `${BIG}\n`);
  server.setFallback(
    scenario({
      parentCalls: [task('read the big file', 'CHILD-R: read big.txt and report'), task('go in circles', 'CHILD-L: list the folder')],
      parentAnswer: 'Parent: one report, one stop.',
      child: (prompt, req) => {
        // The looping child asks for the same listing until its loop guard stops it.
        if (prompt.startsWith('CHILD-L')) return { toolCalls: [{ name: 'list_files', arguments: { path: '.' } }] };
        return req.body.messages.some((m) => m.role === 'tool')
          ? { text: 'Report: big.txt has 160 lines.' }
          : { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] };
      },
    }),
  );
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function cards(ms: readonly HostToWebview[]): (ToolItem & { subagent: SubagentView })[] {
  const out: (ToolItem & { subagent: SubagentView })[] = [];
  const add = (i: unknown): void => {
    const t = i as ToolItem;
    if (t.kind === 'tool' && t.subagent !== undefined) out.push({ ...t, subagent: t.subagent });
  };
  for (const m of ms) {
    if (m.type === 'itemsAppended') m.items.forEach(add);
    else if (m.type === 'itemUpdated') add(m.item);
    else if (m.type === 'snapshot') m.transcript.items.forEach(add);
  }
  return out;
}

test('two task calls: two cards, live while they run, final with status, requests and tokens; the snapshot agrees', { timeout: 180_000 }, async () => {
  const mark = v.mark();
  v.send({ type: 'send', text: 'delegate two things', clientId: 'c_1' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn to finish', 30_000);
  const live = cards(v.since(mark));
  // While they ran, each card said so and counted its requests as they came.
  for (const d of ['read the big file', 'go in circles']) {
    assert.ok(
      live.some((c) => c.subagent.description === d && c.subagent.status === 'running' && c.subagent.requests >= 1),
      `a live card for "${d}"`,
    );
  }

  const m2 = v.mark();
  v.send({ type: 'ready' });
  await until(() => v.since(m2).some((m) => m.type === 'snapshot'), 'a snapshot');
  const snap = lastOf(v.since(m2), 'snapshot');
  assert.ok(snap);
  const final = cards([snap]);
  assert.equal(final.length, 2, JSON.stringify(final));
  const read = final.find((c) => c.subagent.description === 'read the big file');
  const loop = final.find((c) => c.subagent.description === 'go in circles');
  assert.ok(read && loop);
  assert.equal(read.subagent.status, 'done');
  assert.equal(read.subagent.requests, 2);
  assert.ok(read.subagent.tokens > 0 && read.subagent.contextTokens > 0);
  assert.equal(read.subagent.contextWindow, 20_000);
  assert.match(read.resultPreview ?? '', /Report: big\.txt has 160 lines\./);
  assert.equal(loop.subagent.status, 'stopped');
  assert.match(loop.subagent.reason ?? '', /loop/);
  assert.equal(loop.subagent.requests, 3);
  assert.ok(loop.subagent.tokens > 0);

  // The chat's meter counts what the parent sends: none of the file the child read.
  assert.ok(snap.budget);
  const fileTokens = BIG.length / 4;
  assert.ok(read.subagent.contextTokens > fileTokens * 0.8, `the child's context holds the file (${read.subagent.contextTokens})`);
  assert.ok(snap.budget.categories.toolResults < fileTokens / 4, `the chat's tool results hold only the answers (${snap.budget.categories.toolResults})`);
  assert.ok(snap.budget.effectiveTokens < read.subagent.contextTokens + loop.subagent.contextTokens, "the children's contexts are not added to the chat's");

  // The transcript, on demand: the child's prompt, its tool call with the result, its answer.
  const m3 = v.mark();
  v.send({ type: 'subagentTranscript', itemId: read.id, page: 1 });
  await until(() => v.since(m3).some((m) => m.type === 'subagentTranscript'), 'the transcript page');
  const page = lastOf(v.since(m3), 'subagentTranscript');
  assert.ok(page);
  assert.equal(page.itemId, read.id);
  assert.deepEqual(
    page.lines.map((l) => l.kind),
    ['user', 'tool', 'assistant'],
  );
  assert.match(page.lines[0]?.text ?? '', /CHILD-R/);
  assert.equal(page.lines[1]?.name, 'read_file');
  assert.match(page.lines[1]?.text ?? '', /CHILD-ONLY/);
  // The chat itself still never shows the child's own messages.
  assert.doesNotMatch(JSON.stringify(snap.transcript), /CHILD-ONLY/);
});

test('a subagent that compacts: its card says "compacting" while it does, then done with the compaction counted', { timeout: 180_000 }, async () => {
  for (const i of [1, 2, 3]) writeFileSync(join(h.workspace, `fill${i}.txt`), `file ${i}: some line of text that fills the window quickly\n`.repeat(150));
  let overflowed = false;
  server.setFallback(
    scenario({
      parentCalls: [task('read three files', 'CHILD-C: read fill1..3.txt and summarize')],
      parentAnswer: 'Parent: summarized.',
      child: (_prompt, req) => {
        const rounds = req.body.messages.filter((m) => m.role === 'tool').length;
        // The provider refuses the third request as too long: the subagent compacts its own context and goes on.
        if (rounds === 2 && !overflowed) {
          overflowed = true;
          return { contextOverflow: true };
        }
        if (rounds < 3 && !JSON.stringify(req.body.messages).includes('What did we do so far'))
          return { toolCalls: [{ name: 'read_file', arguments: { path: `fill${rounds + 1}.txt` } }] };
        return { text: 'Report: many repeated lines.' };
      },
    }),
  );
  const mark = v.mark();
  v.send({ type: 'send', text: 'delegate the reading', clientId: 'c_2' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn to finish', 30_000);
  assert.ok(overflowed);
  const seen = cards(v.since(mark)).filter((c) => c.subagent.description === 'read three files');
  const states = seen.map((c) => c.subagent.status);
  assert.ok(states.includes('running') && states.includes('compacting'), states.join(' → '));
  assert.ok(states.indexOf('running') < states.indexOf('compacting'));
  const last = seen[seen.length - 1];
  assert.equal(last?.subagent.status, 'done');
  assert.ok((last?.subagent.compactions ?? 0) >= 1);
  // The chat itself did not compact: no compaction item, no barrier of its own.
  assert.ok(!v.since(mark).some((m) => m.type === 'barrier' || (m.type === 'itemsAppended' && m.items.some((i) => i.kind === 'compaction'))));
});
