// The cat-file that stays running for a chat: answers in order (large, missing and repeated ids), queued requests, and a git that dies or is closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CatFileBatch } from '../../../src/node/checkpoints/catFile.js';
import { spawnGit } from '../../../src/node/checkpoints/gitCommand.js';
import { tempDir } from '../agent/agentHelpers.js';

async function repoWith(t: { after(fn: () => Promise<void>): void }, contents: readonly Buffer[]): Promise<{ gitDir: string; ids: string[] }> {
  const dir = await tempDir(t, 'capsule-catfile-');
  const gitDir = join(dir, 'git');
  await mkdir(gitDir);
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const ids: string[] = [];
  for (const [i, c] of contents.entries()) {
    const f = join(dir, `c${i}`);
    await writeFile(f, c);
    ids.push(execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', f], { encoding: 'utf8' }).trim());
  }
  return { gitDir, ids };
}

test('answers every request in order, with large contents read whole, ids git lacks left out, and queued requests each getting theirs', async (t) => {
  const big = randomBytes(3 * 1024 * 1024);
  const small = Buffer.from('small\n');
  const empty = Buffer.alloc(0);
  const { gitDir, ids } = await repoWith(t, [big, small, empty]);
  const [bigId, smallId, emptyId] = ids;
  assert.ok(bigId !== undefined && smallId !== undefined && emptyId !== undefined);
  let started = 0;
  const batch = new CatFileBatch(() => {
    started++;
    return spawnGit({ git: 'git', path: process.env.PATH }, { gitDir, args: ['cat-file', '--batch'] });
  }, 60_000);
  t.after(() => batch.close());
  const missing = '0123456789012345678901234567890123456789';
  const [a, b, c] = await Promise.all([batch.get([bigId, missing, smallId]), batch.get([emptyId, smallId]), batch.get([missing])]);
  assert.deepEqual([...a.keys()], [bigId, smallId]);
  assert.equal(Buffer.compare(a.get(bigId) ?? Buffer.alloc(0), big), 0);
  assert.equal(a.get(smallId)?.toString(), 'small\n');
  assert.deepEqual(
    [...b.entries()].map(([k, v]) => [k, v.toString()]),
    [
      [emptyId, ''],
      [smallId, 'small\n'],
    ],
  );
  assert.equal(c.size, 0);
  assert.equal(started, 1, 'one git for all of them');
});

test('a git that dies fails only the request in flight; the next request starts another; after close, another again', async (t) => {
  const { gitDir, ids } = await repoWith(t, [Buffer.from('x\n')]);
  const id = ids[0] ?? '';
  let n = 0;
  const batch = new CatFileBatch(() => {
    n++;
    // The first git exits before answering.
    return n === 1
      ? spawnGit({ git: 'git', path: process.env.PATH }, { gitDir, args: ['no-such-command'] })
      : spawnGit({ git: 'git', path: process.env.PATH }, { gitDir, args: ['cat-file', '--batch'] });
  }, 60_000);
  t.after(() => batch.close());
  await assert.rejects(batch.get([id]), /git cat-file: /);
  assert.equal((await batch.get([id])).get(id)?.toString(), 'x\n');
  batch.close();
  assert.equal((await batch.get([id])).get(id)?.toString(), 'x\n');
  assert.equal(n, 3);
});
