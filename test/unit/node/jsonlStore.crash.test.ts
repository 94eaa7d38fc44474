// Crash safety: a writer killed with SIGKILL mid-stream plus a torn half line; reopening keeps every acknowledged entry.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { lockDirPath } from '../../../src/node/sessionLock.js';
import { fileLines, tempDir, user } from './storeHelpers.js';

const CHILD = resolve(__dirname, 'crashChild.ts');
const REPO = resolve(__dirname, '../../..');
const ACKS_BEFORE_KILL = 40;

/** Runs the child until it has acknowledged `n` appends, SIGKILLs it, and returns every id it acknowledged. */
async function runAndKill(path: string, n: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((res, rej) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').length - 1 >= n) {
        child.kill('SIGKILL'); // mid-stream: the child is in the middle of further appends
        res();
      }
    });
    child.once('exit', (code) => rej(new Error(`child exited early (${String(code)}): ${err}`)));
  });
  await exited; // reaped, so its pid is really gone
  // Only complete stdout lines are acknowledgements.
  return out.split('\n').slice(0, -1);
}

test('SIGKILL mid-stream and a torn half line: every acknowledged entry survives, the tail moves aside', async (t) => {
  const path = join(await tempDir(t), 's_crash.jsonl');
  const acked = await runAndKill(path, ACKS_BEFORE_KILL);
  assert.ok(acked.length >= ACKS_BEFORE_KILL);
  assert.ok(existsSync(lockDirPath(path)), 'the killed writer left its lock behind');

  // A write torn by a crash: half of an entry, no newline.
  const half = '{"type":"user","id":"torn","parentId":null,"timestamp":"2025-01-01T00:00:00Z","con';
  await appendFile(path, half);

  const readOnlyView = await loadSessionFile(path);
  assert.ok(
    readOnlyView.problems.some((p) => p.kind === 'torn_tail'),
    'read-only load reports the torn tail',
  );
  assert.ok((await readFile(path, 'utf8')).endsWith(half), 'read-only load leaves the file alone');

  // The dead writer's lock is reclaimed at once: this opener gets to write.
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.readOnly, false, store.readOnlyReason);
  const ids = new Set(store.entries().map((e) => e.id));
  for (const id of acked) assert.ok(ids.has(id), `acknowledged entry ${id} is present`);
  assert.ok(store.problems.some((p) => p.kind === 'torn_tail'));
  assert.equal(store.recoveredTail?.sidecar, `${path}.corrupt`);

  const sidecar = await readFile(`${path}.corrupt`, 'utf8');
  assert.ok(sidecar.includes(half), 'the torn bytes are kept in the sidecar');
  const note = JSON.parse(sidecar.split('\n')[0] ?? '') as { type: string; offset: number };
  assert.equal(note.type, 'corrupt_tail');
  assert.ok((await readFile(path, 'utf8')).endsWith('\n'), 'the file was cut back to its last complete line');

  await store.append(user('after', store.leafId(), 'resumed after the crash'));
  await store.close();
  const lines = await fileLines(path);
  assert.equal(lines.pop(), '');
  for (const l of lines) JSON.parse(l); // every line parses: nothing was glued onto the torn line
  const reloaded = await loadSessionFile(path);
  assert.deepEqual(reloaded.problems, []);
  assert.equal(reloaded.tree.leafId, 'after');
});
