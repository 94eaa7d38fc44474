// Images: read and checked by their bytes; sent as an image_url part, counted by the tile formula, replaced by a one-line placeholder once a compaction passed them; refused before sending to a model without vision.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { imageTokens } from '../../../src/engine/tokens/messageTokens.js';
import { readImageFile } from '../../../src/node/images/imageFile.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentRequests, agentResponder, tempDir } from '../agent/agentHelpers.js';
import { bodyOf, openWithInstructions, workspaceWith } from './instructionHelpers.js';
import { warmEncoding } from '../../../src/node/tokenCounter.js';

/** A PNG header (signature + IHDR) of the given size; enough for the checks, which read the header only. */
function png(w: number, h: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  return b;
}

test('image files: PNG, GIF, JPEG and WebP sizes from their headers; corrupt, unsupported, 50 MB and a FIFO get one line naming the file', async (t) => {
  const dir = await tempDir(t, 'capsule-img-');
  await writeFile(join(dir, 'a.png'), png(1024, 768));
  const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1');
  await writeFile(join(dir, 'b.gif'), gif);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58, 0x03]);
  await writeFile(join(dir, 'c.jpg'), jpeg);
  const webp = Buffer.alloc(30);
  webp.write('RIFF', 0, 'ascii');
  webp.write('WEBPVP8X', 8, 'ascii');
  webp.writeUIntLE(639, 24, 3);
  webp.writeUIntLE(479, 27, 3);
  await writeFile(join(dir, 'd.webp'), webp);
  await writeFile(join(dir, 'broken.png'), png(1024, 768).subarray(0, 14));
  await writeFile(join(dir, 'notes.txt'), 'hello');
  const huge = await open(join(dir, 'huge.png'), 'w');
  await huge.truncate(50 * 1024 * 1024);
  await huge.close();
  execFileSync('mkfifo', [join(dir, 'pipe.png')]);
  const sizes = await Promise.all(
    ['a.png', 'b.gif', 'c.jpg', 'd.webp'].map(async (n) => {
      const r = await readImageFile(join(dir, n));
      return r.ok ? `${r.image.url.slice(5, r.image.url.indexOf(';'))} ${r.image.width}x${r.image.height}` : r.error;
    }),
  );
  assert.deepEqual(sizes, ['image/png 1024x768', 'image/gif 320x240', 'image/jpeg 600x300', 'image/webp 640x480']);
  const errors = await Promise.all(
    ['broken.png', 'notes.txt', 'huge.png', 'pipe.png'].map(async (n) => {
      const r = await readImageFile(join(dir, n));
      return r.ok ? 'accepted' : r.error;
    }),
  );
  assert.match(errors[0] ?? '', /^Image broken\.png looks like a PNG but its header is damaged/);
  assert.match(errors[1] ?? '', /^Image notes\.txt is not a PNG, JPEG, WebP or GIF image\.$/);
  assert.match(errors[2] ?? '', /^Image huge\.png is 50\.0 MB; at most 20 MB can be sent\.$/);
  assert.match(errors[3] ?? '', /^Image pipe\.png cannot be read: .*named pipe/);
  for (const e of errors) assert.ok(!e.includes('\n'));
});

test('an image is sent as an image_url part, counted by the tile formula, and after a compaction becomes a placeholder naming its entry', async (t) => {
  // The table built first: until it is, counts are upper bounds (docs/behaviour.md#cold-start), and the image's share
  // below is a difference of two readings that must both be exact.
  warmEncoding('o200k_base');
  const dir = await tempDir(t);
  const server = await startFakeOpenAI({ window: 32_000 });
  t.after(() => server.close());
  server.setFallback(
    agentResponder((text) => (/^Read (f\d)/.test(text) ? [{ name: 'read_file', arguments: { path: `src/${/^Read (f\d)/.exec(text)?.[1] ?? ''}.ts` } }] : [])),
  );
  const ws = await workspaceWith(dir, {}, 3, 120);
  await writeFile(join(ws, 'shot.png'), png(1024, 768));
  const { session } = await openWithInstructions(server, dir, ws, { model: 'gpt-4o', window: 32_000 });
  t.after(() => session.close());
  const signal = new AbortController().signal;
  await session.turn({ userText: 'Read f0', signal });
  const before = session.budget().categories.messages;
  const img = await readImageFile(join(ws, 'shot.png'));
  assert.ok(img.ok);
  await session.turn({ userText: 'What is wrong in this screenshot?', images: [img.image], signal });
  const sent = agentRequests(server).pop();
  assert.ok(sent !== undefined);
  const user = bodyOf(sent)
    .messages.filter((m) => m.role === 'user')
    .pop();
  assert.deepEqual(user?.content, [
    { type: 'text', text: 'What is wrong in this screenshot?' },
    { type: 'image_url', image_url: { url: img.image.url } },
  ]);
  assert.equal(imageTokens(img.image), 85 + 170 * 4, '1024×768: four 512-px tiles');
  assert.ok(session.budget().categories.messages - before >= 765, 'the meter counts the image');
  await session.turn({ userText: 'Read f1', signal });
  await session.turn({ userText: 'Read f2', signal });
  const withImage = session.store.tree.branch().find((e) => e.type === 'user' && e.images !== undefined);
  assert.ok(withImage !== undefined);
  const later = session.store.tree.branch().find((e) => e.type === 'user' && e.content === 'Read f2');
  assert.ok(later !== undefined);
  // Compact up to the image's message: everything before it is summarized and it opens the retained tail, which the compaction passed.
  assert.deepEqual(
    (await session.compactUpTo(withImage.id)).outcomes.map((o) => o.outcome),
    ['completed'],
  );
  await session.turn({ userText: 'Read f0 again', signal });
  const after = agentRequests(server).pop();
  assert.ok(after !== undefined);
  const texts = bodyOf(after).messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  assert.ok(!texts.some((m) => m.includes('image_url')), 'no image part after the compaction');
  assert.ok(
    texts.includes(
      `What is wrong in this screenshot?\n[image 1 of message ${withImage.id} (image/png 1024×768) left the model input at a compaction; the original stays in the transcript]`,
    ),
  );
  const stored = session.store.tree.branch().find((e) => e.id === withImage.id);
  assert.ok(stored?.type === 'user' && stored.images?.[0]?.url === img.image.url, 'the transcript keeps the original');
});

test('capsule chat --image to a model without vision says so before anything is sent; --vision sends it', async (t) => {
  const dir = await tempDir(t, 'capsule-img-cli-');
  const server = await startFakeOpenAI({ window: 20_000 });
  t.after(() => server.close());
  server.setFallback(() => ({ text: 'I see it.' }));
  await writeFile(join(dir, 'shot.png'), png(64, 64));
  const lines: string[] = [];
  const args = [
    'chat',
    '--base-url',
    server.url,
    '--model',
    'fake-model',
    '--window',
    '20000',
    '--max-output',
    '2000',
    '--session',
    join(dir, 'chat.jsonl'),
    '--workspace',
    dir,
    '--image',
    join(dir, 'shot.png'),
    'Look',
  ];
  await assert.rejects(
    main(args, (s) => lines.push(s)),
    /the model fake-model is not known to accept images, so nothing was sent; if it does, add --vision/,
  );
  assert.equal(server.chatRequests.length, 0);
  assert.equal(await main([...args, '--vision'], (s) => lines.push(s)), 0, lines.join('\n'));
  const body = server.chatRequests[0]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  assert.ok(JSON.stringify(body?.messages ?? []).includes('"type":"image_url"'));
});
