// The window matrix: a multi-task session from the CLI at 4k…1M windows with default settings, against a server enforcing each window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GOOD_SUMMARY } from '../compaction/harness.js';
import { chat, describe, edgeRig, lastToolText, seen, writeTokens } from './edgeRig.js';

const WINDOWS = [4_096, 8_192, 16_384, 32_768, 65_536, 128_000, 200_000, 1_000_000] as const;
const TASKS = 4;

for (const window of WINDOWS) {
  test(`window ${window}: ${TASKS} tasks with default settings — every task answered, 0 requests over the window, compactions per turn bounded`, async (t) => {
    const rig = await edgeRig(t, { window });
    // Each task reads a file of about a fifth of the window (capped so the big windows stay quick to tokenize).
    const fileTokens = Math.min(Math.floor(window / 5), 12_000);
    for (let i = 1; i <= TASKS; i++) await writeTokens(rig, `task${i}.txt`, fileTokens);
    rig.server.onMatch({ summary: true }, { text: GOOD_SUMMARY });
    rig.server.setFallback((req) => {
      const tool = lastToolText(req.body);
      const more = /"startLine": (\d+)/.exec(tool);
      const path = /"path": "([^"]+)"/.exec(tool)?.[1];
      if (more && path) return { toolCalls: [{ name: 'read_file', arguments: { path, startLine: Number(more[1]) } }] };
      if (tool !== '') return { text: 'Task done: the file was read.' };
      const m = /Task (\d+)/.exec(JSON.stringify(req.body.messages[req.body.messages.length - 1]));
      return { toolCalls: [{ name: 'read_file', arguments: { path: `task${m?.[1] ?? '1'}.txt` } }] };
    });
    let compactions = 0;
    for (let i = 1; i <= TASKS; i++) {
      const r = await chat(rig, 'fake-model', `Task ${i}: read task${i}.txt`, '--window', String(window));
      assert.equal(r.code, 0, `window ${window}, task ${i}:\n${r.lines.join('\n')}`);
      assert.ok(r.lines.includes('Task done: the file was read.'), `task ${i} answered`);
      const perTurn = r.lines.filter((l) => /^\[compaction\] Context compacted/.test(l)).length;
      const requests = r.lines.filter((l) => l.startsWith('[tool] read_file {')).length + 1;
      // Never one compaction before every request: at most about one per two requests, plus the first.
      assert.ok(perTurn <= Math.ceil(requests / 2) + 1, `window ${window}, task ${i}: ${perTurn} compactions for ${requests} requests`);
      compactions += perTurn;
    }
    const s = seen(rig.server);
    t.diagnostic(`window ${window}: ${describe(s)}, ${compactions} compactions`);
    assert.equal(s.rejected, 0);
    assert.ok(s.largestPrompt <= window);
  });
}

/** A model that words its summary its own way: three of the template's seven headings. */
const THREE_HEADINGS = '## Goal\n- read every file\n\n## Progress\n- reading the files in order\n\n## Next Steps\n- read the remaining files';
const READS = 30;

for (const window of [8_192, 16_384, 32_768, 128_000] as const) {
  test(`window ${window}: a turn of ${READS} reads of ~1.6k-token results completes with defaults, one summary request per compaction, capsules partial`, async (t) => {
    const rig = await edgeRig(t, { window });
    for (let i = 0; i < READS; i++) await writeTokens(rig, `f${i}.txt`, 1_600);
    rig.server.onMatch({ summary: true }, { text: THREE_HEADINGS });
    let n = 0;
    rig.server.setFallback(() => {
      n += 1;
      return n <= READS ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${n - 1}.txt` } }] } : { text: 'All files read.' };
    });
    // No --window: the window is the one the server states in /v1/models, everything else is a default.
    const r = await chat(rig, 'fake-model', 'Read every file, one after the other.');
    assert.equal(r.code, 0, r.lines.join('\n'));
    assert.ok(
      r.lines.includes(`[model] fake-model: window ${window.toLocaleString('en-US')} tokens, stated by the server's /v1/models`),
      r.lines.slice(0, 3).join('\n'),
    );
    assert.ok(r.lines.includes('All files read.'), `the turn completed:\n${r.lines.slice(-5).join('\n')}`);
    assert.equal(r.lines.filter((l) => l.startsWith('[tool] read_file {')).length, READS);
    const compactions = r.lines.filter((l) => /^\[compaction\] Context compacted/.test(l));
    const s = seen(rig.server);
    t.diagnostic(`window ${window}: ${describe(s)}, ${compactions.length} compactions`);
    assert.ok(s.summaries <= compactions.length, `${s.summaries} summary requests for ${compactions.length} compactions`);
    for (const l of compactions) assert.match(l, /partial capsule/, l);
    assert.ok(!r.lines.some((l) => /degraded|skipped/.test(l)), 'no summary thrown away');
    if (window < 32_768) assert.ok(compactions.length >= 1, 'a small window compacts during the turn');
    assert.equal(s.rejected, 0);
  });
}
