// The formatting the host views and the webview share (src/protocol/format.ts): one set of rules for both sides.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { age, bytes, duration, fullTokens, percent, shortTokens } from '../../../src/protocol/format.js';

test('token figures: short for the meter and status bar, full with separators for tooltips', () => {
  assert.deepEqual([950, 1000, 38_420, 100_000, 123_456, 1_250_000, 12_500_000, -38_420].map(shortTokens), [
    '950',
    '1k',
    '38.4k',
    '100k',
    '123k',
    '1.25M',
    '12.5M',
    '-38.4k',
  ]);
  assert.deepEqual([0, 999, 38_420, 1_234_567, -38_420, 12.6].map(fullTokens), ['0', '999', '38,420', '1,234,567', '-38,420', '13']);
});

test('ratios, durations, ages and sizes', () => {
  assert.deepEqual([0, 0.478, 1].map(percent), ['0%', '48%', '100%']);
  assert.deepEqual([850, 3_200, 125_000].map(duration), ['850 ms', '3.2 s', '2m 5s']);
  assert.deepEqual([-5, 59_000, 125_000, 3 * 3_600_000, 72 * 3_600_000].map(age), ['0s ago', '59s ago', '2m ago', '3h ago', '3d ago']);
  assert.deepEqual([900, 2_048, 3 * 1024 * 1024].map(bytes), ['900 B', '2.0 KB', '3.0 MB']);
});
