// Attachments through the facade: one read_file exchange right after the message (before the first request), the ledger counts the read, a huge file is paged like read_file pages it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAttachmentEntry } from '../../../src/engine/agent/attachments.js';
import { buildLedger } from '../../../src/engine/compaction/ledger.js';
import { startFakeOpenAI, type ChatBody } from '../../fakes/openaiServer.js';
import { entriesOf, openSession, tempDir, verifyFile } from './agentHelpers.js';

test('an attached file becomes a read_file call and result after the user message; the model sees it and the ledger lists it', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'notes.md'), 'alpha\nbeta MARKER-42\ngamma\n');
  const server = await startFakeOpenAI({ window: 20_000, script: [{ text: 'It says beta.' }] });
  t.after(() => server.close());
  const { session, path } = await openSession(server, dir);
  const r = await session.turn({ userText: 'What is in @notes.md?', attachments: [{ path: 'notes.md' }], signal: new AbortController().signal });
  await session.close();
  assert.equal(r.status, 'completed');
  assert.equal(server.chatRequests.length, 1, 'the read runs before the one model request, not as a model turn');
  const messages = (server.chatRequests[0]?.body as ChatBody).messages;
  const roles = messages.slice(-3).map((m) => m.role);
  assert.deepEqual(roles, ['user', 'assistant', 'tool'], 'message, then the read call, then its result');
  assert.match(String(messages[messages.length - 1]?.content), /2\tbeta MARKER-42/, 'numbered lines as read_file shows them');

  const entries = await entriesOf(path);
  const asked = entries.find((e) => e.type === 'assistant' && isAttachmentEntry(e));
  assert.ok(asked && asked.type === 'assistant');
  assert.equal(asked.toolCalls[0]?.name, 'read_file');
  const result = entries.find((e) => e.type === 'tool_result' && e.toolCallId === asked.toolCalls[0]?.id);
  assert.ok(result && result.type === 'tool_result');
  assert.deepEqual(result.effects?.read, ['notes.md'], 'recorded as a measured read');
  assert.ok(buildLedger(entries).filesRead.includes('notes.md'), 'the ledger sees the read');
  assert.deepEqual((await verifyFile(path)).issues, [], 'the transcript stays valid (every call answered)');
});

test('a line range reads only those lines; a file past the read cap is paged with the same note read_file gives', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'big.txt'), Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join('\n'));
  const server = await startFakeOpenAI({ window: 20_000, script: [{ text: 'ok' }, { text: 'ok' }] });
  t.after(() => server.close());
  const { session } = await openSession(server, dir);
  await session.turn({ userText: 'lines', attachments: [{ path: 'big.txt', startLine: 10, endLine: 12 }], signal: new AbortController().signal });
  const ranged = String((server.chatRequests[0]?.body as ChatBody).messages.at(-1)?.content);
  assert.match(ranged, /^10\trow 10\n11\trow 11\n12\trow 12/);
  await session.turn({ userText: 'whole', attachments: [{ path: 'big.txt' }], signal: new AbortController().signal });
  await session.close();
  const whole = String((server.chatRequests[1]?.body as ChatBody).messages.at(-1)?.content);
  assert.match(whole, /To read on, call read_file with \{"path": "big\.txt", "startLine": \d+\}/, 'the huge-result rule of read_file');
  assert.ok(whole.length < 60_000, 'bounded like any read');
});

test('a turn cancelled before the attachments are read answers every call, and no request is sent', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'a.txt'), 'a\n');
  const server = await startFakeOpenAI({ window: 20_000, script: [{ text: 'never' }] });
  t.after(() => server.close());
  const { session, path } = await openSession(server, dir);
  const ac = new AbortController();
  ac.abort();
  const r = await session.turn({ userText: 'x', attachments: [{ path: 'a.txt' }, { path: 'a.txt', startLine: 1 }], signal: ac.signal });
  await session.close();
  assert.equal(r.status, 'cancelled');
  assert.equal(server.chatRequests.length, 0);
  assert.deepEqual((await verifyFile(path)).issues, []);
});
