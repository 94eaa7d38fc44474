// The webview's transcript built live from a chat's updates equals the snapshot a reloaded view gets: one projection of the store.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { isSummaryRequest, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';
import { replayItems } from './webviewReplay.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'big-model',
    'capsule.compaction.safetyReserveTokens': 500,
    'capsule.compaction.keepRecentTokens': 300,
    'capsule.compaction.minReclaimableTokens': 300,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

const LONG = Array.from({ length: 60 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented and its tests pass.`).join('\n');

before(async () => {
  server = await startFakeOpenAI({
    models: [
      { id: 'big-model', contextLength: 24_000 },
      { id: 'small-model', contextLength: 8_000 },
    ],
  });
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: GOOD_SUMMARY } : { text: LONG }));
  writeFileSync(join(h.workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const turn = (text: string): Promise<HostToWebview[]> => turnOn(v, text);

/** What `v` built since `mark` without a new snapshot equals what a freshly opened view is sent now. */
async function agrees(mark: number, stage: string): Promise<void> {
  assert.equal(v.since(mark).filter((m) => m.type === 'snapshot').length, 0, `${stage}: shown by live updates only`);
  const live = replayItems(v.messages());
  // A reloaded webview says `ready` again and gets a fresh snapshot.
  const reload = v.mark();
  v.send({ type: 'ready' });
  await until(() => lastOf(v.since(reload), 'snapshot') !== undefined, 'the reloaded view');
  const snapshot = lastOf(v.since(reload), 'snapshot');
  assert.deepEqual(live, snapshot?.transcript.items, `${stage}: live items equal a fresh snapshot (ids, timestamps, cards included)`);
}

test('tool calls, a compaction and a model switch: what the view built live is what a reloaded view is sent', async () => {
  let mark = v.mark();
  server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The notes list three words.' });
  await turn('Read notes.txt');
  for (const n of [1, 2, 3]) await turn(`Report every finding of set ${n}.`);
  assert.ok(
    replayItems(v.messages()).some((i) => i.kind === 'tool' && i.status === 'ok' && i.resultPreview?.includes('beta') === true),
    'the tool finished with its result',
  );
  await agrees(mark, 'tool calls and answers');

  mark = v.mark();
  await turn('/compact the findings');
  assert.ok(
    v.since(mark).some((m) => m.type === 'barrier' && m.phase === 'end' && m.result?.outcome === 'completed'),
    'the compaction completed',
  );
  const kinds = new Set(replayItems(v.since(mark)).map((i) => i.kind));
  assert.ok(kinds.has('checkpoint') && kinds.has('compaction'), 'the checkpoint and the card arrived live');
  await agrees(mark, 'the compaction');

  v.send({ type: 'selectModel', id: 'small-model' });
  await until(() => lastOf(v.messages(), 'snapshot')?.currentModelId === 'small-model', 'the switch');
  assert.ok(
    replayItems(v.messages()).some((i) => i.kind === 'info' && i.text.includes('small-model')),
    'the switch is announced',
  );
  mark = v.mark();
  await turn('Anything else?');
  assert.ok(!replayItems(v.messages()).some((i) => i.kind === 'assistant' && i.streaming === true), 'no answer is left streaming');
  await agrees(mark, 'a turn after the switch');
});
