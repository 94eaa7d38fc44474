// The request estimate (docs/behaviour.md#tokens) against gpt-tokenizer's own counts of the same payload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import type { ToolSchema } from '../../../src/engine/ports.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { estimateRequest, serializeToolSchemas, TOKENIZER_MARGIN, withMargin } from '../../../src/engine/tokens/estimate.js';
import {
  IMAGE_DEFAULT_TOKENS,
  imageTokens,
  MESSAGE_OVERHEAD,
  REPLY_PRIMING,
  ROLE_TOKENS,
  TOOL_CALL_OVERHEAD,
  TOOLS_OVERHEAD,
} from '../../../src/engine/tokens/messageTokens.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { buildModelInput, CAPSULE_QUESTION } from '../../../src/engine/transcript/modelInput.js';
import { BranchBuilder } from './entries.js';

const SYSTEM = "You are Capsule, a careful coding agent. Work in the user's workspace.";
const TOOLS: readonly ToolSchema[] = [
  {
    name: 'read_file',
    description: 'Read a file in the workspace',
    parameters: { type: 'object', required: ['path'], properties: { path: { type: 'string', description: 'Relative path' } } },
  },
  {
    name: 'run_command',
    description: 'Run a shell command',
    parameters: { properties: { command: { type: 'string' }, timeoutMs: { type: 'number' } }, type: 'object' },
  },
];
const count = (s: string): number => countTokens(s, { disallowedSpecial: new Set() });

test('a plain conversation estimates exactly what gpt-tokenizer encodes for the chat (gpt-4o format)', () => {
  const b = new BranchBuilder()
    .user('Please add a README with build steps.')
    .assistant('Sure — here is a draft:\n\n# Build\n\nnpm ci && npm test')
    .user('Thanks! Also mention Node 20.');
  const est = estimateRequest(buildModelInput(b.entries, SYSTEM), [], new EntryTokenCache(counterForModel('gpt-4o')), 4096);
  const chat = [
    { role: 'system' as const, content: SYSTEM },
    { role: 'user' as const, content: 'Please add a README with build steps.' },
    { role: 'assistant' as const, content: 'Sure — here is a draft:\n\n# Build\n\nnpm ci && npm test' },
    { role: 'user' as const, content: 'Thanks! Also mention Node 20.' },
  ];
  assert.equal(est.raw, encodeChat(chat, 'gpt-4o').length);
  assert.equal(est.total, Math.ceil((est.raw * 105) / 100));
});

test('tools, capsule, tool calls, tool results and images: raw equals the per-part counts plus the documented overheads', () => {
  const args = '{"path":"src/index.ts"}';
  const result = 'export const x = 1;\nexport function main() {}\n';
  const b = new BranchBuilder()
    .user('old question')
    .assistant('old answer')
    .capsule('## Goal\nShip it.\n## Progress\n- Done: setup', null)
    .user('Look at this screenshot and read the entry file.', [{ url: 'data:image/png;base64,AAAA', width: 1024, height: 768, detail: 'high' }])
    .assistant('Reading it.', { toolCalls: [{ id: 'call_abc123', name: 'read_file', arguments: args }] })
    .tool('call_abc123', result);
  const input = buildModelInput(b.entries, SYSTEM);
  const est = estimateRequest(input, TOOLS, new EntryTokenCache(counterForModel('gpt-4o')), 8000);

  const msg = MESSAGE_OVERHEAD + ROLE_TOKENS;
  const system = msg + count(SYSTEM);
  const tools = TOOLS_OVERHEAD + count(serializeToolSchemas(TOOLS));
  const capsule = 2 * msg + count(CAPSULE_QUESTION) + count('## Goal\nShip it.\n## Progress\n- Done: setup');
  const messages =
    REPLY_PRIMING +
    msg +
    count('Look at this screenshot and read the entry file.') +
    imageTokens({ url: 'x', width: 1024, height: 768, detail: 'high' }) +
    msg +
    count('Reading it.') +
    TOOL_CALL_OVERHEAD +
    count('call_abc123') +
    count('read_file') +
    count(args);
  const toolResults = msg + count('call_abc123') + count(result);
  assert.deepEqual(est.categories, { system, tools, capsule, messages, toolResults, reservedOutput: 8000 });
  assert.equal(est.raw, system + tools + capsule + messages + toolResults);
  assert.equal(est.total, withMargin(est.raw));

  // Counting the whole payload in one piece differs from the per-part sum only at the part boundaries:
  // at most one token per '\n' separator, far less than the framing counted per message.
  const payload = [
    SYSTEM,
    serializeToolSchemas(TOOLS),
    CAPSULE_QUESTION,
    '## Goal\nShip it.\n## Progress\n- Done: setup',
    'Look at this screenshot and read the entry file.',
    'Reading it.',
    'call_abc123',
    'read_file',
    args,
    'call_abc123',
    result,
  ].join('\n');
  const partsOnly = est.raw - (6 * msg + TOOLS_OVERHEAD + TOOL_CALL_OVERHEAD + REPLY_PRIMING + 765);
  const separators = 10;
  assert.ok(Math.abs(count(payload) - partsOnly) <= separators, `whole ${count(payload)} vs parts ${partsOnly}`);
});

test('the margin is 5%, rounded up', () => {
  assert.equal(TOKENIZER_MARGIN, 0.05);
  assert.equal(withMargin(100), 105);
  assert.equal(withMargin(101), 107);
  assert.equal(withMargin(0), 0);
});

test("image tokens follow OpenAI's tile formula", () => {
  assert.equal(imageTokens({ url: 'x', detail: 'low', width: 4000, height: 4000 }), 85);
  assert.equal(imageTokens({ url: 'x', width: 1024, height: 1024, detail: 'high' }), 765); // → 768×768, 4 tiles
  assert.equal(imageTokens({ url: 'x', width: 2048, height: 4096 }), 1105); // → 1024×2048 → 768×1536, 6 tiles
  assert.equal(imageTokens({ url: 'x', width: 100, height: 100 }), 255); // one tile
  assert.equal(imageTokens({ url: 'x' }), IMAGE_DEFAULT_TOKENS);
});

test("level ≥ 2 truncated tool results are counted as sent, not from the full result's cache entry", () => {
  const long = Array.from({ length: 400 }, (_, i) => `line ${i}: some build output that goes on and on`).join('\n');
  const b = new BranchBuilder()
    .user('build it')
    .assistant('', { toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{}' }] })
    .tool('c1', long)
    .user('and?');
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const full = estimateRequest(buildModelInput(b.entries, SYSTEM), [], cache, 0);
  b.capsule('summary', 'e1', { truncateResults: true });
  b.user('next');
  const truncated = estimateRequest(buildModelInput(b.entries, SYSTEM), [], cache, 0);
  assert.ok(truncated.categories.toolResults < full.categories.toolResults / 5, `${truncated.categories.toolResults} vs ${full.categories.toolResults}`);
});

test('tool schemas serialize deterministically with sorted keys at every level', () => {
  const json = serializeToolSchemas(TOOLS);
  const reordered: ToolSchema[] = TOOLS.map((t) => ({
    parameters: Object.fromEntries(Object.entries(t.parameters).reverse()),
    description: t.description,
    name: t.name,
  }));
  assert.equal(serializeToolSchemas(reordered), json);
  assert.ok(json.startsWith('[{"function":{"description":"Read a file in the workspace","name":"read_file","parameters":{"properties":'));
  assert.deepEqual(JSON.parse(json)[1].function.parameters, TOOLS[1]?.parameters);
  assert.equal(serializeToolSchemas([]), '[]');
  assert.equal(estimateRequest(buildModelInput([], ''), [], new EntryTokenCache(counterForModel('gpt-4o')), 0).raw, REPLY_PRIMING);
});
