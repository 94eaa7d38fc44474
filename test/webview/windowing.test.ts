// The window arithmetic of the message list, in plain Node: spacer sizes, locating an offset, and where the window goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INITIAL, OVERSCAN, WINDOW_MAX, heightOf, indexAt, span, windowFor } from '../../webview/windowing.js';

test('measured heights are used where known and the estimate elsewhere', () => {
  const h = [10, 0, 30];
  assert.equal(heightOf(h, 0, 50), 10);
  assert.equal(heightOf(h, 1, 50), 50);
  assert.equal(heightOf(h, 9, 50), 50);
  assert.equal(span(h, 0, 3, 50), 90);
  assert.equal(span(h, 1, 1, 50), 0);
});

test('an offset maps to the item covering it, clamped to the range', () => {
  const h = [10, 20, 30];
  assert.equal(indexAt(h, 0, 0, 0, 3, 50), 0);
  assert.equal(indexAt(h, 9.5, 0, 0, 3, 50), 0);
  assert.equal(indexAt(h, 10, 0, 0, 3, 50), 1);
  assert.equal(indexAt(h, 59, 0, 0, 3, 50), 2);
  assert.equal(indexAt(h, 1000, 0, 0, 3, 50), 2);
  assert.equal(indexAt(h, 105, 100, 1, 3, 50), 1, 'a range stacked from an offset');
});

test('the window covers the viewport with overscan, stays within the list and never exceeds its maximum', () => {
  assert.deepEqual(windowFor(0, 10, 5000), { start: 0, end: INITIAL });
  assert.deepEqual(windowFor(4990, 4999, 5000), { start: 5000 - INITIAL, end: 5000 });
  const mid = windowFor(2500, 2520, 5000);
  assert.equal(mid.start, 2500 - OVERSCAN);
  assert.ok(mid.end >= 2520 + OVERSCAN && mid.end - mid.start <= WINDOW_MAX);
  assert.deepEqual(windowFor(0, 3, 4), { start: 0, end: 4 });
  const huge = windowFor(100, 900, 5000);
  assert.equal(huge.end - huge.start, WINDOW_MAX);
});
