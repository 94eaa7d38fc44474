// The import writer: every line whole at its buffer's end, the hand check of imported entries giving the schema's bytes and messages, and failures and syncs along the way.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry } from '../../../src/engine/transcript/schema.js';
import { checkedEntry } from '../../../src/node/entryLine.js';
import { importedEntryJson } from '../../../src/node/importEntryLine.js';
import { ImportRefused, ImportWriter } from '../../../src/node/importWriter.js';
import { tempDir } from '../../support/tempDir.js';

const T = '2025-01-01T00:00:00.000Z';
const BUFFER_BYTES = 4 << 20;

test('a line of two-byte characters that reaches the end of the write buffer is written whole', async (t) => {
  const dir = await tempDir(t);
  // Room left after the first line, either parity: the é's of the second line stop one byte short of the end or exactly at it.
  for (const room of [1002, 1003]) {
    const path = join(dir, `s${room}.jsonl`);
    const w = await ImportWriter.create(path);
    const first = { id: 'e1', parentId: null, timestamp: T, type: 'user', content: '' } as const;
    const pad = BUFFER_BYTES - room - `${JSON.stringify(first)}\n`.length;
    w.entry({ ...first, content: 'a'.repeat(pad) });
    w.entry({ id: 'e2', parentId: 'e1', timestamp: T, type: 'user', content: 'é'.repeat(600) });
    w.entry({ id: 'e3', parentId: 'e2', timestamp: T, type: 'user', content: 'x' });
    await w.commit(path, { id: 's', cwd: '/' });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    const entries = lines.slice(1).map((l) => JSON.parse(l) as Entry);
    assert.deepEqual(
      entries.map((e) => [e.id, e.type === 'user' ? e.content.length : 0]),
      [
        ['e1', pad],
        ['e2', 600],
        ['e3', 1],
      ],
      `room ${room}`,
    );
  }
});

const base = { id: 'e1', parentId: null, timestamp: T } as const;
const CASES: readonly unknown[] = [
  { ...base, type: 'user', content: 'hi' },
  { ...base, type: 'user', content: 'hi', injected: true },
  { ...base, type: 'user', content: 'hi', injected: undefined },
  { ...base, type: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'Bash', arguments: '{}' }], model: 'm' },
  { ...base, type: 'assistant', content: '', toolCalls: [] },
  { ...base, type: 'tool_result', toolCallId: 'c', toolName: '', content: 'out', isError: false },
  { ...base, type: 'tool_result', toolCallId: 'c', toolName: 'x', content: '', isError: false, interrupted: true },
  { ...base, type: 'system_update', mode: 'base', content: 'sys', reason: 'imported' },
  { ...base, type: 'leaf', targetId: null, reason: 'back' },
  // Keys out of the schema's order, keys it strips, values it defaults or refuses: the schema's path decides.
  { type: 'tool_result', toolCallId: 'c', toolName: 'x', content: '', isError: false, interrupted: true, ...base },
  { ...base, type: 'user', content: 'hi', subagent: { id: 'sa_1', toolCallId: 'c' } },
  { ...base, type: 'user', content: 'hi', stray: 1 },
  { ...base, type: 'assistant', content: '', toolCalls: [{ name: 'Bash', id: 'c', arguments: '{}', extra: 1 }] },
  { ...base, type: 'assistant', content: '' },
  { ...base, type: 'tool_result', toolCallId: 'c', toolName: 'x', content: '' },
  { ...base, type: 'user', content: 'hi', injected: 'yes' },
  { ...base, id: '', type: 'user', content: 'hi' },
  { ...base, id: 'x'.repeat(201), type: 'user', content: 'hi' },
  { ...base, timestamp: 't'.repeat(65), type: 'user', content: 'hi' },
  { ...base, parentId: 7, type: 'user', content: 'hi' },
  { ...base, type: 'assistant', content: '', toolCalls: [{ id: '', name: 'Bash', arguments: '{}' }] },
  { ...base, type: 'assistant', content: '', toolCalls: [, { id: 'c', name: 'Bash', arguments: '{}' }] },
  { ...base, type: 'tool_result', toolCallId: '', toolName: 'x', content: '', isError: false },
  { ...base, type: 'tool_result', toolCallId: 'c', toolName: 'x', content: '', isError: false, interrupted: false },
  { ...base, type: 'system_update', mode: 'other', content: 'sys' },
  { ...base, type: 'leaf', targetId: '' },
  { ...base, type: 'checkpoint', checkpointId: 'ck_1', kind: 'auto' },
  { ...base, type: 'nonsense' },
];

test('an imported entry is written as the schema parse writes it, or refused with its message', async (t) => {
  const dir = await tempDir(t);
  let fast = 0;
  for (const [i, c] of CASES.entries()) {
    const e = c as Entry;
    const checked = checkedEntry(e);
    const json = importedEntryJson(e);
    if (json !== undefined) {
      fast++;
      assert.ok(checked.ok, `case ${i}: the hand check passed what the schema refuses`);
      assert.equal(json, JSON.stringify(checked.entry), `case ${i}`);
    }
    const path = join(dir, `c${i}.jsonl`);
    const w = await ImportWriter.create(path);
    try {
      if (checked.ok) {
        w.entry(e);
        await w.commit(path, { id: 's', cwd: '/' });
        assert.equal(readFileSync(path, 'utf8').split('\n')[1], JSON.stringify(checked.entry), `case ${i}`);
      } else {
        assert.throws(
          () => w.entry(e),
          (err: unknown) => err instanceof ImportRefused && err.message === `${checked.error}; nothing was written`,
          `case ${i}`,
        );
      }
    } finally {
      await w.abort();
    }
  }
  assert.equal(fast, 9, 'the shapes the importers build skip the schema parse');
});

type Handle = {
  write: (b: Buffer, o: number, l: number) => Promise<{ bytesWritten: number }>;
  datasync: () => Promise<void>;
  sync: () => Promise<void>;
};

/** A writer in a fresh folder, its file handle to fault, and the unhandled rejections seen while the test runs. */
async function faultableWriter(t: TestContext): Promise<{ dir: string; path: string; w: ImportWriter; handle: Handle; unhandled: unknown[] }> {
  const dir = await tempDir(t);
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  t.after(() => process.off('unhandledRejection', onUnhandled));
  const path = join(dir, 's.jsonl');
  const w = await ImportWriter.create(path);
  return { dir, path, w, handle: (w as unknown as { handle: Handle }).handle, unhandled };
}

const header = { id: 's', cwd: '/' };

/** `n` user entries of 100 KB each, numbered on from `from`. */
function fill(w: ImportWriter, from: number, n: number): number {
  for (let i = 1; i <= n; i++) w.entry({ id: `e${from + i}`, parentId: null, timestamp: T, type: 'user', content: 'x'.repeat(100_000) });
  return from + n;
}

test('a write that fails while lines are converted (a full disk) fails the next flush or the commit, and leaves nothing', async (t) => {
  const { dir, path, w, handle, unhandled } = await faultableWriter(t);
  // The header goes through; the first write of lines fails, as on a full disk.
  const write = handle.write.bind(handle);
  handle.write = (b, o, l) => (l > 10_000 ? Promise.reject(new Error('ENOSPC: no space left on device, write')) : write(b, o, l));
  let id = fill(w, 0, 30);
  await w.flush(() => header);
  await new Promise((r) => setTimeout(r, 20));
  fill(w, id, 30);
  await assert.rejects(
    w.flush(() => header),
    /ENOSPC/,
  );
  await assert.rejects(w.commit(path, header), /ENOSPC/);
  await w.abort();
  assert.deepEqual(readdirSync(dir), []);
  assert.deepEqual(unhandled, []);
});

test('the flush to disk along the way runs beside the writes, and the commit waits for it', async (t) => {
  const { path, w, handle, unhandled } = await faultableWriter(t);
  const events: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let committing = false;
  const write = handle.write.bind(handle);
  handle.write = async (b, o, l) => {
    events.push('write');
    const r = await write(b, o, l);
    // A slow disk: the sync along the way ends only after the commit's last write (a turn later), never before.
    if (committing) setImmediate(release);
    return r;
  };
  const datasync = handle.datasync.bind(handle);
  handle.datasync = async () => {
    events.push('datasync');
    await held;
    events.push('synced');
    await datasync();
  };
  const sync = handle.sync.bind(handle);
  handle.sync = async () => {
    events.push('final sync');
    await sync();
  };
  // 24 MB of lines, flushed as they come: the 16 MB mark starts a sync, and the writes after it do not wait for it.
  let id = 0;
  for (let mb = 0; mb < 24; mb++) {
    id = fill(w, id, 10);
    await w.flush(() => header);
  }
  await w.flush(() => header, true);
  const firstSync = events.indexOf('datasync');
  assert.ok(firstSync > 0, 'a sync started along the way');
  assert.ok(events.slice(firstSync).includes('write'), `lines were written while the sync ran: ${events.join(' ')}`);
  assert.equal(events.includes('synced'), false);
  // The commit has a line left to write; its final fsync comes only after the sync in flight ended.
  id = fill(w, id, 1);
  committing = true;
  await w.commit(path, header);
  assert.ok(events.indexOf('synced') < events.indexOf('final sync'), events.slice(-4).join(' '));
  assert.equal(readFileSync(path, 'utf8').trimEnd().split('\n').length, id + 1);
  assert.deepEqual(unhandled, []);
});

test('a flush to disk that fails along the way (EIO) fails the import, and leaves nothing', async (t) => {
  const { dir, path, w, handle, unhandled } = await faultableWriter(t);
  handle.datasync = () => Promise.reject(new Error('EIO: i/o error, fdatasync'));
  // Out of a flush that starts the next sync, or out of the commit: either way the import fails.
  const run = async (): Promise<void> => {
    let id = 0;
    for (let mb = 0; mb < 40; mb++) {
      id = fill(w, id, 10);
      await w.flush(() => header);
    }
    await w.commit(path, header);
  };
  await assert.rejects(run(), /EIO/);
  await w.abort();
  assert.deepEqual(readdirSync(dir), []);
  assert.deepEqual(unhandled, []);
});
