// The retention report: a summary that drops a path and a command is caught, the card and `capsule show --retention` report both, and the lost facts are appended.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCompaction } from '../../../src/engine/compaction/compactor.js';
import { makePlan } from '../../../src/engine/compaction/plan.js';
import { measureRetention, retentionFromDetails, retentionLine, spanFacts } from '../../../src/engine/compaction/retention.js';
import { CompactionCardSchema } from '../../../src/protocol/transcript.js';
import { retentionView } from '../../../src/vscode/projection/compactionViews.js';
import { card as sampleCard } from '../protocol/samples.js';
import { main } from '../../../src/cli/main.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import type { CapsuleEntry } from '../../../src/engine/transcript/schema.js';
import { Chain, GOOD_SUMMARY, harness, lines } from './harness.js';
import { ScriptedModel } from './memoryStore.js';

const OLD_COMMAND = 'node scripts/check-0.js --strict';

function longSession(): Chain {
  const c = new Chain();
  c.user('Fix bug #1 in src/mod1.ts.');
  c.tool('read_file', { path: 'src/mod1.ts' }, lines(40, 'mod1'));
  c.assistant('Looking.');
  // Neither the first nor the latest request, so the ledger does not quote it: only the summary could keep it.
  c.user('Also keep docs/api.md in sync; `MAX_RETRIES` stays 5.');
  // More commands than the rendered ledger shows: the oldest is cut from its list.
  for (let i = 0; i < 45; i++) c.tool('run_command', { command: i === 0 ? OLD_COMMAND : `node scripts/check-${i}.js` }, `ok\nexit code 0`);
  c.tool('run_command', { command: 'npm test' }, 'FAIL src/mod1.test.ts\nTypeError: cannot read properties of undefined\nexit code 1');
  c.assistant('Fixed bug #1.');
  for (let t = 2; t <= 6; t++) c.turn(t, 60);
  return c;
}

async function compacted(): Promise<{ capsule: CapsuleEntry; h: ReturnType<typeof harness> }> {
  const h = harness(longSession().entries, { model: new ScriptedModel([{ text: GOOD_SUMMARY }]), contextWindow: 40_000 });
  const m = h.barrier.measure();
  const plan = makePlan({
    operationId: 'op_r',
    trigger: 'user',
    mandatory: false,
    roiExempt: true,
    branch: m.branch,
    leafAtPlan: m.leaf,
    level: 0,
    tokensOf: (e) => h.cache.tokensOf(e),
    tokensBefore: m.tokens,
    tokensSource: m.source,
    limits: h.barrier.limits(),
    keepRecentTokens: h.resolved.settings.keepRecentTokens,
  });
  const o = await runCompaction(h.deps, plan, new AbortController().signal);
  assert.equal(o.outcome, 'completed', JSON.stringify(o));
  const capsule = h.store.entries().at(-1);
  assert.equal(capsule?.type, 'capsule');
  if (capsule?.type !== 'capsule') throw new Error('no capsule');
  return { capsule, h };
}

test('the summary dropped a named path and an old command: the report says so, and both are appended to the capsule', async () => {
  const { capsule, h } = await compacted();
  const r = retentionFromDetails(capsule.details);
  assert.ok(r, 'retention stored in the capsule');
  assert.ok(r.files.dropped.includes('docs/api.md'), JSON.stringify(r.files));
  assert.ok(r.commands.dropped.includes(OLD_COMMAND), JSON.stringify(r.commands));
  assert.equal(r.files.total - r.files.kept, r.files.dropped.length);
  assert.ok(r.commands.total >= 46);
  assert.ok(r.identifiers.dropped.includes('MAX_RETRIES') || r.identifiers.kept > 0);
  assert.ok(r.errors.total >= 1);
  assert.ok(r.appended >= 2);
  assert.match(capsule.summary, /\*\*Also in the summarized span\*\*[\s\S]*`docs\/api.md`[\s\S]*`node scripts\/check-0.js --strict`/);
  assert.match(retentionLine(r), /files \d+\/\d+ · commands \d+\/\d+/);
  // The flight record carries the counts, never the items.
  const flight = h.flights.at(-1);
  assert.deepEqual(flight?.retention?.files, { total: r.files.total, kept: r.files.kept });
  assert.ok(!JSON.stringify(flight).includes('docs/api.md'));

  // Every card (live or in a snapshot) is built from the capsule entry; its retention part comes from here.
  const card = CompactionCardSchema.parse({ ...sampleCard, checkpointId: capsule.checkpointId, ...retentionView(capsule) });
  assert.equal(card.retention?.line, retentionLine(r));
  assert.ok(card.retention?.dropped.some((d) => d.category === 'files' && d.item === 'docs/api.md'));
  assert.ok(card.retention?.dropped.some((d) => d.category === 'commands' && d.item === OLD_COMMAND));
});

test('capsule show --retention prints the figures and the dropped items', async (t) => {
  const { capsule, h } = await compacted();
  const dir = await mkdtemp(join(tmpdir(), 'capsule-retention-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 10 }));
  const path = join(dir, 's.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 'sess', cwd: dir } });
  for (const e of h.store.entries()) await store.append(e);
  await store.close();
  const out: string[] = [];
  assert.equal(await main(['show', path, '--retention'], (s) => out.push(s)), 0);
  const text = out.join('\n');
  assert.match(text, new RegExp(`Retention of ${capsule.checkpointId}: files \\d+/\\d+`));
  assert.match(text, /Dropped files[\s\S]*docs\/api.md/);
  assert.match(text, /Dropped commands[\s\S]*node scripts\/check-0.js --strict/);
});

test('what "mattered" is extracted mechanically, and survival is measured on capsule and tail text', () => {
  const c = new Chain();
  c.user('Rename `parseWeek` to parse_iso_week in lib/dates.py (issue #482, v2.3.1).');
  c.tool('run_command', { command: 'pytest -q' }, 'E   AssertionError: 1 != 2\n1 failed in 0.2s\nexit code 1');
  const facts = spanFacts(c.entries);
  assert.deepEqual(facts.files, ['lib/dates.py']);
  assert.deepEqual(facts.commands, ['pytest -q']);
  assert.deepEqual(facts.errors, ['E   AssertionError: 1 != 2']);
  for (const id of ['parseWeek', 'parse_iso_week', '#482', 'v2.3.1']) assert.ok(facts.identifiers.includes(id), id);
  const r = measureRetention(facts, 'Renamed parseWeek in lib/dates.py; `pytest -q` fails with E   AssertionError: 1 != 2', 'issue #482');
  assert.deepEqual([r.files.kept, r.commands.kept, r.errors.kept], [1, 1, 1]);
  assert.deepEqual(r.identifiers.dropped.sort(), ['parse_iso_week', 'v2.3.1']);
  assert.equal(retentionLine(r), 'files 100% · commands 100% · errors 100% · identifiers 2/4');
});
