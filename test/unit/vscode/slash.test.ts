// Slash commands typed in the chat: what each parses to, and what stays a plain message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSlash, runsImmediately } from '../../../src/vscode/base/slash.js';

test('the commands of docs/behaviour.md#observability and #portable parse with their arguments', () => {
  assert.deepEqual(parseSlash('/compact'), { kind: 'compact' });
  assert.deepEqual(parseSlash('  /compact   keep the auth decisions '), { kind: 'compact', focus: 'keep the auth decisions' });
  assert.deepEqual(parseSlash('/budget'), { kind: 'budget' });
  assert.deepEqual(parseSlash('/auto-compact off'), { kind: 'autoCompact', on: false });
  assert.deepEqual(parseSlash('/auto-compact on'), { kind: 'autoCompact', on: true });
  assert.deepEqual(parseSlash('/capsule'), { kind: 'capsuleShow' });
  assert.deepEqual(parseSlash('/capsule create "handoff auth work"'), { kind: 'capsuleCreate', title: 'handoff auth work' });
  assert.deepEqual(parseSlash('/capsule create plain title'), { kind: 'capsuleCreate', title: 'plain title' });
  assert.deepEqual(parseSlash('/capsule export ck_abc ./handoff.capsule.md'), { kind: 'capsuleExport', checkpointId: 'ck_abc', path: './handoff.capsule.md' });
  assert.deepEqual(parseSlash('/capsule export ck_abc "my files/handoff.capsule.md"'), { kind: 'capsuleExport', checkpointId: 'ck_abc', path: 'my files/handoff.capsule.md' });
  assert.deepEqual(parseSlash('/capsule load ./handoff.capsule.md'), { kind: 'capsuleLoad', path: './handoff.capsule.md' });
});

test('plain messages are not commands, even when they start with a path', () => {
  assert.equal(parseSlash('please /compact later'), undefined);
  assert.equal(parseSlash('/usr/bin/env is missing'), undefined);
  assert.equal(parseSlash('hello'), undefined);
});

test('bad arguments and unknown commands say what would work', () => {
  for (const text of ['/auto-compact maybe', '/budget now', '/capsule create ""', '/capsule export abc out.md', '/capsule export ck_abc', '/capsule load', '/capsule frobnicate', '/help']) {
    const c = parseSlash(text);
    assert.equal(c?.kind, 'invalid', text);
    assert.match(c?.kind === 'invalid' ? c.message : '', /\/compact \[focus\]/, `${text} lists the commands`);
  }
});

test('reading commands run at once; compaction and loading wait for the running turn', () => {
  const quick = ['/budget', '/auto-compact on', '/capsule', '/capsule export ck_a x.md', '/nope'].map((t) => parseSlash(t)).map((c) => c !== undefined && runsImmediately(c));
  assert.deepEqual(quick, [true, true, true, true, true]);
  const waits = ['/compact', '/capsule create "t"', '/capsule load f.md'].map((t) => parseSlash(t)).map((c) => c !== undefined && runsImmediately(c));
  assert.deepEqual(waits, [false, false, false]);
});

test('/mode and /skills: a switch waits its turn, showing does not; a bad mode says what works', () => {
  assert.deepEqual(parseSlash('/mode ask'), { kind: 'mode', mode: 'ask' });
  assert.deepEqual(parseSlash('/mode agent'), { kind: 'mode', mode: 'agent' });
  assert.deepEqual(parseSlash('/mode'), { kind: 'mode' });
  assert.deepEqual(parseSlash('/skills'), { kind: 'skills' });
  const bad = parseSlash('/mode edit');
  assert.ok(bad?.kind === 'invalid' && bad.message.startsWith('Usage: /mode agent|ask'));
  assert.equal(runsImmediately({ kind: 'mode', mode: 'ask' }), false);
  assert.equal(runsImmediately({ kind: 'skills' }), true);
});
