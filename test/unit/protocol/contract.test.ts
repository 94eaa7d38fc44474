// Both sides of the host⇄webview contract agree: every string of every sample message, at and just past every size in the limits table, is accepted or rejected by the schema and the webview's checks alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMITS, LIST_LIMITS } from '../../../src/protocol/limits.js';
import { parseHostMessage as zodParse } from '../../../src/protocol/messages.js';
import { parseHostMessage as guardParse } from '../../../webview/hostGuard.js';
import { HOST_SAMPLES } from './samples.js';

type Path = readonly (string | number)[];

/** Paths to every string leaf of a JSON value. */
function stringPaths(v: unknown, at: Path = []): Path[] {
  if (typeof v === 'string') return [at];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringPaths(x, [...at, i]));
  if (typeof v === 'object' && v !== null) return Object.entries(v).flatMap(([k, x]) => (k === 'type' && at.length === 0 ? [] : stringPaths(x, [...at, k])));
  return [];
}

function withValue(root: unknown, path: Path, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(root)) as unknown;
  let node = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
  return copy;
}

const SIZES = [...new Set(Object.values(LIMITS))].sort((a, b) => a - b);

test('at and past every size of the limits table, the schema and the webview guard take the same decision on every string field', () => {
  let checked = 0;
  let rejected = 0;
  for (const sample of HOST_SAMPLES) {
    for (const path of stringPaths(sample)) {
      const original = path.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], sample) as string;
      // Keep the field's own shape (a `ck_` id stays one) and only change its length.
      const pad = original.length > 0 ? original[original.length - 1] : 'a';
      for (const size of SIZES) {
        for (const n of [size, size + 1]) {
          const value = original.length <= n ? original + (pad ?? 'a').repeat(n - original.length) : original.slice(0, n);
          const msg = withValue(sample, path, value);
          const schemaOk = zodParse(msg).ok;
          assert.equal(guardParse(msg) !== undefined, schemaOk, `${sample.type}.${path.join('.')} at ${n} characters`);
          checked++;
          if (!schemaOk) rejected++;
        }
      }
    }
  }
  assert.ok(checked > 1000, `checked ${checked} variants`);
  assert.ok(rejected > checked / 4, 'most fields have a limit below the largest size, so both sides must have rejected many');
});

test('list sizes: one item more than the table allows is refused by both sides', () => {
  const item = { id: 'i1', kind: 'info', text: 'x' };
  const at = { type: 'itemsAppended', items: Array.from({ length: LIST_LIMITS.items }, (_, i) => ({ ...item, id: `i${i}` })) };
  const past = { ...at, items: [...at.items, { ...item, id: 'one-more' }] };
  assert.equal(zodParse(at).ok, true);
  assert.notEqual(guardParse(at), undefined);
  assert.equal(zodParse(past).ok, false);
  assert.equal(guardParse(past), undefined);
});
