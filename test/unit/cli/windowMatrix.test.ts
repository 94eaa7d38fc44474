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
