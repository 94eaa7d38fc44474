// Input nested 100,000 deep (an import, a session line, a capsule file) ends in a clear one-line answer, never "Maximum call stack size exceeded".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { JsonTooDeepError, nestsDeeperThan, parseJsonText } from '../../../src/engine/jsonText.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { tempDir } from '../../support/tempDir.js';
import { session } from '../compaction/harness.js';

const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

async function oneLineError(argv: readonly string[], message: RegExp): Promise<void> {
  await assert.rejects(cli(argv), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.match(e.message, message);
    assert.doesNotMatch(e.message, /call stack/);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
}

test('the depth check: iterative, exact at the limit, cheap for long strings', () => {
  assert.equal(nestsDeeperThan(JSON.parse(DEEP)), true);
  assert.equal(nestsDeeperThan(JSON.parse(`${'['.repeat(1000)}${']'.repeat(1000)}`)), false);
  assert.equal(nestsDeeperThan(JSON.parse(`${'['.repeat(1001)}${']'.repeat(1001)}`)), true);
  assert.equal(nestsDeeperThan({ a: 'x'.repeat(1_000_000), b: [{ c: 1 }] }), false);
  assert.throws(() => parseJsonText(`{"a":${DEEP}}`), JsonTooDeepError);
});

test('parseJsonText counts both kinds of bracket at the limit, and brackets inside strings never refuse a shallow value', () => {
  // 1,001 levels alternating objects and arrays: refused; 1,000: read.
  const mixed = (levels: number): string => {
    let s = '1';
    for (let i = 0; i < levels; i++) s = i % 2 === 0 ? `[${s}]` : `{"k":${s}}`;
    return s;
  };
  assert.throws(() => parseJsonText(mixed(1001)), JsonTooDeepError);
  assert.doesNotThrow(() => parseJsonText(mixed(1000)));
  // Thousands of brackets in a string (code in a tool result) on a value two levels deep.
  const value = parseJsonText(JSON.stringify({ text: '{['.repeat(5000), list: [1] })) as { text: string };
  assert.equal(value.text.length, 10_000);
});

test('an import nested 100,000 deep is refused in one line and writes nothing; a JSON-lines import drops the line and says so', async (t) => {
  const dir = await tempDir(t);
  const input = join(dir, 'anthropic.json');
  await writeFile(
    input,
    `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{"a":${DEEP}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
  );
  await oneLineError(['import', input, '-o', join(dir, 'out.jsonl')], /nested more than 1,000 levels deep/);
  assert.equal(existsSync(join(dir, 'out.jsonl')), false);

  const lines = join(dir, 'claude.jsonl');
  const user = JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, uuid: 'a', sessionId: 's', timestamp: '2025-01-01T00:00:00Z' });
  await writeFile(
    lines,
    `${user}\n{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"s","timestamp":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":${DEEP}}}]}}\n`,
  );
  const r = await cli(['import', lines, '-o', join(dir, 'claude-out.jsonl')]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /dropped: 1 × unreadable line 2 \(JSON nested more than 1,000 levels deep/);
});

test('a session line nested 100,000 deep is a named bad line: verify says why, show and budget still answer', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_deep', cwd: dir } });
  for (const e of session(30, 100)) await store.append(e);
  await store.close();
  assert.equal((await cli(['compact', path, '--fallback', '--window', '65000'])).code, 0);
  const text = await readFile(path, 'utf8');
  const deep = text.split('\n').map((l) => (l.includes('"type":"capsule"') ? l.replace('"details":{', `"details":{"deep":${DEEP},`) : l));
  await writeFile(path, deep.join('\n'));

  const verify = await cli(['verify', path]);
  assert.equal(verify.code, 1);
  assert.match(verify.out, /invalid JSON \(JSON nested more than 1,000 levels deep/);
  const budget = await cli(['budget', path, '--window', '65000', '--json']);
  assert.equal(budget.code, 0);
  // The capsule's line is refused, so no capsule is in force: a clear one-line answer, not a stack overflow.
  await oneLineError(['show', path, '--json'], /no capsule on the active branch/);
});

test('a capsule file with text nested 100,000 deep loads: its body is text, nothing walks it recursively', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_deep', cwd: dir } });
  for (const e of session(30, 100)) await store.append(e);
  await store.close();
  await cli(['compact', path, '--fallback', '--window', '65000']);
  const file = join(dir, 'c.capsule.md');
  assert.equal((await cli(['export', path, '-o', file])).code, 0);
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Goal\n', `## Goal\n${DEEP}\n`));
  const r = await cli(['load', file, '--new-session', join(dir, 'n.jsonl'), '--anyway']);
  assert.equal(r.code, 0, r.out);
  assert.equal((await cli(['show', join(dir, 'n.jsonl'), '--json'])).code, 0);
});
