// The exact ledger (docs/behaviour.md#capsule): files, commands with exit status, last verification, skills, original and latest request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LEDGER_DETAILS_KEY, MAX_LEDGER_COMMANDS, buildLedger, ledgerFromDetails } from '../../../src/engine/compaction/ledger.js';
import { exitCodeIn, isTestCommand, pathsInPatch, toolKind } from '../../../src/engine/compaction/toolActions.js';
import { SessionBuilder } from './sessionBuilder.js';

const ORIGINAL = 'Add a login page.\n\nUse the existing `auth` module; no new dependencies.';
const LATEST = 'Now make the failing test pass.';

function transcript(): { b: SessionBuilder; half: number } {
  const b = new SessionBuilder();
  b.user(ORIGINAL);
  b.assistant('Looking around.', 10, [
    { name: 'read_file', args: { path: 'src/app.ts' }, result: 'export const app = 1;' },
    { name: 'read_file', args: { path: './src/missing.ts' }, result: 'ENOENT', isError: true },
    { name: 'list_files', args: { path: 'src' }, result: 'app.ts\nauth.ts' },
    { name: 'search', args: { query: 'login' }, result: 'no matches' },
  ]);
  b.assistant('Writing.', 10, [
    { name: 'write_file', args: { path: 'src/login.ts', content: 'x' }, result: 'wrote 1 line' },
    { name: 'edit_file', args: { path: 'src/app.ts', old: 'a', new: 'b' }, result: 'edited' },
    { name: 'edit_file', args: { path: 'src/readonly.ts' }, result: 'permission denied', isError: true },
    {
      name: 'apply_patch',
      args: { input: '*** Begin Patch\n*** Update File: src/routes.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** End Patch' },
      result: 'Done',
    },
    { name: 'apply_patch', args: '--- a/src/diffed.ts\n+++ b/src/diffed.ts\n@@ -1 +1 @@\n-a\n+b', result: 'applied' },
  ]);
  const half = b.entries.length;
  b.assistant('Testing.', 10, [
    { name: 'run_command', args: { command: 'npm test' }, result: '1 failing\n\nexit code 1' },
    { name: 'run_command', args: { command: 'ls -la' }, result: 'total 0\nExit code: 0' },
    { name: 'run_command', args: { command: 'false' }, result: 'command failed', isError: true },
  ]);
  b.user(LATEST);
  b.assistant('Fixing.', 10, [
    { name: 'use_skill', args: { name: 'frontend-design' }, result: 'skill loaded' },
    { name: 'run_command', args: { command: 'npx vitest run' }, result: 'all passed\nexited with code 0' },
    { name: 'run_command', args: { command: 'npm run build' }, noResult: true },
  ]);
  return { b, half };
}

test('the ledger records exactly what the transcript shows', () => {
  const { b } = transcript();
  const l = buildLedger(b.entries);
  assert.equal(l.originalTask, ORIGINAL);
  assert.equal(l.latestRequest, LATEST);
  assert.deepEqual(l.filesRead, ['src/app.ts']);
  // Least recently changed first; a patch's added files are recorded before its updated ones.
  assert.deepEqual(l.filesModified, ['src/login.ts', 'src/app.ts', 'src/new.ts', 'src/routes.ts', 'src/diffed.ts']);
  assert.deepEqual(
    l.commands.map((c) => [c.command, c.exitCode, c.ok]),
    [
      ['npm test', 1, false],
      ['ls -la', 0, true],
      ['false', null, false],
      ['npx vitest run', 0, true],
      ['npm run build', null, null],
    ],
  );
  assert.deepEqual(l.lastVerification && [l.lastVerification.command, l.lastVerification.passed, l.lastVerification.exitCode], ['npx vitest run', true, 0]);
  assert.deepEqual(l.activeSkills, ['frontend-design']);
  assert.equal(l.commandsOmitted, 0);
});

test('merging with the previous capsule ledger loses nothing and counts nothing twice', () => {
  const { b, half } = transcript();
  const all = buildLedger(b.entries);
  const first = buildLedger(b.entries.slice(0, half));
  assert.equal(first.latestRequest, ORIGINAL);
  assert.equal(first.lastVerification, null);
  const merged = buildLedger(b.entries.slice(half), first);
  assert.deepEqual(merged, all);
  // Overlapping input (the retained tail is seen again by the next compaction) is idempotent.
  assert.deepEqual(buildLedger(b.entries.slice(2), all), all);
  // The original task survives even when the span no longer contains it.
  const later = buildLedger(b.entries.slice(-4), first);
  assert.equal(later.originalTask, ORIGINAL);
  assert.equal(later.latestRequest, LATEST);
});

test('the ledger is read back from capsule details; malformed details give undefined', () => {
  const { b } = transcript();
  const l = buildLedger(b.entries);
  const details = JSON.parse(JSON.stringify({ [LEDGER_DETAILS_KEY]: l })) as Record<string, unknown>;
  assert.deepEqual(ledgerFromDetails(details), l);
  assert.equal(ledgerFromDetails({}), undefined);
  assert.equal(ledgerFromDetails({ ledger: { filesRead: 'nope' } }), undefined);
  assert.equal(ledgerFromDetails(undefined), undefined);
});

test('a very long session keeps the most recent commands and counts the rest', () => {
  const b = new SessionBuilder();
  b.user('go');
  for (let i = 0; i < MAX_LEDGER_COMMANDS + 25; i++) b.assistant('', 1, [{ name: 'run_command', args: { command: `echo ${i}` }, result: 'exit code 0' }]);
  const l = buildLedger(b.entries);
  assert.equal(l.commands.length, MAX_LEDGER_COMMANDS);
  assert.equal(l.commandsOmitted, 25);
  assert.equal(l.commands[0]?.command, 'echo 25');
});

test('broken tool arguments are ignored, not thrown', () => {
  const b = new SessionBuilder();
  b.user('x');
  b.assistant('', 1, [
    { name: 'read_file', args: '{"path": ', result: 'ok' },
    { name: 'write_file', args: '[1,2]', result: 'ok' },
    { name: 'run_command', args: 'null', result: 'ok' },
  ]);
  const l = buildLedger(b.entries);
  assert.deepEqual([l.filesRead, l.filesModified, l.commands], [[], [], []]);
});

test('tool kinds, exit codes, test commands and patch paths', () => {
  assert.deepEqual(
    ['read_file', 'write_file', 'edit_file', 'search_replace', 'list_files', 'search', 'run_command', 'bash', 'use_skill', 'checkpoint'].map(toolKind),
    ['read', 'modify', 'modify', 'modify', 'list', 'search', 'command', 'command', 'skill', 'other'],
  );
  // "exit status N" is printed by programs themselves (go, make): a success that printed it is not exit 2.
  assert.equal(exitCodeIn('done\nexit status 2'), null);
  assert.equal(exitCodeIn('Exit code: 0'), 0);
  assert.equal(exitCodeIn('no code here'), null);
  for (const c of [
    'npm test',
    'npm run test -- --watch=false',
    'pytest -q',
    'go test ./...',
    'cargo test',
    'npx jest',
    'vitest run',
    'mocha',
    'node --import tsx --test test/a.test.ts',
  ]) {
    assert.ok(isTestCommand(c), c);
  }
  for (const c of ['npm install', 'ls', 'git status', 'cat test.txt', 'node build.js']) assert.ok(!isTestCommand(c), c);
  assert.deepEqual(pathsInPatch('*** Delete File: old.ts\n*** Update File: a.ts\n*** Move to: b.ts\n--- /dev/null\n+++ b/c.ts'), [
    'old.ts',
    'a.ts',
    'b.ts',
    'c.ts',
  ]);
});

test('the exit code the tool host wrote last wins over exit codes mentioned in the command output', async () => {
  const { exitCodeIn } = await import('../../../src/engine/compaction/toolActions.js');
  assert.equal(exitCodeIn('npm ERR! exit code 1\nretry ok\nexit code 0'), 0);
  assert.equal(exitCodeIn('exit code 2'), 2);
  assert.equal(exitCodeIn('no status here'), null);
});
