// An import is written whole or not at all: a line over the limit leaves nothing at -o (no temp files either), whether the file was read whole or streamed, and the retry is not refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../../src/node/lineReader.js';
import { tempDir } from '../../support/tempDir.js';

async function cli(argv: readonly string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(argv, (s) => lines.push(s));
  return { code, out: lines.join('\n') };
}

test('an import refused for a line over the session line limit leaves nothing at -o, and the retry is not refused', async (t) => {
  const dir = await tempDir(t);
  const big = join(dir, 'big.json');
  await writeFile(
    big,
    JSON.stringify([
      { role: 'user', content: 'x'.repeat(DEFAULT_MAX_LINE_BYTES + 1024) },
      { role: 'assistant', content: 'ok' },
    ]),
  );
  const out = join(dir, 'session.jsonl');
  await assert.rejects(cli(['import', big, '-o', out]), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.match(e.message, /not imported, .*line limit; nothing was written$/);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
  assert.deepEqual((await readdir(dir)).sort(), ['big.json'], 'nothing at -o, no temporary file left behind');

  const small = join(dir, 'small.json');
  await writeFile(
    small,
    JSON.stringify([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]),
  );
  const retry = await cli(['import', small, '-o', out]);
  assert.equal(retry.code, 0, retry.out);
  assert.match(retry.out, /^imported 2 messages/);
  assert.deepEqual((await readdir(dir)).sort(), ['big.json', 'session.jsonl', 'small.json']);
  assert.equal((await cli(['verify', out])).code, 0);
  await assert.rejects(cli(['import', small, '-o', out]), (e: unknown) => e instanceof CliError && /refusing to overwrite existing session/.test(e.message));
});

test('a streamed Claude Code import refused for a line over the limit leaves nothing at -o either', async (t) => {
  const dir = await tempDir(t);
  const input = join(dir, 'cc.jsonl');
  const line = (o: Record<string, unknown>): string => JSON.stringify({ sessionId: 'x', timestamp: '2025-11-03T14:00:00.000Z', ...o });
  await writeFile(
    input,
    [
      line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'read the log' } }),
      line({
        type: 'assistant',
        uuid: 'a1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'log' } }] },
      }),
      line({
        type: 'user',
        uuid: 'u2',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(DEFAULT_MAX_LINE_BYTES + 1024) }] },
      }),
    ].join('\n'),
  );
  const out = join(dir, 'session.jsonl');
  await assert.rejects(cli(['import', input, '-o', out]), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.match(e.message, /: not imported, Cannot append tool_result entry \S+: \d+ bytes exceeds the \d+-byte line limit; nothing was written$/);
    return true;
  });
  assert.deepEqual(await readdir(dir), ['cc.jsonl'], 'nothing at -o, no temporary file left behind');
});
