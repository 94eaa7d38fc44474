// Instructions in the extension: AGENTS.md reaches the model, /mode ask switches to read-only (a write is refused by the tool layer), /skills lists the skills.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'fake-model',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.compaction.safetyReserveTokens': 1_000,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  writeFileSync(join(h.workspace, 'AGENTS.md'), 'HOST-RULE-5: answer briefly.\n');
  mkdirSync(join(h.workspace, '.github', 'skills', 'deploy'), { recursive: true });
  writeFileSync(join(h.workspace, '.github', 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy the app.\n---\nSteps.\n');
  server = await startFakeOpenAI({ window: 20_000 });
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
/** The lines the chat shows for a slash command (info items). */
const notices = (ms: readonly HostToWebview[]): string[] =>
  ms.flatMap((m) => (m.type === 'itemsAppended' ? m.items.flatMap((i) => (i.kind === 'info' ? [i.text] : [])) : []));

test('AGENTS.md reaches the model; /mode ask refuses a write in the tool layer; /skills lists the skill', async () => {
  server.enqueue({ text: 'Hi.' });
  let mark = v.mark();
  v.send({ type: 'send', text: 'Hello', clientId: 'i1' });
  await until(() => idle(v.since(mark)), 'the first turn');
  const first = server.chatRequests[0]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  assert.match(String(first?.messages[0]?.content ?? ''), /## AGENTS\.md\nHOST-RULE-5: answer briefly\./);

  mark = v.mark();
  v.send({ type: 'send', text: '/mode ask', clientId: 'i2' });
  await until(() => notices(v.since(mark)).some((n) => n.startsWith('Ask mode')), 'the mode switch');

  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] }, { text: 'Could not.' });
  mark = v.mark();
  v.send({ type: 'send', text: 'Write x.txt', clientId: 'i3' });
  await until(() => idle(v.since(mark)), 'the write turn');
  assert.equal(existsSync(join(h.workspace, 'x.txt')), false);
  const answer = server.chatRequests[server.chatRequests.length - 1]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  assert.ok(JSON.stringify(answer?.messages ?? []).includes('Refused: the chat is in Ask mode'));

  mark = v.mark();
  v.send({ type: 'send', text: '/skills', clientId: 'i4' });
  await until(() => notices(v.since(mark)).some((n) => n.startsWith('Skills:')), 'the skills list');
  assert.ok(notices(v.since(mark)).some((n) => /deploy — \.github\/skills\/deploy\/SKILL\.md · index \d+ tokens · body \d+ tokens/.test(n)));
});
