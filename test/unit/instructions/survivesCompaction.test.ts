// An AGENTS.md constraint reaches every request byte-identical before and after three compactions (8k, 32k, 128k windows), real openai client against the fake server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { agentResponder, compactionEnds, SMALL_SETTINGS, tempDir, verifyFile } from '../agent/agentHelpers.js';
import { openWithInstructions, systemText, workspaceWith } from './instructionHelpers.js';

const AGENTS = '# House rules\n\n- CONSTRAINT-7F3A: indent with exactly three spaces, never tabs.\n- Run `npm test` before saying a change is done.\n';
const VERBATIM = `## AGENTS.md\n${AGENTS.trimEnd()}`;

for (const window of [8_000, 32_000, 128_000]) {
  test(`AGENTS.md is in every request, byte-identical, across three compactions at a ${window / 1000}k window`, async (t) => {
    const dir = await tempDir(t);
    const server = await startFakeOpenAI({ window });
    t.after(() => server.close());
    server.setFallback(
      agentResponder((text) => {
        const m = /^Read (f\d+)/.exec(text);
        return m === null ? [] : [{ name: 'read_file', arguments: { path: `src/${m[1] ?? ''}.ts` } }];
      }),
    );
    const ws = await workspaceWith(dir, { 'AGENTS.md': AGENTS }, 4, 50);
    const { session, events, path } = await openWithInstructions(server, dir, ws, {
      window,
      maxOutput: 1000,
      settings: { ...SMALL_SETTINGS, keepRecentTokens: 600 },
    });
    t.after(() => session.close());
    const signal = new AbortController().signal;
    const completed = (): number => compactionEnds(events).filter((e) => e.outcome === 'completed').length;
    // Automatic compactions may come first at 8k; each round ends with /compact, until three have completed.
    for (let round = 0; round < 6 && completed() < 3; round++) {
      for (const f of ['f0', 'f1', 'f2'])
        assert.equal((await session.turn({ userText: `Read ${f} and check it (round ${round}).`, signal })).status, 'completed');
      await session.compact();
    }
    assert.equal((await session.turn({ userText: 'Read f3 and check it.', signal })).status, 'completed');
    assert.ok(completed() >= 3, `completed compactions: ${completed()}`);
    const requests = server.chatRequests.filter((r) => r.status === undefined || r.status < 400);
    assert.ok(requests.length >= 12, `requests seen: ${requests.length}`);
    for (const [i, r] of requests.entries()) {
      const sys = systemText(r);
      assert.ok(sys.includes(VERBATIM), `request ${i + 1} carries AGENTS.md verbatim`);
      assert.equal(sys.split('CONSTRAINT-7F3A').length - 1, 1, `request ${i + 1} carries it exactly once`);
    }
    assert.equal((await verifyFile(path)).ok, true);
  });
}
