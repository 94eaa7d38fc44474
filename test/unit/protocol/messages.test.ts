// The host⇄webview contract: every message kind survives a JSON round trip through its schema; malformed ones are rejected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HostToWebviewSchema,
  WebviewCommandSchema,
  WebviewToHostSchema,
  parseWebviewMessage,
  type BudgetView,
  type HostToWebview,
  type WebviewToHost,
} from '../../../src/protocol/messages.js';

const budget: BudgetView = {
  model: 'gpt-4o',
  contextWindow: 65000,
  maxOutputTokens: 8000,
  effectiveTokens: 38420,
  source: 'estimated',
  softLimit: 39046,
  hardLimit: 48808,
  safetyReserveTokens: 8192,
  keepRecentTokens: 20000,
  capsules: 2,
  messages: 47,
  turns: 12,
  lastCapsule: { ageMs: 120000, tokens: 2840, checkpointId: 'ck_abc', quality: 'full' },
  savingsRatio: 0.48,
  reclaimableTokens: 18420,
  autoCompact: true,
  nextTrigger: '~3 turns',
  categories: { system: 1200, tools: 0, capsule: 2840, messages: 20000, toolResults: 12000, reservedOutput: 8000 },
  percentOfHard: 78.7,
};

const HOST_SAMPLES: readonly HostToWebview[] = [
  {
    type: 'snapshot',
    session: { id: 's_1', title: 'Fix login', createdAt: '2025-01-01T00:00:00.000Z', entries: 12, readOnly: true, readOnlyReason: 'open in another window', problems: 1 },
    budget,
    settings: { modelId: 'gpt-4o', provider: 'openai', autoCompact: true, softTriggersEnabled: false, warning: 'Compaction disabled: config validation failed: x' },
  },
  { type: 'snapshot', session: null, budget: null, settings: { modelId: 'm', provider: 'openai', autoCompact: false, softTriggersEnabled: false }, error: 'disk full' },
  { type: 'budget', budget: { ...budget, source: 'provider_usage', lastCapsule: undefined } },
  { type: 'notice', level: 'warning', text: 'Compaction is not available yet' },
];

const WEBVIEW_SAMPLES: readonly WebviewToHost[] = [
  { type: 'ready' },
  ...WebviewCommandSchema.options.map((command) => ({ type: 'command' as const, command })),
  { type: 'webviewError', message: 'boom', stack: 'Error: boom\n at x' },
];

function roundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

test('every host → webview kind has a sample and round-trips unchanged', () => {
  const kinds = new Set(HOST_SAMPLES.map((m) => m.type));
  for (const option of HostToWebviewSchema.options) assert.ok(kinds.has(option.shape.type.value), `no sample for ${option.shape.type.value}`);
  for (const m of HOST_SAMPLES) assert.deepEqual(HostToWebviewSchema.parse(roundTrip(m)), roundTrip(m));
});

test('every webview → host kind has a sample and round-trips unchanged', () => {
  const kinds = new Set(WEBVIEW_SAMPLES.map((m) => m.type));
  for (const option of WebviewToHostSchema.options) assert.ok(kinds.has(option.shape.type.value), `no sample for ${option.shape.type.value}`);
  for (const m of WEBVIEW_SAMPLES) {
    const r = parseWebviewMessage(roundTrip(m));
    assert.ok(r.ok);
    assert.deepEqual(r.message, roundTrip(m));
  }
});

test('malformed messages from the webview are rejected with a reason', () => {
  const bad: readonly unknown[] = [
    null,
    'ready',
    42,
    [],
    {},
    { type: 'nope' },
    { type: 'READY' },
    { type: 'command' },
    { type: 'command', command: 'deleteEverything' },
    { type: 'command', command: 'capsule.newChat' },
    { type: 'webviewError' },
    { type: 'webviewError', message: 7 },
    { type: 'webviewError', message: 'x'.repeat(5000) },
    { type: ['ready'] },
  ];
  for (const b of bad) {
    const r = parseWebviewMessage(b);
    assert.equal(r.ok, false, `accepted ${JSON.stringify(b)?.slice(0, 80)}`);
    if (!r.ok) assert.ok(r.error.length > 0);
  }
});

test('malformed host messages fail their schema', () => {
  const bad: readonly unknown[] = [
    { type: 'budget' },
    { type: 'budget', budget: { ...budget, source: 'guessed' } },
    { type: 'budget', budget: { ...budget, effectiveTokens: '38k' } },
    { type: 'budget', budget: { ...budget, categories: { system: 1 } } },
    { type: 'snapshot', session: null, budget: null },
    { type: 'notice', level: 'fatal', text: 'x' },
  ];
  for (const b of bad) assert.equal(HostToWebviewSchema.safeParse(b).success, false, JSON.stringify(b).slice(0, 80));
});

test('non-finite numbers never pass: JSON would turn them into null anyway', () => {
  assert.equal(HostToWebviewSchema.safeParse({ type: 'budget', budget: { ...budget, effectiveTokens: Number.POSITIVE_INFINITY } }).success, false);
  assert.equal(HostToWebviewSchema.safeParse({ type: 'budget', budget: { ...budget, savingsRatio: Number.NaN } }).success, false);
});
