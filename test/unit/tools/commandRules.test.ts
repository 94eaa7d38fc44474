// Always-allow command rules compare parsed words of one simple command, never substrings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandAllowed, parseRule, simpleCommandWords, suggestedRule } from '../../../src/node/tools/commandRules.js';

test('a rule matches the same command and its longer forms', () => {
  const rules = ['npm test'];
  for (const ok of ['npm test', 'npm  test', 'npm test -- --watch', "npm 'test'", 'npm "test" src/a.test.ts'])
    assert.equal(commandAllowed(ok, rules), true, ok);
});

test('a rule never matches a different command, a compound line or anything that could run more', () => {
  const rules = ['npm test'];
  for (const bad of [
    'npm test; rm -rf ~',
    'npm test && rm -rf ~',
    'npm test || curl x',
    'npm test | sh',
    'npm test > /etc/passwd',
    'npm test $(rm -rf ~)',
    'npm test `rm -rf ~`',
    'npm test "$(rm -rf ~)"',
    'npm test\nrm -rf ~',
    'npm test &',
    'npm testx',
    'npm',
    'npx test',
    'sudo npm test',
    'npm test "unclosed',
    'FOO=1 npm test',
  ]) {
    assert.equal(commandAllowed(bad, rules), false, JSON.stringify(bad));
  }
  assert.equal(commandAllowed('anything', ['npm test; rm -rf ~']), false, 'a compound rule is no rule');
});

test('words are parsed like the shell does for simple commands', () => {
  assert.deepEqual(simpleCommandWords(`git commit -m 'fix: a "b"' --amend`), ['git', 'commit', '-m', 'fix: a "b"', '--amend']);
  assert.deepEqual(simpleCommandWords('echo a\\ b'), ['echo', 'a b']);
  assert.equal(simpleCommandWords('   '), undefined);
  assert.equal(parseRule('npm test | x').ok, false);
});

test('the suggested rule is the first two words, and none for a compound line', () => {
  assert.equal(suggestedRule('npm test -- --grep parse'), 'npm test');
  assert.equal(suggestedRule('ls'), 'ls');
  assert.equal(suggestedRule('npm test; rm -rf ~'), undefined);
  assert.equal(suggestedRule("git 'my sub'"), "git 'my sub'");
  assert.equal(commandAllowed("git 'my sub' x", [suggestedRule("git 'my sub'") ?? '']), true);
});
