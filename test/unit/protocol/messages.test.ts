// The host⇄webview contract: every message kind survives a JSON round trip through its schema; malformed ones are rejected.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HostToWebviewSchema,
  TranscriptItemSchema,
  WebviewToHostSchema,
  emptyChatState,
  parseHostMessage,
  parseWebviewMessage,
} from '../../../src/protocol/messages.js';
import { BAD_HOST, BAD_WEBVIEW } from './badMessages.js';
import { HOST_SAMPLES, WEBVIEW_SAMPLES } from './messageSamples.js';
import { budget, card, snapshot } from './samples.js';

function roundTrip(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

test('every host → webview kind has a sample and round-trips unchanged', () => {
  const kinds = new Set<unknown>(HOST_SAMPLES.map((m) => m.type));
  for (const option of HostToWebviewSchema.def.options)
    assert.ok(kinds.has(option.shape.type.def.values[0]), `no sample for ${option.shape.type.def.values[0]}`);
  for (const m of HOST_SAMPLES) {
    const r = parseHostMessage(roundTrip(m));
    assert.ok(r.ok, r.ok ? '' : `${m.type}: ${r.error}`);
    assert.deepEqual(r.message, roundTrip(m));
  }
});

test('every transcript item kind has a sample', () => {
  const kinds = new Set<unknown>(snapshot.transcript.items.map((i) => i.kind));
  for (const option of TranscriptItemSchema.def.options)
    assert.ok(kinds.has(option.shape.kind.def.values[0]), `no sample for ${option.shape.kind.def.values[0]}`);
});

test('every webview → host kind has a sample and round-trips unchanged', () => {
  const kinds = new Set<unknown>(WEBVIEW_SAMPLES.map((m) => m.type));
  for (const option of WebviewToHostSchema.def.options)
    assert.ok(kinds.has(option.shape.type.def.values[0]), `no sample for ${option.shape.type.def.values[0]}`);
  for (const m of WEBVIEW_SAMPLES) {
    const r = parseWebviewMessage(roundTrip(m));
    assert.ok(r.ok, r.ok ? '' : `${m.type}: ${r.error}`);
    assert.deepEqual(r.message, roundTrip(m));
  }
});

test('malformed messages from the webview are rejected with a reason', () => {
  for (const b of BAD_WEBVIEW) {
    const r = parseWebviewMessage(b);
    assert.equal(r.ok, false, `accepted ${JSON.stringify(b)?.slice(0, 80)}`);
    if (!r.ok) assert.ok(r.error.length > 0);
  }
});

test('malformed host messages fail their schema with a reason', () => {
  for (const b of BAD_HOST) {
    const r = parseHostMessage(b);
    assert.equal(r.ok, false, `accepted ${JSON.stringify(b)?.slice(0, 80)}`);
    if (!r.ok) assert.ok(r.error.length > 0);
  }
});

test('non-finite numbers never pass: JSON would turn them into null anyway', () => {
  assert.equal(HostToWebviewSchema.safeParse({ type: 'budget', budget: { ...budget, effectiveTokens: Number.POSITIVE_INFINITY } }).success, false);
  assert.equal(HostToWebviewSchema.safeParse({ type: 'budget', budget: { ...budget, savingsRatio: Number.NaN } }).success, false);
  assert.equal(
    HostToWebviewSchema.safeParse({ type: 'itemUpdated', item: { id: 'c', kind: 'compaction', card: { ...card, durationMs: Number.NaN } } }).success,
    false,
  );
});

test('a snapshot built from the empty chat state is valid', () => {
  const m = { type: 'snapshot', session: null, budget: null, settings: snapshot.settings, ...emptyChatState() };
  assert.ok(parseHostMessage(m).ok);
});

test('a page of 10,000 items is the most one message may carry', () => {
  const page = Array.from({ length: 10_001 }, (_, i) => ({ id: `m${i}`, kind: 'info', text: 'x' }));
  assert.equal(parseHostMessage({ type: 'itemsAppended', items: page.slice(0, 10_000) }).ok, true);
  assert.equal(parseHostMessage({ type: 'itemsAppended', items: page }).ok, false);
});
