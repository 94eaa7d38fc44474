// The webview's own check of host messages (it may not import zod schemas) accepts and rejects exactly what the schema does on the samples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHostMessage as zodParse } from '../../../src/protocol/messages.js';
import { parseHostMessage as guardParse } from '../../../webview/hostGuard.js';
import { BAD_HOST, HOST_SAMPLES, card, items, snapshot } from './samples.js';

test('every valid host message passes the webview guard unchanged', () => {
  for (const m of HOST_SAMPLES) {
    const json = JSON.parse(JSON.stringify(m)) as unknown;
    assert.deepEqual(guardParse(json), json, m.type);
  }
});

test('every malformed host message is rejected by both the schema and the webview guard', () => {
  for (const b of BAD_HOST) {
    assert.equal(zodParse(b).ok, false, `schema accepted ${JSON.stringify(b)?.slice(0, 80)}`);
    assert.equal(guardParse(b), undefined, `guard accepted ${JSON.stringify(b)?.slice(0, 80)}`);
  }
});

test('the guard and the schema agree field by field on mutated items and cards', () => {
  const mutations: readonly unknown[] = [
    ...items.map((it) => ({ ...it, id: 7 })),
    ...items.map((it) => ({ ...it, kind: 'other' })),
    ...items.map((it) => ({ ...it, timestamp: 5 })),
    { ...card, trigger: 'sometimes' },
    { ...card, quality: 'great' },
    { ...card, level: 4 },
    { ...card, before: { ...card.before, messages: '1' } },
    { ...card, durationMs: -5 },
  ];
  for (const m of mutations) {
    const asItem = { type: 'itemUpdated', item: m };
    const asCard = { type: 'compactionCard', id: 'x', card: m };
    for (const msg of [asItem, asCard]) assert.equal(guardParse(msg) === undefined, !zodParse(msg).ok, JSON.stringify(msg).slice(0, 120));
  }
  const fields = Object.keys(snapshot).filter((k) => k !== 'type');
  for (const k of fields) {
    const broken = { ...snapshot, [k]: 12345 };
    assert.equal(zodParse(broken).ok, false, k);
    assert.equal(guardParse(broken), undefined, k);
  }
});
