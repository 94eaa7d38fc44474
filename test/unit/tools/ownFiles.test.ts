// Capsule's own files are off limits to the write tools: the chat's session, archive, locks and flight log, even through a link.
import assert from 'node:assert/strict';
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { sessionOwnedPaths } from '../../../src/node/tools/ownFiles.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { files, makeHost, workspace } from './toolHelpers.js';

test('write_file and edit_file refuse the session, its sidecars and a link to them; other files are fine', async (t) => {
  const { ws } = await workspace(t);
  const session = join(ws, 'chats', 'a.jsonl');
  await files(ws, { 'chats/a.jsonl': '{"type":"session"}\n', 'chats/a.archive/op_1.json': '{}', 'chats/a.flight.jsonl': '', 'ok.txt': 'x\n' });
  await symlink(session, join(ws, 'innocent.txt'));
  const h = makeHost(ws, { ownFiles: () => sessionOwnedPaths(session, join(ws, 'chats', 'a.archive'), join(ws, 'chats', 'a.flight.jsonl')) });
  for (const path of ['chats/a.jsonl', 'chats/a.jsonl.corrupt', 'chats/a.jsonl.lock.owner', 'chats/a.archive/op_1.json', 'chats/a.archive/new.json', 'chats/a.flight.jsonl', 'innocent.txt']) {
    const w = await h.call('write_file', { path, content: 'gone\n' });
    assert.equal(w.isError, true, path);
    assert.match(w.content, /^write_file refused: ".*" is one of Capsule's own files/, `${path}: ${w.content}`);
  }
  const e = await h.call('edit_file', { path: 'chats/a.jsonl', oldText: 'session', newText: 'x' });
  assert.match(e.content, /^edit_file refused/);
  assert.equal(await readFile(session, 'utf8'), '{"type":"session"}\n');
  assert.equal((await h.call('write_file', { path: 'ok.txt', content: 'y\n' })).isError, false);
  assert.equal((await h.call('write_file', { path: 'chats/b.jsonl', content: 'other\n' })).isError, false);
});

test('the CLI\'s default session inside the workspace survives an approved write onto it; the next turn keeps the history', async (t) => {
  const { ws } = await workspace(t);
  const server = await startFakeOpenAI({ window: 60_000 });
  t.after(() => server.close());
  server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last?.role === 'tool') return { text: `tool said: ${String(last.content).slice(0, 40)}` };
    return { toolCalls: [{ name: 'write_file', arguments: { path: '.capsule/chat.jsonl', content: 'wiped\n' } }] };
  });
  const argv = ['chat', '--base-url', server.url, '--model', 'fake-model', '--window', '60000', '--max-output', '2000', '--workspace', ws, '--yes'];
  const lines: string[] = [];
  assert.equal(await main([...argv, 'first'], (s) => lines.push(s)), 0, lines.join('\n'));
  assert.ok(lines.some((l) => /write_file → error \(\d+ ms\): write_file refused/.test(l)), lines.join('\n'));
  server.setFallback(() => ({ text: 'second answer' }));
  assert.equal(await main([...argv, 'second'], () => undefined), 0);
  const load = await loadSessionFile(join(ws, '.capsule', 'chat.jsonl'));
  const users = load.tree.branch().filter((e) => e.type === 'user').map((e) => (e.type === 'user' ? e.content : ''));
  assert.deepEqual(users, ['first', 'second']);
  const last = server.chatRequests[server.chatRequests.length - 1]?.body as { messages: { role: string }[] };
  assert.ok(last.messages.filter((m) => m.role === 'user').length >= 2, 'the second turn was sent the first');
});
