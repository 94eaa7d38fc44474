// The command catalog: slash commands typed in the chat, what each parses to, what stays a plain message, and the help and popup derived from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS, helpLines, parseSlash, runsImmediately, SLASH_COMPLETIONS, SLASH_HELP } from '../../../src/protocol/commands.js';

test('the commands of docs/behaviour.md#observability and #portable parse with their arguments', () => {
  assert.deepEqual(parseSlash('/compact'), { kind: 'compact' });
  assert.deepEqual(parseSlash('  /compact   keep the auth decisions '), { kind: 'compact', focus: 'keep the auth decisions' });
  assert.deepEqual(parseSlash('/budget'), { kind: 'budget' });
  assert.deepEqual(parseSlash('/auto-compact off'), { kind: 'autoCompact', state: 'off' });
  assert.deepEqual(parseSlash('/auto-compact on'), { kind: 'autoCompact', state: 'on' });
  assert.deepEqual(parseSlash('/capsule'), { kind: 'capsuleShow' });
  assert.deepEqual(parseSlash('/capsule create "handoff auth work"'), { kind: 'capsuleCreate', title: 'handoff auth work' });
  assert.deepEqual(parseSlash('/capsule create plain title'), { kind: 'capsuleCreate', title: 'plain title' });
  assert.deepEqual(parseSlash('/capsule export ck_abc ./handoff.capsule.md'), { kind: 'capsuleExport', checkpointId: 'ck_abc', path: './handoff.capsule.md' });
  assert.deepEqual(parseSlash('/capsule export ck_abc "my files/handoff.capsule.md"'), {
    kind: 'capsuleExport',
    checkpointId: 'ck_abc',
    path: 'my files/handoff.capsule.md',
  });
  assert.deepEqual(parseSlash('/capsule load ./handoff.capsule.md'), { kind: 'capsuleLoad', path: './handoff.capsule.md' });
});

test('plain messages are not commands, even when they start with a path', () => {
  assert.equal(parseSlash('please /compact later'), undefined);
  assert.equal(parseSlash('/usr/bin/env is missing'), undefined);
  assert.equal(parseSlash('hello'), undefined);
});

test('bad arguments and unknown commands say what would work', () => {
  for (const text of [
    '/auto-compact maybe',
    '/budget now',
    '/capsule create ""',
    '/capsule export abc out.md',
    '/capsule export ck_abc',
    '/capsule load',
    '/capsule frobnicate',
    '/helpme',
    '/checkpoint-all',
  ]) {
    const c = parseSlash(text);
    assert.equal(c?.kind, 'invalid', text);
    assert.match(c?.kind === 'invalid' ? c.message : '', /\/compact \[focus\]/, `${text} lists the commands`);
  }
});

test('reading commands run at once; compaction and loading wait for the running turn', () => {
  const quick = ['/budget', '/auto-compact on', '/capsule', '/capsule export ck_a x.md', '/nope']
    .map((t) => parseSlash(t))
    .map((c) => c !== undefined && runsImmediately(c));
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
  assert.ok(bad?.kind === 'invalid' && bad.message.startsWith('Usage: /mode [ask|agent]'));
  assert.equal(runsImmediately({ kind: 'mode', mode: 'ask' }), false);
  assert.equal(runsImmediately({ kind: 'skills' }), true);
});

test('checkpoint, milestone and pivot take an optional note', () => {
  assert.deepEqual(parseSlash('/checkpoint'), { kind: 'checkpoint' });
  assert.deepEqual(parseSlash('/milestone "auth done"'), { kind: 'milestone', note: 'auth done' });
  assert.deepEqual(parseSlash('/pivot switch to the queue design'), { kind: 'pivot', note: 'switch to the queue design' });
  assert.equal(runsImmediately({ kind: 'pivot' }), false);
});

test('/help, the one-line help and the popup all come from the catalog: every slash command is in each', () => {
  assert.deepEqual(parseSlash('/help'), { kind: 'help' });
  assert.equal(runsImmediately({ kind: 'help' }), true);
  const slashNames = Object.values(COMMANDS).flatMap((c) => ('slash' in c ? [`/${c.slash.name}`] : []));
  assert.ok(slashNames.length >= 13, slashNames.join(' '));
  const lines = helpLines();
  assert.equal(lines.length, slashNames.length);
  for (const name of slashNames) {
    assert.ok(SLASH_HELP.includes(name), `${name} in the help line`);
    assert.ok(
      lines.some((l) => l.startsWith(name)),
      `${name} in /help`,
    );
    assert.ok(
      SLASH_COMPLETIONS.some((c) => c.insert.startsWith(name)),
      `${name} in the popup`,
    );
  }
  assert.match(SLASH_HELP, /^Commands: \/compact \[focus\], \/budget, \/auto-compact on\|off, /);
  assert.ok(lines.includes('/capsule export ck_… path — Write a checkpoint’s capsule to a .capsule.md file'));
});
