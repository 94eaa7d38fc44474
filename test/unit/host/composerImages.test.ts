// Images from the composer, through the real extension: a pasted image and an `@`-mentioned image file reach the server as `image_url` parts; damaged or outside ones are named and left out; a model without vision gets nothing sent.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, lastOf, openAgentView, type OpenView, until } from './hostHarness.js';

const h = createHarness({
  settings: {
    'capsule.model.id': 'gpt-4o',
    'capsule.model.contextWindow': 20_000,
    'capsule.model.maxOutputTokens': 2_000,
    'capsule.compaction.safetyReserveTokens': 1_000,
  },
});
let server: FakeOpenAIServer;
let v: OpenView;

/** A real 1×1 PNG (the host checks the header and reads the size from it). */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PNG_URL = `data:image/png;base64,${PNG_BASE64}`;

before(async () => {
  server = await startFakeOpenAI({ window: 20_000 });
  mkdirSync(join(h.workspace, 'shots'), { recursive: true });
  writeFileSync(join(h.workspace, 'shots', 'login.png'), Buffer.from(PNG_BASE64, 'base64'));
  writeFileSync(join(h.workspace, 'shots', 'broken.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  v = await openAgentView(h, server);
});

after(() => closeAgentView(h, v, server));

const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);

/** The image parts of the last user message the server received. */
function lastUserImages(): string[] {
  const body = server.chatRequests[server.chatRequests.length - 1]?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  const user = (body?.messages ?? []).filter((m) => m.role === 'user').pop();
  const parts = Array.isArray(user?.content) ? (user.content as { type: string; image_url?: { url: string } }[]) : [];
  return parts.filter((p) => p.type === 'image_url').map((p) => p.image_url?.url ?? '');
}

test('the model picker says which models take images', () => {
  const snap = lastOf(v.messages(), 'snapshot');
  assert.equal(snap?.models.find((m) => m.id === 'gpt-4o')?.images, true);
});

test('a pasted image reaches the server as an image_url part of the user message, beside its text', async () => {
  server.enqueue({ text: 'A login form.' });
  const mark = v.mark();
  v.send({ type: 'send', text: 'What is on this screen?', clientId: 'i1', images: [{ name: 'pasted-1.png', dataUrl: PNG_URL }] });
  await until(() => idle(v.since(mark)), 'the turn');
  assert.deepEqual(lastUserImages(), [PNG_URL]);
  assert.ok(JSON.stringify(server.chatRequests[server.chatRequests.length - 1]?.body).includes('What is on this screen?'));
  assert.equal(v.since(mark).filter((m) => m.type === 'notice' && m.level !== 'info').length, 0, 'no warning');
  const m2 = v.mark();
  v.send({ type: 'ready' });
  const mine = lastOf(v.since(m2), 'snapshot')
    ?.transcript.items.filter((i) => i.kind === 'user')
    .pop();
  assert.equal(mine?.kind === 'user' ? mine.images : undefined, 1, 'the chat shows the message went with one image');
});

test('an @-mentioned image file is sent as an image; a damaged one and one outside the workspace are named and left out', async () => {
  server.enqueue({ text: 'Seen.' });
  const mark = v.mark();
  v.send({
    type: 'send',
    text: 'Compare @shots/login.png @shots/broken.png @../x.png',
    clientId: 'i2',
    attachments: [{ path: 'shots/login.png' }, { path: 'shots/broken.png' }, { path: '../x.png' }],
  });
  await until(() => idle(v.since(mark)), 'the turn');
  assert.deepEqual(lastUserImages(), [PNG_URL], 'the good file went as an image, not as text read by read_file');
  const notice = v.since(mark).find((m) => m.type === 'notice' && m.text.startsWith('Not attached'));
  assert.ok(notice && notice.type === 'notice');
  assert.match(notice.text, /Image broken\.png looks like a PNG but its header is damaged/);
  assert.match(notice.text, /@\.\.\/x\.png: "\.\.\/x\.png" is outside the workspace/);
});

test('a pasted file that is not an image by its bytes is named and left out; the message still goes', async () => {
  server.enqueue({ text: 'No image.' });
  const mark = v.mark();
  v.send({
    type: 'send',
    text: 'and this?',
    clientId: 'i3',
    images: [{ name: 'fake.png', dataUrl: `data:image/png;base64,${Buffer.from('hello').toString('base64')}` }],
  });
  await until(() => idle(v.since(mark)), 'the turn');
  assert.deepEqual(lastUserImages(), []);
  assert.match(lastOf(v.since(mark), 'notice')?.text ?? '', /Image fake\.png is not a PNG, JPEG, WebP or GIF image/);
});

test('a model without vision: nothing reaches the server, one line says why, the text goes back to the composer', async () => {
  const mark = v.mark();
  h.configure({ 'capsule.model.id': 'fake-model' });
  await until(() => v.since(mark).some((m) => m.type === 'snapshot' && m.currentModelId === 'fake-model'), 'the model switch');
  const before = server.chatRequests.length;
  const m2 = v.mark();
  v.send({ type: 'send', text: 'Describe it', clientId: 'i4', images: [{ name: 'pasted-2.png', dataUrl: PNG_URL }] });
  await until(() => v.since(m2).some((m) => m.type === 'composer'), 'the draft back');
  const notice = lastOf(v.since(m2), 'notice');
  assert.equal(notice?.level, 'error');
  assert.match(notice?.text ?? '', /^Not sent: the model fake-model cannot see images \(it is not known to accept images\)\./);
  assert.equal(lastOf(v.since(m2), 'composer')?.text, 'Describe it');
  assert.equal(server.chatRequests.length, before, 'no request was made');
  assert.ok(!v.since(m2).some((m) => m.type === 'busy' && m.busy), 'no turn started');
});
