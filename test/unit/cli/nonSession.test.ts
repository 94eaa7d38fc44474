// `budget` and `show` refuse what is not a session (random bytes, UTF-16, empty, a future version) with one line and exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../../../src/cli/args.js';
import { main } from '../../../src/cli/main.js';
import { tempDir } from '../agent/agentHelpers.js';

const HEADER = { type: 'session', version: 1, id: 's1', createdAt: '2025-01-01T00:00:00.000Z', cwd: '/w' };

test('non-sessions are refused by budget and show, with the reason, never a full budget and exit 0', async (t) => {
  const dir = await tempDir(t, 'capsule-nonsession-');
  const bytes = Buffer.alloc(4096);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 256;
  const files: Record<string, Buffer | string> = {
    'random.jsonl': bytes,
    'utf16.jsonl': Buffer.from(`\ufeff${JSON.stringify(HEADER)}\n`, 'utf16le'),
    'empty.jsonl': '',
    'future.jsonl': `${JSON.stringify({ ...HEADER, version: 99 })}\n`,
  };
  for (const [name, body] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, body);
    for (const command of ['budget', 'show']) {
      await assert.rejects(
        main([command, path], () => undefined),
        (e: unknown) => {
          assert.ok(e instanceof CliError, String(e));
          assert.equal(e.exitCode, 1);
          assert.match(
            e.message,
            /is not a Capsule session this version can read \(.+\); run 'capsule verify' for details$/,
            `${command} ${name}: ${e.message}`,
          );
          assert.equal(e.message.includes('\n'), false);
          return true;
        },
      );
    }
  }
  const ok = join(dir, 'ok.jsonl');
  await writeFile(ok, `${JSON.stringify(HEADER)}\n`);
  assert.equal(await main(['budget', ok], () => undefined), 0);
});
