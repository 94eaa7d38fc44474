// Tests for the CLI argument parser: commands, positionals, known flags and one-line errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliError, intFlag, parseCli } from '../../../src/cli/args.js';
import { CliError as CliErrorFromErrors } from '../../../src/cli/errors.js';

function parseError(argv: readonly string[]): CliError {
  try {
    parseCli(argv);
  } catch (e) {
    assert.ok(e instanceof CliError, `expected a CliError, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected ${argv.join(' ')} to be rejected`);
}

test('command, positionals and flags are separated; -o and -h map to their long names', () => {
  const r = parseCli(['capsule', 'export', 'ck_abc', '--session', 's.jsonl', '-o', './handoff.capsule.md', '--json']);
  assert.equal(r.command, 'capsule');
  assert.deepEqual(r.positionals, ['export', 'ck_abc']);
  assert.deepEqual(r.flags, { session: 's.jsonl', out: './handoff.capsule.md', json: true });
  assert.deepEqual(parseCli(['-h']), { command: '', positionals: [], flags: { help: true } });
});

test('every documented flag is accepted, with = or a separate value', () => {
  const r = parseCli([
    'compact',
    'x.jsonl',
    '--model=gpt-4o',
    '--window',
    '65000',
    '--max-output',
    '8000',
    '--trigger',
    'user',
    '--fallback',
    '--base-url',
    'http://127.0.0.1:1/v1',
    '--api-key-env',
    'MY_KEY',
    '--workspace',
    '/w',
    '--yes',
    '--checkpoint',
    'ck_1',
    '--provider',
    'openai',
    '--help',
  ]);
  assert.equal(r.command, 'compact');
  assert.deepEqual(r.positionals, ['x.jsonl']);
  assert.deepEqual(r.flags, {
    model: 'gpt-4o',
    window: '65000',
    'max-output': '8000',
    trigger: 'user',
    fallback: true,
    'base-url': 'http://127.0.0.1:1/v1',
    'api-key-env': 'MY_KEY',
    workspace: '/w',
    yes: true,
    checkpoint: 'ck_1',
    provider: 'openai',
    help: true,
  });
});

test('an unknown flag is rejected with one line naming it', () => {
  for (const flag of ['--modle', '-x']) {
    const e = parseError(['budget', flag]);
    assert.match(e.message, new RegExp(`unknown option '${flag}'`));
    assert.ok(!e.message.includes('\n'), e.message);
    assert.equal(e.exitCode, 2);
  }
});

test('a string flag without its value is rejected, also when the next word is another flag', () => {
  assert.equal(parseError(['budget', '--model']).message, '--model needs a value');
  assert.equal(parseError(['compact', '-o']).message, '-o needs a value');
  const e = parseError(['budget', '--model', '--json']);
  assert.match(e.message, /^--model needs a value/);
  assert.ok(!e.message.includes('\n'), e.message);
});

test('a boolean flag given a value is rejected', () => {
  assert.equal(parseError(['budget', '--json=yes']).message, '--json does not take a value');
});

test('-- ends the flags so a positional may start with a dash', () => {
  const r = parseCli(['verify', '--', '--weird-name.jsonl']);
  assert.deepEqual(r.positionals, ['--weird-name.jsonl']);
  assert.deepEqual(r.flags, {});
});

test('intFlag reads positive integers and rejects everything else with the flag and the value', () => {
  assert.equal(intFlag(parseCli(['budget', '--window', '65000']).flags, 'window'), 65000);
  assert.equal(intFlag(parseCli(['budget']).flags, 'window'), undefined);
  assert.throws(
    () => intFlag({ window: 'abc' }, 'window'),
    (e: unknown) => e instanceof CliError && e.message === "--window must be a positive integer (got 'abc')",
  );
  for (const bad of ['0', '-5', '1.5', '1e3', '', '0x10', '99999999999999999999']) {
    assert.throws(
      () => intFlag({ 'max-output': bad }, 'max-output'),
      (e: unknown) => e instanceof CliError && e.message.startsWith('--max-output must be a positive integer'),
      bad,
    );
  }
  assert.throws(() => intFlag({ window: true }, 'window'), /--window must be a positive integer \(got no value\)/);
});

test('CliError is the same class from args and errors, and a real Error', () => {
  assert.equal(CliError, CliErrorFromErrors);
  const e = new CliError('boom');
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'CliError');
});
