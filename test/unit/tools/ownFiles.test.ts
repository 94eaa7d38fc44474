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
  for (const path of [
    'chats/a.jsonl',
    'chats/a.jsonl.corrupt',
    'chats/a.jsonl.lock.owner',
    'chats/a.archive/op_1.json',
    'chats/a.archive/new.json',
    'chats/a.flight.jsonl',
    'innocent.txt',
  ]) {
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

test("the CLI's default session inside the workspace survives an approved write onto it; the next turn keeps the history", async (t) => {
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
  assert.ok(
    lines.some((l) => /write_file → error \(\d+ ms\): write_file refused/.test(l)),
    lines.join('\n'),
  );
  server.setFallback(() => ({ text: 'second answer' }));
  assert.equal(await main([...argv, 'second'], () => undefined), 0);
  const load = await loadSessionFile(join(ws, '.capsule', 'chat.jsonl'));
  const users = load.tree
    .branch()
    .filter((e) => e.type === 'user')
    .map((e) => (e.type === 'user' ? e.content : ''));
  assert.deepEqual(users, ['first', 'second']);
  const last = server.chatRequests[server.chatRequests.length - 1]?.body as { messages: { role: string }[] };
  assert.ok(last.messages.filter((m) => m.role === 'user').length >= 2, 'the second turn was sent the first');
});

test("with --session elsewhere in the workspace, the snapshot store beside it is still Capsule's own: write_file cannot touch its change log", async (t) => {
  const { ws } = await workspace(t);
  const server = await startFakeOpenAI({ window: 60_000 });
  t.after(() => server.close());
  server.setFallback((req) => {
    const last = req.body.messages[req.body.messages.length - 1];
    if (last?.role === 'tool') return { text: `tool said: ${String(last.content).slice(0, 60)}` };
    if (String(last?.content).startsWith('first')) return { toolCalls: [{ name: 'write_file', arguments: { path: 'made.txt', content: 'made\n' } }] };
    return {
      toolCalls: [
        {
          name: 'write_file',
          arguments: {
            path: 'notes/chat.files/changes.jsonl',
            content: '{"path":"/etc/passwd","leaf":null,"before":null,"after":null,"why":"write","at":"x"}\n',
          },
        },
      ],
    };
  });
  const argv = [
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--window',
    '60000',
    '--max-output',
    '2000',
    '--workspace',
    ws,
    '--session',
    join(ws, 'notes', 'chat.jsonl'),
    '--yes',
  ];
  assert.equal(await main([...argv, 'first: make a file'], () => undefined), 0);
  const log = join(ws, 'notes', 'chat.files', 'changes.jsonl');
  const before = await readFile(log, 'utf8');
  const lines: string[] = [];
  assert.equal(await main([...argv, 'second: rewrite the log'], (s) => lines.push(s)), 0, lines.join('\n'));
  assert.ok(
    lines.some((l) => /write_file → error \(\d+ ms\): write_file refused: "notes\/chat\.files\/changes\.jsonl" is one of Capsule's own files/.test(l)),
    lines.join('\n'),
  );
  assert.equal(await readFile(log, 'utf8'), before, 'the change log is as Capsule wrote it');
});

test('sessionOwnedPaths always includes the snapshot store: the default one beside the session, or the one given', () => {
  assert.ok(sessionOwnedPaths('/w/notes/chat.jsonl', '/w/notes/chat.archive', '/w/notes/chat.flight.jsonl').includes('/w/notes/chat.files'));
  assert.ok(sessionOwnedPaths('/w/chat.jsonl', '/s/a', '/s/f', '/s/files').includes('/s/files'));
});
