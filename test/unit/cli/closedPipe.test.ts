// `capsule … | head` ends quietly: a closed stdout is not an error worth a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../agent/agentHelpers.js';
import { cliBundle } from './cliBundle.js';

const T = '2025-01-01T00:00:00.000Z';

test('a reader that closes the pipe early (head -1) gets no EPIPE stack trace on stderr', async (t) => {
  const dir = await tempDir(t, 'capsule-pipe-');
  const session = join(dir, 's.jsonl');
  // A capsule far larger than a pipe's buffer, so `show` is still writing when head leaves.
  const summary = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a very long capsule`).join('\n');
  const lines = [
    { type: 'session', version: 1, id: 's1', createdAt: T, cwd: '/w' },
    { type: 'user', id: 'u1', parentId: null, timestamp: T, content: 'hi' },
    {
      type: 'capsule',
      id: 'c1',
      parentId: 'u1',
      timestamp: T,
      summary,
      firstKeptEntryId: null,
      tokensBefore: 10,
      tokensAfter: 5,
      trigger: 'user',
      level: 0,
      quality: 'full',
      checkpointId: 'ck_1',
    },
  ];
  await writeFile(session, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const cli = await cliBundle();
  const child = spawn('sh', ['-c', `"${process.execPath}" "${cli}" show "${session}" | head -n 1 > /dev/null`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await once(child, 'exit');
  assert.equal(stderr, '');
});
