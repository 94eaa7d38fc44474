// The extension with a subagent: the chat shows the task call and its answer, never the child's own messages; the snapshot after it agrees.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { scenario, task } from '../agent/subagentHelpers.js';
import { closeAgentView, createHarness, openAgentView, type OpenView, turnOn, until } from './hostHarness.js';

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

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'notes.txt'), 'CHILD-ONLY-FILE-TEXT\n');
  server.setFallback(
    scenario({
      parentCalls: [task('read notes', 'CHILD: read notes.txt')],
      parentAnswer: 'Parent: the notes are read.',
      child: (_p, req) =>
        req.body.messages.some((m) => m.role === 'tool')
          ? { text: 'Child report: one line.' }
          : { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    }),
  );
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function shown(ms: readonly HostToWebview[]): string {
  return JSON.stringify(ms);
}

test('a task turn shows the parent’s call and answer only', async () => {
  const ms = await turnOn(v, 'delegate the reading');
  const text = shown(ms);
  assert.match(text, /Parent: the notes are read\./);
  assert.match(text, /Child report: one line\./, 'the task result (the child’s answer) is shown as the tool’s output');
  assert.doesNotMatch(text, /CHILD-ONLY-FILE-TEXT/, 'the child’s own read is not in the chat');
  assert.doesNotMatch(text, /CHILD: read notes\.txt"?,?"?kind"?:"?user/);
  // A fresh snapshot (a reload) shows the same: the child's entries stay off the chat.
  const mark = v.mark();
  v.send({ type: 'ready' });
  await until(() => v.since(mark).some((m) => m.type === 'snapshot'), 'a snapshot');
  const snap = shown(v.since(mark));
  assert.match(snap, /Parent: the notes are read\./);
  assert.doesNotMatch(snap, /CHILD-ONLY-FILE-TEXT/);
});
