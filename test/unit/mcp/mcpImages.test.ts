// An MCP tool's image through `capsule chat`: a vision model is shown it as an image part after the tool message (the transcript keeps it); any other model reads a placeholder, and the original is archived either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../../../src/cli/main.js';
import { entries, mcpChatRig, type McpChatRig } from './chatRig.js';

async function chatAs(rig: McpChatRig, model: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const argv = [
    'chat',
    '--base-url',
    rig.server.url,
    '--model',
    model,
    '--session',
    rig.session,
    '--workspace',
    rig.ws,
    '--yes',
    '--window',
    String(rig.window),
    '--mcp-config',
    rig.config,
    'show me the tiny image',
  ];
  return { code: await main(argv, (s) => lines.push(s)), lines };
}

interface Part {
  readonly type: string;
  readonly text?: string;
  readonly image_url?: { readonly url: string };
}

test('a vision model: the image is an image part right after the tool message, recorded on the result', async (t) => {
  const rig = await mcpChatRig(t, 128_000);
  rig.server.enqueue({ toolCalls: [{ name: 'mcp__everything__get-tiny-image', arguments: {} }] }, { text: 'A tiny image.' });
  const r = await chatAs(rig, 'gpt-4o');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const result = (await entries(rig)).find((e) => e.type === 'tool_result') as
    | { content?: string; images?: { url: string; width?: number; height?: number }[] }
    | undefined;
  assert.match(result?.content ?? '', /\[image 1 \(image\/png, \d+×\d+\): shown to you after the tool results; the original is archived as res_[0-9a-f]+\]/);
  assert.equal(result?.images?.length, 1);
  assert.match(result?.images?.[0]?.url ?? '', /^data:image\/png;base64,iVBOR/);
  assert.ok((result?.images?.[0]?.width ?? 0) > 0);
  const second = rig.server.chatRequests[1]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  assert.ok(second !== undefined);
  const roles = second.messages.map((m) => m.role);
  const toolAt = roles.lastIndexOf('tool');
  assert.equal(roles[toolAt + 1], 'user', 'the images come right after the tool message');
  const parts = second.messages[toolAt + 1]?.content as Part[];
  assert.deepEqual(
    parts.map((p) => p.type),
    ['text', 'image_url'],
  );
  assert.equal(parts[1]?.image_url?.url, result?.images?.[0]?.url);
});

test('a model not known to take images: a placeholder names the archived original, and no image part is sent', async (t) => {
  const rig = await mcpChatRig(t, 128_000);
  rig.server.enqueue({ toolCalls: [{ name: 'mcp__everything__get-tiny-image', arguments: {} }] }, { text: 'Cannot see it.' });
  const r = await chatAs(rig, 'fake-model');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const result = (await entries(rig)).find((e) => e.type === 'tool_result') as { content?: string; images?: unknown[] } | undefined;
  assert.match(result?.content ?? '', /\[image image\/png, [\d.]+ (KB|bytes): not shown; the original is archived as res_[0-9a-f]+\]/);
  assert.equal(result?.images, undefined);
  assert.doesNotMatch(JSON.stringify(rig.server.chatRequests.map((q) => q.body)), /image_url/);
});
