// Images of tool results (an MCP tool's screenshot) in the model input: one user message with the image parts after the batch's tool messages, counted like a user's images, and placeholder lines once a compaction passed them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countMessage, imageTokens } from '../../../src/engine/tokens/messageTokens.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { Entry, ImagePart } from '../../../src/engine/transcript/schema.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { guardToolPairs } from '../../../src/engine/transcript/toolPairGuard.js';

const T = '2025-01-01T00:00:00.000Z';
const IMG: ImagePart = { url: 'data:image/png;base64,iVBORw0KGgo=', width: 640, height: 480 };
const counter = counterForModel('gpt-4o');

function chain(list: readonly { readonly id: string; readonly [k: string]: unknown }[]): Entry[] {
  let parent: string | null = null;
  return list.map((e) => {
    const out = { ...e, parentId: parent, timestamp: T } as unknown as Entry;
    parent = e.id;
    return out;
  });
}

const BATCH = [
  { id: 'u1', type: 'user', content: 'Take a screenshot and read the page' },
  {
    id: 'a1',
    type: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'mcp__browser__screenshot', arguments: '{}' },
      { id: 'c2', name: 'mcp__browser__text', arguments: '{}' },
    ],
  },
  {
    id: 't1',
    type: 'tool_result',
    toolCallId: 'c1',
    toolName: 'mcp__browser__screenshot',
    content: '[image 1 (image/png, 640×480): shown to you after the tool results]',
    isError: false,
    images: [IMG],
  },
  { id: 't2', type: 'tool_result', toolCallId: 'c2', toolName: 'mcp__browser__text', content: 'Hello page', isError: false },
] as const;

test('the images follow the whole batch of tool messages as one user message, and are counted by the image rule', () => {
  const input = buildModelInput(chain([...BATCH, { id: 'a2', type: 'assistant', content: 'It shows a login form.', toolCalls: [] }]), 'sys');
  assert.deepEqual(
    input.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'tool', 'user', 'assistant'],
  );
  const after = input.messages[4];
  assert.ok(after?.role === 'user');
  assert.deepEqual(after.images, [IMG]);
  assert.equal(after.content, 'The images in the result of mcp__browser__screenshot (call c1):');
  assert.equal(after.entryId, undefined, 'not an entry of its own: the entry cache never mixes it with the tool message');
  assert.ok(countMessage(counter, after) >= imageTokens(IMG), 'counted with its image');
  // The tool pairs stay whole: nothing comes between the assistant's calls and their results.
  assert.equal(
    guardToolPairs(input.messages, () => ({ role: 'tool', toolCallId: 'x', content: '' })),
    input.messages,
  );
  assert.deepEqual(input.entryIds, ['u1', 'a1', 't1', 't2', 'a2']);
});

test('a branch that ends on the results (the next request of the turn) carries the images too; results without images add nothing', () => {
  const input = buildModelInput(chain(BATCH), 'sys');
  assert.deepEqual(input.messages.at(-1), { role: 'user', content: 'The images in the result of mcp__browser__screenshot (call c1):', images: [IMG] });
  const plain = buildModelInput(chain(BATCH.map((e) => (e.type === 'tool_result' ? { ...e, images: undefined } : e))), 'sys');
  assert.deepEqual(
    plain.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'tool'],
  );
});

test('once a compaction passed them, each image is one placeholder line naming the entry that keeps the original', () => {
  const capsule = {
    id: 'cap',
    type: 'capsule',
    summary: 'We looked at the page.',
    firstKeptEntryId: 'u1',
    pinnedEntryIds: [],
    tokensBefore: 5000,
    tokensAfter: 500,
    trigger: 'auto_threshold',
    level: 0,
    quality: 'full',
    truncateResults: false,
    checkpointId: 'ck_cap',
    details: {},
  } as const;
  const input = buildModelInput(chain([...BATCH, capsule, { id: 'u2', type: 'user', content: 'Go on' }]), 'sys');
  const placeholders = input.messages.filter((m) => m.role === 'user' && m.content.includes('left the model input at a compaction'));
  assert.equal(placeholders.length, 1);
  assert.equal(
    placeholders[0]?.content,
    '[image 1 of message t1 (image/png 640×480) left the model input at a compaction; the original stays in the transcript]',
  );
  assert.ok(
    input.messages.every((m) => m.role !== 'user' || m.images === undefined),
    'no image part after the compaction',
  );
});
