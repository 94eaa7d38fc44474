// A /compact that fell back to the simpler summary writes no Project Memory: the chat says so and why, and Show Project Memory does not lead with "Stop Inheriting".
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isSummaryRequest, startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 64_000,
    'capsule.model.maxOutputTokens': 1_500,
    'capsule.compaction.keepRecentTokens': 1_000,
    'capsule.compaction.minTokensForAutoCompact': 0,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;
const LONG = Array.from({ length: 80 }, (_, i) => `Finding ${i}: module ${i % 7} behaves as documented and its tests pass.`).join('\n');

before(async () => {
  server = await startFakeOpenAI({ window: 64_000 });
  // The model answers every summary request with something that is not a capsule: the compaction falls back.
  server.setFallback((req) => (isSummaryRequest(req.body) ? { text: 'Sure! Here is a summary: things happened.' } : { text: LONG }));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const infos = (): string[] => v.messages().flatMap((m) => (m.type === 'itemsAppended' ? m.items.flatMap((i) => (i.kind === 'info' ? [i.text] : [])) : []));

test('a degraded /compact says it wrote no Project Memory and why; the dialog explains it and offers no "Stop Inheriting"', async () => {
  for (const t of ['Read the parser', 'Check the lexer', 'Fix the printer']) await turnOn(v, t);
  await turnOn(v, '/compact');
  await until(() => infos().some((t) => t.startsWith('Project Memory was')), 'the Project Memory line');
  const line = infos().find((t) => t.startsWith('Project Memory was')) ?? '';
  assert.match(line, /^Project Memory was not written: the model's summary could not be used/);
  assert.match(line, /only a full-quality summary becomes Project Memory/);
  assert.equal(existsSync(join(h.storage, 'project-memory.capsule.md')), false);

  await h.command('capsule.showProjectMemory');
  const dialog = h.state.asked.filter((a) => a.kind === 'modal').at(-1);
  assert.equal(dialog?.prompt, 'There is no Project Memory yet');
  assert.match(dialog?.detail ?? '', /^Your last \/compact wrote none: the model's summary could not be used/);
  assert.deepEqual(dialog?.options ?? [], [], 'nothing to stop inheriting: no toggle leads the dialog');
});
