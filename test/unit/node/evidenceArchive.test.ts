// FileEvidenceArchive (docs/behaviour.md#evidence): immutable snapshots via temp file + publish, validated loads, safe ids, no paths shown to the model.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runEvidenceTool, runEvidenceToolFromArchive } from '../../../src/engine/compaction/evidence.js';
import { truncateToolResult } from '../../../src/engine/transcript/truncation.js';
import type { EvidenceSnapshot } from '../../../src/engine/ports.js';
import type { ModelMessage } from '../../../src/engine/transcript/modelInput.js';
import { EvidenceArchiveError, FileEvidenceArchive } from '../../../src/node/evidenceArchive.js';
import { SessionDirectory } from '../../../src/node/sessions.js';
import { tempDir } from './storeHelpers.js';

const LONG = Array.from({ length: 200 }, (_, i) => `output line ${i}`).join('\n');

function snap(operationId: string, checkpointId = 'ck_1', createdAt = '2025-01-01T00:00:00.000Z'): EvidenceSnapshot {
  const excluded: ModelMessage[] = [
    { role: 'user', content: 'Run the tests', entryId: 'e1' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'run_command', arguments: '{"cmd":"npm test"}' }], entryId: 'e2' },
    { role: 'tool', toolCallId: 'call_1', content: LONG, entryId: 'e3' },
  ];
  const summarizerInput: ModelMessage[] = [excluded[0] as ModelMessage, { role: 'tool', toolCallId: 'call_1', content: truncateToolResult(LONG) }];
  return { operationId, checkpointId, createdAt, excluded, summarizerInput };
}

async function dirNames(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

test('save then load round-trips the exact messages, one file per operation, listed oldest first', async (t) => {
  const dir = join(await tempDir(t), 'archive', 's_1');
  const archive = new FileEvidenceArchive(dir);
  assert.equal(await archive.load('op_a'), undefined, 'nothing archived yet (the folder does not even exist)');
  assert.deepEqual(await archive.list(), []);

  await archive.save(snap('op_b', 'ck_2', '2025-01-02T00:00:00.000Z'));
  await archive.save(snap('op_a', 'ck_1', '2025-01-01T00:00:00.000Z'));
  assert.deepEqual(await dirNames(dir), ['op_a.json', 'op_b.json'], 'one snapshot file per compaction, no temp or lock files');

  const loaded = await archive.load('op_a');
  assert.deepEqual(loaded, { ...snap('op_a'), truncatedItems: [4] }, 'exact messages back; the truncated summarizer copy is marked');
  assert.deepEqual(await archive.list(), [
    { operationId: 'op_a', checkpointId: 'ck_1', createdAt: '2025-01-01T00:00:00.000Z', items: 5 },
    { operationId: 'op_b', checkpointId: 'ck_2', createdAt: '2025-01-02T00:00:00.000Z', items: 5 },
  ]);
  assert.equal((await archive.findByCheckpoint('ck_2'))?.operationId, 'op_b');
  assert.equal(await archive.findByCheckpoint('ck_none'), undefined);
});

test('explicit truncatedItems are stored in the archive file and come back', async (t) => {
  const archive = new FileEvidenceArchive(await tempDir(t));
  await archive.save({ ...snap('op_x'), truncatedItems: [0, 2] });
  assert.deepEqual((await archive.load('op_x'))?.truncatedItems, [0, 2]);
});

test('snapshots are immutable: a second save with the same id fails and changes nothing', async (t) => {
  const dir = await tempDir(t);
  const archive = new FileEvidenceArchive(dir);
  await archive.save(snap('op_same', 'ck_first'));
  const before = await readFile(join(dir, 'op_same.json'), 'utf8');
  await assert.rejects(archive.save(snap('op_same', 'ck_second')), (e: unknown) => {
    assert.ok(e instanceof EvidenceArchiveError);
    assert.match(e.message, /^Compaction evidence op_same already exists; archived snapshots are immutable$/);
    return true;
  });
  assert.equal(await readFile(join(dir, 'op_same.json'), 'utf8'), before);
  assert.equal((await archive.load('op_same'))?.checkpointId, 'ck_first');
  assert.deepEqual(await dirNames(dir), ['op_same.json'], 'no temp file left behind');
});

// All three pass the existence check before any publishes, so the losers fail after writing their temp file.
test('concurrent saves with one id: exactly one wins, no temp files remain', async (t) => {
  const dir = await tempDir(t);
  const archive = new FileEvidenceArchive(dir);
  const results = await Promise.allSettled([
    archive.save(snap('op_race', 'ck_a')),
    archive.save(snap('op_race', 'ck_b')),
    archive.save(snap('op_race', 'ck_c')),
  ]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.deepEqual(await dirNames(dir), ['op_race.json']);
});

test('failed writes leave no temp file: unserializable value, taken name, unusable folder', async (t) => {
  const root = await tempDir(t);
  const dir = join(root, 'archive');
  const archive = new FileEvidenceArchive(dir);

  const bad = { ...snap('op_bad'), excluded: [{ role: 'user', content: 10n }] } as unknown as EvidenceSnapshot;
  await assert.rejects(archive.save(bad), /Refusing to archive invalid evidence for op_bad: excluded\.0\.content/);
  assert.deepEqual(await dirNames(dir), [], 'an invalid snapshot writes nothing');

  // The final name is taken by something that is not a snapshot: still never replaced.
  await mkdir(join(dir, 'op_dir.json'), { recursive: true });
  await assert.rejects(archive.save(snap('op_dir')), /already exists/);
  assert.deepEqual(await dirNames(dir), ['op_dir.json']);

  // The archive folder path is a file: nothing can be created.
  const blocked = join(root, 'not-a-dir');
  await writeFile(blocked, 'x');
  const broken = new FileEvidenceArchive(blocked);
  await assert.rejects(broken.save(snap('op_x')), (e: unknown) => {
    assert.ok(e instanceof EvidenceArchiveError);
    assert.match(e.message, /^Could not archive compaction evidence op_x: (ENOTDIR|EEXIST)$/);
    assert.equal(e.file, join(blocked, 'op_x.json'), 'the path is kept for logs, not in the message');
    return true;
  });
  assert.deepEqual(await dirNames(root), ['archive', 'not-a-dir']);
});

test('operation ids that could leave the folder are rejected for save and load', async (t) => {
  const root = await tempDir(t);
  const archive = new FileEvidenceArchive(join(root, 'a'));
  for (const id of ['../escape', '..', 'a/b', 'a\\b', '', '.hidden', 'op.json', 'op x', '/etc/passwd', 'x'.repeat(129)]) {
    await assert.rejects(archive.save(snap(id)), /Invalid compaction operation id/, `save ${JSON.stringify(id)}`);
    await assert.rejects(archive.load(id), /Invalid compaction operation id/, `load ${JSON.stringify(id)}`);
  }
  assert.deepEqual(await dirNames(root), [], 'nothing was written anywhere');
});

test('a corrupt snapshot is a clear error without a path; list skips it', async (t) => {
  const dir = await tempDir(t);
  const archive = new FileEvidenceArchive(dir);
  await archive.save(snap('op_good'));
  await writeFile(join(dir, 'op_torn.json'), '{"format":"capsule-evidence","version":1,"operat');
  await writeFile(
    join(dir, 'op_shape.json'),
    JSON.stringify({
      format: 'capsule-evidence',
      version: 1,
      operationId: 'op_shape',
      checkpointId: 'ck',
      createdAt: 'x',
      excluded: [{ role: 'robot' }],
      summarizerInput: [],
    }),
  );
  await writeFile(join(dir, 'op_moved.json'), await readFile(join(dir, 'op_good.json')));
  await writeFile(
    join(dir, 'op_future.json'),
    JSON.stringify({ ...JSON.parse(await readFile(join(dir, 'op_good.json'), 'utf8')), operationId: 'op_future', version: 9 }),
  );

  const cases: [string, RegExp][] = [
    ['op_torn', /^Compaction evidence op_torn is corrupt: not valid JSON$/],
    ['op_shape', /^Compaction evidence op_shape is corrupt: excluded\.0/],
    ['op_moved', /^Compaction evidence op_moved is corrupt: it holds operation op_good$/],
    ['op_future', /newer version of Capsule/],
  ];
  for (const [id, re] of cases) {
    await assert.rejects(archive.load(id), (e: unknown) => {
      assert.ok(e instanceof EvidenceArchiveError);
      assert.match(e.message, re);
      assert.ok(!e.message.includes(dir), 'no filesystem path in the message');
      return true;
    });
  }
  assert.deepEqual(
    (await archive.list()).map((s) => s.operationId),
    ['op_good'],
  );
  const tool = await runEvidenceToolFromArchive(archive, 'op_torn', '{}', { pageChars: 2_000 });
  assert.equal(tool.isError, true);
  assert.match(tool.content, /could not be read: Compaction evidence op_torn is corrupt/);
  assert.ok(!tool.content.includes(dir));
});

test('pages read from the archive never show a filesystem path', async (t) => {
  const dir = join(await tempDir(t), 'archive', 's_paths');
  const archive = new FileEvidenceArchive(dir);
  await archive.save(snap('op_p'));
  const loaded = await archive.load('op_p');
  const opts = { pageChars: 1_000 };
  const first = runEvidenceTool(loaded, '{}', opts);
  const total = Number(/page 1 of (\d+)/.exec(first.content)?.[1]);
  assert.ok(total > 1);
  const texts = [first.content];
  for (let p = 2; p <= total; p++) texts.push((await runEvidenceToolFromArchive(archive, 'op_p', JSON.stringify({ page: p }), opts)).content);
  texts.push(runEvidenceTool(loaded, '{"page":99}', opts).content, runEvidenceTool(loaded, '{"query":"line 150"}', opts).content);
  for (const text of texts) {
    assert.ok(!text.includes(dir), 'archive folder never appears');
    assert.ok(!text.includes('op_p.json'), 'snapshot file name never appears');
  }
  assert.ok(texts.join('\n').includes('(projection: truncated before archiving)'));
});

test('deleteAll removes the archive; deleting the chat removes it too', async (t) => {
  const root = await tempDir(t);
  const archive = new FileEvidenceArchive(join(root, 'solo'));
  await archive.save(snap('op_1'));
  await archive.deleteAll();
  assert.equal(existsSync(join(root, 'solo')), false);
  assert.equal(await archive.load('op_1'), undefined);
  assert.deepEqual(await archive.list(), []);
  await archive.deleteAll(); // idempotent

  const sessions = new SessionDirectory(root);
  const store = await sessions.create('/work');
  const id = store.header.id;
  const chatArchive = new FileEvidenceArchive(sessions.archiveDir(id));
  await chatArchive.save(snap('op_2'));
  await store.close();
  await sessions.delete(id);
  assert.equal(existsSync(sessions.archiveDir(id)), false);
});

test('messages are written in the schema shape whatever they carry: keys in schema order, unknown keys dropped, images kept; bad ones refused with the same message', async (t) => {
  const dir = join(await tempDir(t), 'archive');
  const archive = new FileEvidenceArchive(dir);
  const odd = [
    { entryId: 'e1', content: 'hi', role: 'user' },
    { role: 'user', content: 'look', images: [{ height: 2, url: 'data:image/png;base64,AA==', width: 3, extra: true }], entryId: 'e2' },
    { role: 'assistant', content: '', toolCalls: [{ arguments: '{}', name: 'read_file', id: 'c1', index: 0 }], entryId: 'e3', reasoning: 'x' },
    { content: 'out', toolCallId: 'c1', role: 'tool', entryId: undefined },
  ] as unknown as ModelMessage[];
  await archive.save({ operationId: 'op_odd', checkpointId: 'ck_1', createdAt: '2025-01-01T00:00:00.000Z', excluded: odd, summarizerInput: [] });
  const written = await readFile(join(dir, 'op_odd.json'), 'utf8');
  assert.equal(
    written,
    JSON.stringify({
      format: 'capsule-evidence',
      version: 1,
      operationId: 'op_odd',
      checkpointId: 'ck_1',
      createdAt: '2025-01-01T00:00:00.000Z',
      excluded: [
        { role: 'user', content: 'hi', entryId: 'e1' },
        { role: 'user', content: 'look', images: [{ url: 'data:image/png;base64,AA==', width: 3, height: 2 }], entryId: 'e2' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }], entryId: 'e3' },
        { role: 'tool', toolCallId: 'c1', content: 'out' },
      ],
      summarizerInput: [],
      truncatedItems: [],
    }),
  );
  const emptyName = [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: '', arguments: '{}' }] }] as unknown as ModelMessage[];
  await assert.rejects(
    archive.save({ operationId: 'op_bad2', checkpointId: 'ck_1', createdAt: 'x', excluded: [], summarizerInput: emptyName }),
    /Refusing to archive invalid evidence for op_bad2: summarizerInput\.0\.toolCalls\.0\.name/,
  );
  await assert.rejects(
    archive.save({ operationId: 'op_bad3', checkpointId: '', createdAt: 'x', excluded: odd, summarizerInput: [] }),
    /Refusing to archive invalid evidence for op_bad3: checkpointId/,
  );
});
