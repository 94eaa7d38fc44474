// Compaction at the edges, from the CLI against a server that enforces a real window: small windows, loops, huge results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main.js';
import { loadSessionFile } from '../../../src/node/jsonlStore.js';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { isSummaryRequest } from '../../fakes/openaiServer.js';
import { chat, describe, edgeRig, lastToolText, seen, writeTokens } from './edgeRig.js';

test('8k window (llama3:8b, no flags): "hello" is answered with default settings', async (t) => {
  const rig = await edgeRig(t, { window: 8_192, models: [{ id: 'llama3:8b', contextLength: 8_192 }] });
  rig.server.setFallback(() => ({ text: 'Hello! How can I help?' }));
  const r = await chat(rig, 'llama3:8b', 'hello');
  const s = seen(rig.server);
  t.diagnostic(`8k hello: ${describe(s)}`);
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.ok(r.lines.includes('Hello! How can I help?'), r.lines.join('\n'));
  assert.equal(r.lines[r.lines.length - 1], '[turn completed]');
  assert.equal(s.requests, 1);
  assert.equal(s.rejected, 0);
});

test('16k window, four reads of ~7k-token files: every read arrives, the turn completes, nothing over the window', async (t) => {
  const rig = await edgeRig(t, { window: 16_384 });
  for (let i = 1; i <= 4; i++) await writeTokens(rig, `f${i}.txt`, 7_000);
  rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  let reads = 0;
  rig.server.setFallback((req) => {
    const tool = lastToolText(req.body);
    // A paged read says how to read on; the "model" follows the note, then moves to the next file.
    const more = /"startLine": (\d+)/.exec(tool);
    const path = /"path": "([^"]+)"/.exec(tool)?.[1];
    if (more && path) return { toolCalls: [{ name: 'read_file', arguments: { path, startLine: Number(more[1]) } }] };
    reads += 1;
    if (reads <= 4) return { toolCalls: [{ name: 'read_file', arguments: { path: `f${reads}.txt` } }] };
    return { text: 'All four files read.' };
  });
  const r = await chat(rig, 'fake-model', 'Read f1.txt to f4.txt', '--window', '16384');
  const s = seen(rig.server);
  t.diagnostic(`16k four reads: ${describe(s)}`);
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(r.lines[r.lines.length - 1], '[turn completed]');
  assert.equal(s.rejected, 0);
  assert.ok(s.largestPrompt <= s.window);
});

test('a model that calls read_file f1.txt forever: the turn stops after three identical calls, naming the loop', async (t) => {
  const rig = await edgeRig(t, { window: 32_768 });
  await writeTokens(rig, 'f1.txt', 500);
  rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  rig.server.setFallback(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'f1.txt' } }] }));
  const r = await chat(rig, 'fake-model', 'Read f1.txt', '--window', '32768');
  const s = seen(rig.server);
  t.diagnostic(`doom loop: ${describe(s)}`);
  assert.equal(r.code, 1);
  const last = r.lines[r.lines.length - 1] ?? '';
  assert.match(last, /^\[turn failed\] The turn was stopped: the model called read_file \{"path":"f1\.txt"\} 3 times in a row with the same arguments/);
  assert.equal(s.requests, 3, 'no fourth request');
  assert.equal(s.summaries, 0);
  const lines: string[] = [];
  assert.equal(await main(['verify', rig.session], (l) => lines.push(l)), 0, lines.join('\n'));
});

test('a long autonomous turn that refills the window with every read stops with a message naming the cause and the fix', async (t) => {
  const rig = await edgeRig(t, { window: 16_384 });
  for (let i = 1; i <= 12; i++) await writeTokens(rig, `g${i}.txt`, 3_200);
  rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  let n = 0;
  rig.server.setFallback((req) => {
    if (isSummaryRequest(req.body)) return { text: GOOD_SUMMARY };
    n += 1;
    return n <= 12 ? { toolCalls: [{ name: 'read_file', arguments: { path: `g${n}.txt` } }] } : { text: 'done' };
  });
  const r = await chat(rig, 'fake-model', 'Read all g files', '--window', '16384');
  const s = seen(rig.server);
  const compactions = r.lines.filter((l) => l.startsWith('[compaction]') && !l.includes('compacting')).length;
  t.diagnostic(`refill loop: ${describe(s)}, ${compactions} compactions`);
  assert.equal(s.rejected, 0);
  assert.ok(compactions < s.requests - s.summaries, `compactions ${compactions} must not precede every request`);
  if (r.code !== 0) assert.match(r.lines[r.lines.length - 1] ?? '', /compacted before each of the last 3 requests.*larger context window/);
});

test('the agent checkpoint tool lands after its batch; `capsule rewind` to it keeps every later turn valid for a strict server', async (t) => {
  const rig = await edgeRig(t, { window: 32_768 });
  await writeTokens(rig, 'f1.txt', 300);
  rig.server.setFallback((req) => {
    if (lastToolText(req.body) !== '') return { text: 'Milestone noted.' };
    return {
      toolCalls: [
        { name: 'checkpoint', arguments: { kind: 'milestone', note: 'parser done' } },
        { name: 'read_file', arguments: { path: 'f1.txt' } },
      ],
    };
  });
  const first = await chat(rig, 'fake-model', 'Mark the milestone and read f1.txt', '--window', '32768');
  assert.equal(first.code, 0, first.lines.join('\n'));
  const entries = (await loadSessionFile(rig.session)).tree.branch();
  const ck = entries.find((e) => e.type === 'checkpoint' && e.kind === 'milestone');
  assert.ok(ck?.type === 'checkpoint');
  const at = entries.indexOf(ck);
  assert.deepEqual(
    entries.slice(at - 2, at).map((e) => e.type),
    ['tool_result', 'tool_result'],
    'the checkpoint follows both results of its batch',
  );

  const lines: string[] = [];
  assert.equal(await main(['rewind', rig.session, ck.checkpointId], (l) => lines.push(l)), 0, lines.join('\n'));
  assert.match(lines[0] ?? '', new RegExp(`^Rewound .* to ${ck.checkpointId}`));
  const again = await chat(rig, 'fake-model', 'Now read it once more', '--window', '32768');
  assert.equal(again.code, 0, again.lines.join('\n'));
  assert.equal(seen(rig.server).rejected, 0, 'the strict server accepted every request after the rewind');
  const bad: string[] = [];
  assert.match(
    String(await main(['rewind', rig.session, 'ck_missing'], (l) => bad.push(l)).catch((e: Error) => e.message)),
    /Checkpoint ck_missing is not in /,
  );
});

test('a provider that over-reports prompt_tokens never blocks later turns: the local estimate takes over, said once', async (t) => {
  const rig = await edgeRig(t, { window: 32_768 });
  rig.server.setFallback(() => ({ text: 'fine', usage: { promptTokens: 5_000_000 } }));
  const first = await chat(rig, 'fake-model', 'hello', '--window', '32768');
  assert.equal(first.code, 0, first.lines.join('\n'));
  for (const ask of ['and again', 'once more']) {
    const r = await chat(rig, 'fake-model', ask, '--window', '32768');
    assert.equal(r.code, 0, `${ask}:\n${r.lines.join('\n')}`);
    assert.equal(r.lines[r.lines.length - 1], '[turn completed]');
  }
  const s = seen(rig.server);
  t.diagnostic(`over-reported usage: ${describe(s)}`);
  assert.equal(s.requests - s.summaries, 3, 'every turn reached the model');
});

test('a one-line ~24k-token file (minified JS) in a 32k window: the read comes back bounded and the turn completes', async (t) => {
  const rig = await edgeRig(t, { window: 32_768 });
  const { writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  await writeFile(join(rig.ws, 'bundle.min.js'), `${Array.from({ length: 12_000 }, (_, i) => `var a${i}=${i};`).join('')}\n`);
  rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
  rig.server.setFallback((req) =>
    lastToolText(req.body) !== ''
      ? { text: 'It declares twelve thousand variables.' }
      : { toolCalls: [{ name: 'read_file', arguments: { path: 'bundle.min.js' } }] },
  );
  const r = await chat(rig, 'fake-model', 'What is in bundle.min.js?', '--window', '32768');
  const s = seen(rig.server);
  t.diagnostic(`one-line file: ${describe(s)}`);
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(r.lines[r.lines.length - 1], '[turn completed]');
  assert.equal(s.rejected, 0);
});
