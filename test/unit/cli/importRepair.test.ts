// `capsule import` never writes a session its own verify calls invalid: it repairs (and says so) or refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../../../src/cli/main.js';
import { tempDir, verifyFile, entriesOf } from '../agent/agentHelpers.js';

const call = (id: string) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } });

test('unanswered tool calls and stray results are repaired, reported, and the written session verifies', async (t) => {
  const dir = await tempDir(t, 'capsule-import-');
  const input = join(dir, 'm.json');
  await writeFile(
    input,
    JSON.stringify([
      { role: 'user', content: 'look at a.ts' },
      { role: 'assistant', content: null, tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c1', content: 'file text' },
      { role: 'user', content: 'and then?' },
      { role: 'tool', tool_call_id: 'c2', content: 'late' },
      { role: 'tool', tool_call_id: 'nobody', content: 'orphan' },
      { role: 'assistant', content: 'done', tool_calls: [call('c3')] },
    ]),
  );
  const out = join(dir, 's.jsonl');
  const lines: string[] = [];
  assert.equal(await main(['import', input, '-o', out], (s) => lines.push(s)), 0);
  assert.ok(
    lines.some((l) => /^repaired: tool call\(s\) c2 had no result: recorded as interrupted$/.test(l)),
    lines.join('\n'),
  );
  assert.ok(lines.some((l) => /^repaired: tool result nobody answers no open tool call: left out$/.test(l)));
  assert.ok(lines.some((l) => /^repaired: tool call\(s\) c3 had no result/.test(l)));
  const report = await verifyFile(out);
  assert.equal(report.ok, true, JSON.stringify(report.issues));
  const results = (await entriesOf(out)).filter((e) => e.type === 'tool_result');
  assert.deepEqual(
    results.map((e) => (e.type === 'tool_result' ? `${e.toolCallId}:${e.interrupted === true}` : '')),
    ['c1:false', 'c2:true', 'c3:true'],
  );
  assert.equal(existsSync(out), true);
});
