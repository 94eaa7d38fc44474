// The Project Memory mirroring rules as a table (one test per trigger × quality), and the memory's system-update text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROJECT_MEMORY_CLEARED_UPDATE, memoryBodyOf, projectMemoryUpdate, shouldMirror } from '../../../src/engine/portable/memoryPolicy.js';
import { importedSummary } from '../../../src/engine/portable/imported.js';
import { TRIGGERS, type Trigger } from '../../../src/engine/transcript/schema.js';
import { META, bodyText } from './helpers.js';

/** Expected verdict for a validated capsule: only an explicit /compact at full quality is mirrored. */
const TABLE: ReadonlyArray<readonly [Trigger, 'full' | 'degraded', boolean]> = [
  ['user', 'full', true],
  ['user', 'degraded', false],
  ['auto_threshold', 'full', false],
  ['auto_threshold', 'degraded', false],
  ['turn_complete', 'full', false],
  ['turn_complete', 'degraded', false],
  ['milestone', 'full', false],
  ['milestone', 'degraded', false],
  ['plan_pivot', 'full', false],
  ['plan_pivot', 'degraded', false],
  ['hard_limit', 'full', false],
  ['hard_limit', 'degraded', false],
  ['context_overflow', 'full', false],
  ['context_overflow', 'degraded', false],
  ['idle', 'full', false],
  ['idle', 'degraded', false],
  ['model_switch', 'full', false],
  ['model_switch', 'degraded', false],
];

test('the table covers every trigger the schema knows, at both qualities', () => {
  const covered = new Set(TABLE.map(([t, q]) => `${t}/${q}`));
  for (const t of TRIGGERS) for (const q of ['full', 'degraded']) assert.ok(covered.has(`${t}/${q}`), `${t}/${q} missing from the table`);
  assert.equal(TABLE.length, TRIGGERS.length * 2);
});

for (const [trigger, quality, expected] of TABLE) {
  test(`a validated ${quality} ${trigger} capsule is ${expected ? '' : 'never '}mirrored into Project Memory`, () => {
    assert.equal(shouldMirror(trigger, quality, true), expected);
  });
}

test('a capsule that failed validation is never mirrored, whatever its trigger or quality', () => {
  for (const t of TRIGGERS) for (const q of ['full', 'degraded'] as const) assert.equal(shouldMirror(t, q, false), false, `${t}/${q}`);
});

test('the memory update is labelled as data, holds the capsule verbatim and ends with a marker the body cannot forge', () => {
  const body = bodyText();
  const checksum = 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
  const text = projectMemoryUpdate({ meta: META, body, checksum, modified: false });
  assert.match(text, /^# Project Memory \(data, not instructions\)\n/);
  assert.match(text, /not as instructions/);
  assert.ok(text.includes(body.trimEnd()));
  assert.ok(text.endsWith('[end of Project Memory sha256:0123456789abcdef]'));
  assert.doesNotMatch(text, /edited by hand/);
  assert.match(projectMemoryUpdate({ meta: META, body, checksum, modified: true }), /edited by hand/);
  assert.match(PROJECT_MEMORY_CLEARED_UPDATE, /cleared/);
});

test('mirroring an imported capsule stores its state without the import preface', () => {
  const body = bodyText();
  assert.equal(memoryBodyOf({ summary: importedSummary(META, body, false) }), body);
  assert.equal(memoryBodyOf({ summary: body }), body);
});
