// Reading an import's lines and finding where tool results are: keys and ids cut by the read chunks' ends, ids longer than the room kept for a cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { lineBatches, resultOffsets } from '../../../src/node/importLines.js';
import { tempDir } from '../../support/tempDir.js';

const MB = 1 << 20;

/** Lines so that the given ids' keys start at the given distances before a 1 MB chunk end (negative: the id is cut). */
function session(): { text: string; expected: Map<string, number> } {
  const out: string[] = [];
  const expected = new Map<string, number>();
  let bytes = 0;
  const put = (l: string): void => {
    out.push(l);
    bytes += Buffer.byteLength(l) + 1;
  };
  const result = (id: string): string => JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] } });
  const padTo = (offset: number): void => {
    // A line of two-byte characters (and one ASCII byte for parity) ending just before `offset`.
    const room = offset - bytes - '{"pad":""}\n'.length;
    assert.ok(room >= 0);
    put(`{"pad":"${'é'.repeat(Math.floor(room / 2))}${room % 2 === 1 ? 'x' : ''}"}`);
  };
  const at = (id: string): void => {
    const l = result(id);
    expected.set(id, bytes + Buffer.byteLength(l.slice(0, l.indexOf('"tool_use_id"'))));
    put(l);
  };
  put(result('first'));
  // Other keys ending like it, and the key inside a string (escaped): not results.
  put(JSON.stringify({ message_id: 'm', request_id: 'r', text: 'a tool_use_id, and "tool_use_id": "fake"' }));
  // The key itself cut by the first chunk's end.
  padTo(MB - 60);
  at('key-cut');
  // A 100 KB id cut by the second chunk's end: more than the room kept for a cut.
  padTo(2 * MB - 50_000);
  at(`long-${'i'.repeat(100_000)}`);
  // The same id again, later: the last place counts.
  at('first');
  padTo(3 * MB - 65);
  at('last');
  return { text: `${out.join('\n')}\n`, expected };
}

test('result offsets: every id at its last key, also when the key or a long id is cut by a chunk end', async (t) => {
  const dir = await tempDir(t);
  const { text, expected } = session();
  const path = join(dir, 's.jsonl');
  await writeFile(path, text);
  const h = await open(path);
  try {
    const key = (id: string): number => expected.get(id) ?? -1;
    assert.ok(key('key-cut') < MB && key('key-cut') + 13 > MB && key('last') < 3 * MB && key('last') + 13 > 3 * MB, 'keys cut by chunk ends');
    const long = [...expected.keys()].find((id) => id.startsWith('long-')) ?? '';
    assert.ok(key(long) < 2 * MB && key(long) + long.length > 2 * MB, 'an id cut by a chunk end');
    const got = await resultOffsets(h);
    assert.deepEqual([...got.entries()].sort(), [...expected.entries()].sort());
    const lines: string[] = [];
    for await (const batch of lineBatches(h)) for (const l of batch) lines.push(l.text);
    assert.deepEqual(lines, text.split('\n').slice(0, -1));
  } finally {
    await h.close();
  }
});
