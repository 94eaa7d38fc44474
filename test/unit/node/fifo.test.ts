// Nothing blocks on a FIFO: every CLI command and tool refuses a named pipe at once; search has a time limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { CliError } from '../../../src/cli/args.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { readCapsuleFile } from '../../../src/node/capsuleFiles.js';
import { tempDir } from '../agent/agentHelpers.js';
import { makeHost } from '../tools/toolHelpers.js';

const BASIC = resolve(__dirname, '..', '..', 'fixtures', 'sessions', 'basic.jsonl');

function mkfifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

/** The command's error line (what the CLI prints), or its exit code when it returned. */
async function run(args: readonly string[]): Promise<string> {
  try {
    return `exit ${await main(args, () => undefined)}`;
  } catch (e) {
    assert.ok(e instanceof CliError || e instanceof Error);
    return e.message;
  }
}

test('every command given a FIFO as its session or input refuses it at once with a one-line error', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t, 'capsule-fifo-');
  const pipe = mkfifo(join(dir, 'pipe.jsonl'));
  const session = join(dir, 'ok.jsonl');
  await copyFile(BASIC, session);
  const cases: readonly (readonly string[])[] = [
    ['verify', pipe],
    ['budget', pipe],
    ['show', pipe],
    ['export', pipe, '-o', join(dir, 'x.capsule.md')],
    ['import', pipe, '-o', join(dir, 'new.jsonl')],
    ['compact', pipe, '--fallback'],
    ['load', pipe, '--new-session', join(dir, 'n.jsonl')],
    ['load', pipe, '--into', session],
  ];
  for (const argv of cases) {
    const message = await run(argv);
    assert.match(message, /named pipe \(FIFO\)|not a regular file|not a file/, `${argv.join(' ')} → ${message}`);
    assert.equal(message.includes('\n'), false);
  }
  await assert.rejects(loadSessionFile(pipe), /named pipe \(FIFO\), not a regular file/);
  await assert.rejects(readCapsuleFile(pipe), /not a/);
});

test('the tools refuse a FIFO instead of hanging: read_file, edit_file, write_file, search', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t, 'capsule-fifo-tools-');
  mkfifo(join(dir, 'p'));
  const h = makeHost(dir);
  for (const [name, args] of [
    ['read_file', { path: 'p' }],
    ['edit_file', { path: 'p', oldText: 'a', newText: 'b' }],
    ['write_file', { path: 'p', content: 'x' }],
    ['search', { query: 'x', path: 'p' }],
  ] as const) {
    const r = await h.call(name, args);
    assert.equal(r.isError, true, name);
    assert.match(r.content, /not a regular file|pipe/, `${name}: ${r.content}`);
  }
  // A FIFO inside a searched folder is skipped by ripgrep's walk, not read.
  const r = await h.call('search', { query: 'needle' });
  assert.equal(r.isError, false, r.content);
});

test('search stops ripgrep at its time limit and returns what it found so far', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t, 'capsule-search-limit-');
  const { chmod, writeFile } = await import('node:fs/promises');
  // A ripgrep that prints one match and then never finishes, like a pathological pattern on a huge tree.
  const slowRg = join(dir, 'slow-rg');
  await writeFile(slowRg, `#!/bin/sh\nprintf '%s\\0%s\\n' "${dir}/a.txt" '1:found early'\nexec sleep 60\n`);
  await chmod(slowRg, 0o755);
  await writeFile(join(dir, 'a.txt'), 'found early\n');
  const h = makeHost(dir, { ripgrepPath: slowRg, limits: { searchTimeoutMs: 300 } });
  const r = await h.call('search', { query: 'a{1000}{1000}', regex: true });
  assert.match(r.content, /^a\.txt:1:found early\n\[search stopped after 0 s; narrow the query/, r.content);
});
