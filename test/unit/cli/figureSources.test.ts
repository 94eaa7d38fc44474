// Small honesty items: no cache line without cache figures, result lines and flight records name where figures came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { chat, edgeRig, writeTokens } from './edgeRig.js';
import { flightLogFor } from '../../../src/cli/commands/compact.js';
import { main } from '../../../src/cli/main.js';

test('a server that reports no cache figures gets no "[cache] Prompt cache: 0 / N" line; one that does, gets it', async (t) => {
  const quiet = await edgeRig(t, { promptCache: 'unreported' });
  const r = await chat(quiet, 'fake-model', 'hello');
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.ok(!r.lines.some((l) => l.startsWith('[cache]')), r.lines.join('\n'));
  const reporting = await edgeRig(t, {});
  const s = await chat(reporting, 'fake-model', 'hello');
  assert.ok(
    s.lines.some((l) => /^\[cache\] Prompt cache: 0 \/ [\d,]+ prompt tokens cached/.test(l)),
    s.lines.join('\n'),
  );
});

test('compaction result lines and flight records say whether the figures were provider-reported or estimated', async (t) => {
  const rig = await edgeRig(t, { window: 8_192 });
  for (let i = 0; i < 6; i++) await writeTokens(rig, `f${i}.txt`, 1_600);
  rig.server.onMatch({ summary: true }, { text: '## Goal\n- read\n\n## Progress\n- reading\n\n## Next Steps\n- more' });
  let n = 0;
  rig.server.setFallback(() => {
    n += 1;
    return n <= 6 ? { toolCalls: [{ name: 'read_file', arguments: { path: `f${n - 1}.txt` } }] } : { text: 'done' };
  });
  const r = await chat(rig, 'fake-model', 'read the files');
  assert.equal(r.code, 0, r.lines.join('\n'));
  const lines = r.lines.filter((l) => l.startsWith('[compaction] Context compacted'));
  assert.ok(lines.length >= 1, r.lines.join('\n'));
  for (const l of lines) assert.match(l, / · tokens(?: estimated|: before provider-reported, after estimated)$/);
  const records = (await readFile(flightLogFor(rig.session), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { outcome: string; tokensSource?: string });
  const done = records.filter((x) => x.outcome === 'completed');
  assert.ok(done.length >= 1);
  for (const x of done) assert.ok(x.tokensSource === 'provider_usage' || x.tokensSource === 'estimated', JSON.stringify(x));
});

test('a transient "unexpected end of JSON input" (not an overflow) never shrinks the window', async (t) => {
  const rig = await edgeRig(t, { window: 65_536 });
  rig.server.enqueue({ truncatedJson: true });
  const r = await chat(rig, 'fake-model', 'hello', '--window', '65536');
  assert.ok(!r.lines.some((l) => /shrinks/.test(l)), r.lines.join('\n'));
  const lines: string[] = [];
  assert.equal(await main(['budget', rig.session], (s) => lines.push(...s.split('\n'))), 0);
  assert.ok(
    lines.some((l) => /Context window:\s+65,536 tokens/.test(l)),
    lines.join('\n'),
  );
});
