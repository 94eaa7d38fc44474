// Loading damaged session files: every problem is reported with its kind and line, and loading never throws.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LoadProblemKind } from '../../../src/engine/ports.js';
import { JsonlSessionStore, loadSessionFile } from '../../../src/node/jsonlStore.js';
import { assistant, headerLine, leafMove, line, tempDir, user } from './storeHelpers.js';

async function fileWith(t: Parameters<typeof tempDir>[0], text: string): Promise<string> {
  const path = join(await tempDir(t), 's.jsonl');
  await writeFile(path, text);
  return path;
}

function kinds(problems: readonly { kind: LoadProblemKind }[]): LoadProblemKind[] {
  return problems.map((p) => p.kind);
}

test('garbage lines in the middle are reported with their line number and skipped', async (t) => {
  const path = await fileWith(
    t,
    [headerLine(), line(user('u1', null)), 'not json at all', '{"type":"user","id":"x"}', line(assistant('a1', 'u1')), ''].join('\n'),
  );
  const load = await loadSessionFile(path);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1', 'a1'],
  );
  assert.deepEqual(
    load.problems.map((p) => [p.kind, p.line]),
    [
      ['invalid_json', 3],
      ['invalid_entry', 4],
    ],
  );
  assert.match(load.problems[1]?.message ?? '', /line 4: .*skipped/);
  assert.equal(load.goodBytes, load.bytes, 'middle garbage is not a torn tail');

  // Opening for writing keeps middle lines where they are (append-only) and works normally.
  const before = await readFile(path);
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.readOnly, false);
  await store.append(user('u2', 'a1'));
  await store.close();
  assert.ok((await readFile(path)).subarray(0, before.length).equals(before));
});

test('a truncated file (last line cut mid-way) loads the complete lines and reports the torn tail', async (t) => {
  const full = [headerLine(), line(user('u1', null)), line(assistant('a1', 'u1'))].join('\n') + '\n';
  const path = await fileWith(t, full.slice(0, full.length - 25));
  const load = await loadSessionFile(path);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1'],
  );
  assert.deepEqual(
    load.problems.map((p) => [p.kind, p.line]),
    [['torn_tail', 3]],
  );
  assert.equal(load.goodBytes, full.indexOf('\n', full.indexOf('\n') + 1) + 1);
  assert.equal(load.bytes, full.length - 25);
  assert.equal((await stat(path)).size, full.length - 25, 'loading did not touch the file');
});

test('invalid complete lines at the end are part of the tail moved aside on open for writing', async (t) => {
  const path = await fileWith(t, [headerLine(), line(user('u1', null)), '{"oops"', '\u0000\u0000\u0000', ''].join('\n'));
  const load = await loadSessionFile(path);
  assert.deepEqual(kinds(load.problems), ['invalid_json', 'invalid_json', 'torn_tail']);
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.recoveredTail?.bytes, load.bytes - load.goodBytes);
  await store.close();
  const sidecar = await readFile(`${path}.corrupt`, 'utf8');
  assert.ok(sidecar.includes('{"oops"\n\u0000\u0000\u0000\n'));
  assert.deepEqual((await loadSessionFile(path)).problems, []);
});

test('a newer format version is reported and opens read-only; the file is never written', async (t) => {
  const path = await fileWith(t, [headerLine(99), line(user('u1', null)), '{"half'].join('\n'));
  const load = await loadSessionFile(path);
  assert.deepEqual(kinds(load.problems), ['unknown_version', 'torn_tail']);
  assert.match(load.problems[0]?.message ?? '', /version 99 is newer/);
  assert.equal(load.header?.version, 99);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1'],
    'entries are still shown, best effort',
  );
  const before = await readFile(path);
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.readOnly, true);
  assert.match(store.readOnlyReason ?? '', /newer than this Capsule supports.*read-only/);
  await assert.rejects(store.append(user('u2', 'u1')), /newer/);
  await store.close();
  assert.ok((await readFile(path)).equals(before), 'not even the torn tail was cut');
});

test('duplicate ids keep the first copy; parents that appear later or are the entry itself are reported', async (t) => {
  const path = await fileWith(
    t,
    [
      headerLine(),
      line(user('u1', null)),
      line(user('u1', null, 'second copy')),
      line(user('x', 'later')), // parent appears later in the file
      line(user('later', 'u1')),
      line(user('self', 'self')),
      line(leafMove('l1', 'later', 'nowhere')),
      '',
    ].join('\n'),
  );
  const load = await loadSessionFile(path);
  assert.deepEqual(
    load.problems.map((p) => [p.kind, p.line]),
    [
      ['duplicate_id', 3],
      ['unknown_parent', 4],
      ['cycle', 6],
      ['unknown_leaf_target', 7],
    ],
  );
  const u1 = load.tree.get('u1');
  assert.equal(u1?.type === 'user' ? u1.content : undefined, 'ask u1', 'the first copy wins');
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1', 'later'],
  );
  assert.equal(load.tree.leafId, 'later');
});

test('an empty file is reported and cannot be written', async (t) => {
  const path = await fileWith(t, '');
  const load = await loadSessionFile(path);
  assert.deepEqual(kinds(load.problems), ['empty_file']);
  assert.equal(load.header, undefined);
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.readOnly, true);
  assert.match(store.readOnlyReason ?? '', /empty/);
  await store.close();
});

test('a file without a header: entries still load, the problem is reported, writing is refused', async (t) => {
  const path = await fileWith(t, [line(user('u1', null)), line(assistant('a1', 'u1')), ''].join('\n'));
  const load = await loadSessionFile(path);
  assert.deepEqual(kinds(load.problems), ['missing_header']);
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1', 'a1'],
  );
  const store = await JsonlSessionStore.open(path);
  assert.equal(store.readOnly, true);
  assert.match(store.readOnlyReason ?? '', /no valid header/);
  await store.close();

  const notJson = await fileWith(t, 'hello\n' + line(user('u1', null)) + '\n');
  assert.deepEqual(kinds((await loadSessionFile(notJson)).problems), ['missing_header']);
  const badHeader = await fileWith(t, JSON.stringify({ type: 'session', version: 1, id: '' }) + '\n');
  const bh = await loadSessionFile(badHeader);
  assert.deepEqual(kinds(bh.problems), ['missing_header']);
  assert.match(bh.problems[0]?.message ?? '', /invalid/);
});

test('lines that span read chunks and a lowered line cap', async (t) => {
  const long = 'q'.repeat(3 * 1024 * 1024); // crosses several 1 MiB read chunks
  const path = await fileWith(t, [headerLine(), line(user('u1', null, long)), line(user('u2', 'u1', 'short')), ''].join('\n'));
  const load = await loadSessionFile(path);
  assert.deepEqual(load.problems, []);
  const u1 = load.tree.get('u1');
  assert.equal(u1?.type === 'user' ? u1.content.length : 0, long.length);

  const capped = await loadSessionFile(path, { maxLineBytes: 1024 * 1024 });
  assert.deepEqual(
    capped.problems.map((p) => [p.kind, p.line]),
    [
      ['oversized_line', 2],
      ['unknown_parent', 3],
    ],
  );
});

test('a 200 MB line is skipped without being buffered, and the entries around it load', async (t) => {
  const path = join(await tempDir(t), 'huge.jsonl');
  const out = createWriteStream(path);
  const write = async (s: string | Buffer): Promise<void> => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write(`${headerLine()}\n${line(user('u1', null))}\n`);
  await write('{"type":"tool_result","id":"big","parentId":"u1","timestamp":"t","toolCallId":"c","toolName":"cat","content":"');
  const chunk = Buffer.alloc(4 * 1024 * 1024, 'A');
  for (let i = 0; i < 50; i++) await write(chunk);
  await write(`"}\n${line(user('u2', 'u1'))}\n`);
  out.end();
  await once(out, 'finish');
  assert.ok((await stat(path)).size > 200 * 1024 * 1024);

  const rssBefore = process.memoryUsage().rss;
  const load = await loadSessionFile(path);
  const grew = process.memoryUsage().rss - rssBefore;
  assert.deepEqual(
    load.problems.map((p) => [p.kind, p.line]),
    [['oversized_line', 3]],
  );
  assert.deepEqual(
    load.tree.entries().map((e) => e.id),
    ['u1', 'u2'],
  );
  // Not a timing check: a reader that buffered the line would hold at least 200 MB.
  assert.ok(grew < 150 * 1024 * 1024, `memory grew by ${Math.round(grew / 1e6)} MB`);
});
