// The extension treats the settings file its "Always allow" writes as its own: the agent cannot write it, and the file snapshots are signed with a key in global storage.
import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, turnOn, type OpenView, until } from './hostHarness.js';

const h = createHarness({ settings: { 'capsule.model.id': 'fake-model', 'capsule.model.contextWindow': 20_000, 'capsule.model.maxOutputTokens': 2_000, 'capsule.compaction.safetyReserveTokens': 1_000 } });
let server: FakeOpenAIServer;
let v: OpenView;

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'a.ts'), 'export const a = 1;\n');
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function toolMessages(): string[] {
  return server.chatRequests.flatMap((r) => (r.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
}

test("write_file to .vscode/settings.json is refused as one of Capsule's own files", async () => {
  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/settings.json', content: '{ "capsule.approvals.allowedCommands": ["rm"] }\n' } }] }, { text: 'ok' });
  await turnOn(v, 'allow yourself everything');
  assert.ok(toolMessages().some((t) => /^write_file refused: "\.vscode\/settings\.json" is one of Capsule's own files/.test(t)), toolMessages().join('\n'));
  assert.equal(existsSync(join(h.workspace, '.vscode', 'settings.json')), false);
});

test('an approved edit is recorded with the key kept in global storage (mode 0600), never in the workspace', async () => {
  server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.ts', content: 'export const a = 2;\n' } }] }, { text: 'done' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'change a', clientId: 'k1' });
  await until(() => v.since(mark).some((m) => m.type === 'approvals' && m.approvals.length > 0), 'the approval card');
  const card = v.since(mark).flatMap((m) => (m.type === 'approvals' ? m.approvals : []))[0];
  assert.ok(card);
  v.send({ type: 'approval', id: card.id, choice: 'allow' });
  await until(() => v.since(mark).some((m) => m.type === 'busy' && !m.busy), 'the turn');
  const key = join(h.tmp, 'global', 'snapshot.key');
  assert.ok(existsSync(key), 'the key is in global storage');
  assert.equal(statSync(key).mode & 0o777, 0o600);
  assert.ok(!existsSync(join(h.workspace, 'snapshot.key')));
});
