// Rewind safety in the extension: the settings file "Always allow" writes is Capsule's own, snapshots are signed with a key in global storage, and the dialog overwrites a changed file only after keeping a copy and saying where.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, openAgentView, turnOn, type OpenView, until } from './hostHarness.js';

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
  server = await startFakeOpenAI({ window: 20_000 });
  writeFileSync(join(h.workspace, 'a.ts'), 'export const a = 1;\n');
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

function toolMessages(): string[] {
  return server.chatRequests.flatMap((r) =>
    (r.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'tool').map((m) => String(m.content)),
  );
}

test("write_file to .vscode/settings.json is refused as one of Capsule's own files", async () => {
  server.enqueue(
    { toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/settings.json', content: '{ "capsule.approvals.allowedCommands": ["rm"] }\n' } }] },
    { text: 'ok' },
  );
  await turnOn(v, 'allow yourself everything');
  assert.ok(
    toolMessages().some((t) => /^write_file refused: "\.vscode\/settings\.json" is one of Capsule's own files/.test(t)),
    toolMessages().join('\n'),
  );
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

/** The user entries of the chat files in workspace storage, in file order. */
function userIds(text: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl') && !name.includes('flight') && !name.includes('changes')) files.push(p);
    }
  };
  walk(h.storage);
  const entries = files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; id: string; content?: unknown }),
  );
  return entries.filter((e) => e.type === 'user' && e.content === text).map((e) => e.id);
}

test('the rewind dialog names a file changed since; Overwrite keeps the user version first and the notice says where', async () => {
  writeFileSync(join(h.workspace, 'a.ts'), 'the user edited this\n');
  const id = userIds('change a')[0];
  assert.ok(id !== undefined);
  h.state.answer = (kind, prompt) =>
    kind === 'modal' ? (prompt.startsWith('Rewind') ? 'Files Only' : prompt.includes('changed since Capsule recorded') ? 'Overwrite' : undefined) : undefined;
  const mark = v.mark();
  v.send({ type: 'messageAction', action: 'edit', entryId: id });
  await until(
    () => v.since(mark).some((m) => m.type === 'notice' && m.text.startsWith('Overwritten after keeping your version')),
    'the notice naming the copy',
  );
  const rewindAsk = h.state.asked.find((a) => a.prompt.startsWith('Rewind'));
  assert.match(rewindAsk?.detail ?? '', /a\.ts — restored \(edited outside Capsule since\)/);
  const overwriteAsk = h.state.asked.find((a) => a.prompt.includes('changed since Capsule recorded'));
  assert.match(overwriteAsk?.detail ?? '', /copies each one to the chat's snapshot folder first/);
  const notice = v.since(mark).find((m) => m.type === 'notice' && m.text.startsWith('Overwritten'));
  const copy = notice?.type === 'notice' ? /a\.ts → (.+)$/.exec(notice.text)?.[1] : undefined;
  assert.ok(copy !== undefined && copy.includes(join('files', 'kept')), JSON.stringify(notice));
  assert.equal(readFileSync(copy, 'utf8'), 'the user edited this\n');
  assert.equal(readFileSync(join(h.workspace, 'a.ts'), 'utf8'), 'export const a = 1;\n');
});
