// The seed's escalation scenarios with their numbers (docs/behaviour.md#cut, seed 004) through the preflight barrier, plus the level-2 truncation-only plan.
import { test } from 'node:test';
import { tempDir as sharedTempDir } from '../../support/tempDir.js';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BarrierEvent } from '../../../src/engine/compaction/barrier.js';
import { isNothingToCompact, MAX_COMPACTIONS_PER_TURN, planCut } from '../../../src/engine/compaction/cut.js';
import type { CompactionOutcome } from '../../../src/engine/compaction/outcome.js';
import { truncationMarker } from '../../../src/engine/transcript/truncation.js';
import { EntryTokenCache } from '../../../src/engine/tokens/entryCache.js';
import { counterForModel } from '../../../src/node/tokenCounter.js';
import { buildModelInput } from '../../../src/engine/transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../../../src/engine/transcript/schema.js';
import { FileEvidenceArchive } from '../../../src/node/evidenceArchive.js';
import { JsonlSessionStore } from '../../../src/node/jsonlStore.js';
import { main } from '../../../src/cli/main.js';
import { startFakeOpenAI } from '../../fakes/openaiServer.js';
import { GOOD_SUMMARY, lines, session } from './harness.js';
import { MemoryStore, ScriptedModel } from './memoryStore.js';
import { earlierTurns, exchanges, output, parallelReads, rig, SYSTEM, type Sent } from './scenarioRig.js';
import { SessionBuilder } from './sessionBuilder.js';

/** `[... N lines truncated ...]` with any N. */
const MARKER = /\[\.\.\. \d+ lines truncated \.\.\.\]/;

const levels = (os: readonly CompactionOutcome[]): [string, number][] => os.map((o) => [o.outcome, o.level]);
const after = (o: CompactionOutcome | undefined): number => (o?.outcome === 'completed' ? o.tokensAfter : Number.NaN);
const starts = (events: readonly BarrierEvent[]) => events.flatMap((e) => (e.type === 'compaction_start' ? [e.plan] : []));
const toolTexts = (s: Sent | undefined): string[] => (s?.input.messages ?? []).flatMap((m) => (m.role === 'tool' ? [m.content] : []));

/** A temp dir removed after the test, once everything in `closeFirst` (filled in later, e.g. open stores) is closed. */
function tempDir(t: Parameters<typeof sharedTempDir>[0], closeFirst: (() => Promise<void>)[] = []): Promise<string> {
  return sharedTempDir(t, 'capsule-scenarios-', closeFirst);
}

function report(name: string, before: number, hard: number, outcomes: readonly CompactionOutcome[], sent: Sent | undefined): void {
  const steps = outcomes.map((o) => `level ${o.level} ${o.outcome} → ${o.outcome === 'completed' ? o.tokensAfter : '-'}`).join(', ');
  console.log(`[${name}] ${before} tokens, hard limit ${hard}: ${steps}; sent ${sent ? sent.tokens : 'nothing'}`);
}

test('seed scenario 1: 100k tokens in an 80k window — one level-0 compaction suffices', async () => {
  // A long chat of finished turns (each reads a file, runs the tests, answers); the user sends a new request.
  const b = new SessionBuilder();
  earlierTurns(b, 40, 140);
  b.user('Now add a changelog entry for all of these fixes');
  const r = rig(new MemoryStore(b.entries), { contextWindow: 80_000, maxOutputTokens: 8000, summarizer: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  const before = r.barrier.measure().tokens;
  assert.equal(r.hardLimit, 63_808, '80,000 − 8,000 output − 8,192 reserve');
  assert.ok(before >= 95_000 && before <= 105_000, `about 100k: ${before}`);
  const { result, sent } = await r.infer(b.currentTurnId);
  report('100k/80k', before, r.hardLimit, result.outcomes, sent);
  assert.deepEqual(levels(result.outcomes), [['completed', 0]]);
  assert.equal(result.outcomes[0]?.trigger, 'hard_limit');
  assert.equal(result.mayProceed, true);
  assert.ok(sent && sent.tokens <= r.hardLimit, `${sent?.tokens} <= ${r.hardLimit}`);
  assert.equal(sent.tokens, result.tokens, 'the barrier measured exactly what was sent');
  assert.ok(!toolTexts(sent).some((t) => MARKER.test(t)), 'level 0 never truncates');
  assert.equal(r.agent.requests.length, 1);
});

test('seed scenario 2: 200k tokens in a 128k window — the tail is measured in tokens, so level 0 suffices: the big batch is kept bounded', async () => {
  // One long autonomous turn: many finished reads, then a batch of 8 parallel reads (one indivisible unit of ~100k)
  // and a test run. Level 0 keeps the newest keepRecentTokens (20k) whole; the batch, older, is kept in its bounded
  // form (head + tail, entry id), so no deeper (and paid-for) level is needed.
  const b = new SessionBuilder();
  earlierTurns(b, 5, 100);
  const task = b.user('Migrate every module to the new API');
  exchanges(b, 45, 100);
  parallelReads(b, 8, 780, 'big');
  b.assistant('', 10, [{ name: 'run_command', args: { command: 'npm test' }, result: output(700, 'npmtest') }]);
  const r = rig(new MemoryStore(b.entries), { contextWindow: 128_000, maxOutputTokens: 8000, summarizer: new ScriptedModel([{ text: GOOD_SUMMARY }]) });
  const before = r.barrier.measure().tokens;
  assert.equal(r.hardLimit, 111_808);
  assert.ok(before >= 190_000 && before <= 210_000, `about 200k: ${before}`);
  const { result, sent } = await r.infer(b.currentTurnId);
  report('200k/128k', before, r.hardLimit, result.outcomes, sent);
  assert.deepEqual(levels(result.outcomes), [['completed', 0]]);
  assert.ok(after(result.outcomes[0]) <= r.hardLimit);
  assert.match(result.lines[0] ?? '', /^Context compacted \(hard_limit\): /);
  const batch = toolTexts(sent).filter((t) => t.startsWith('big'));
  assert.equal(batch.length, 8);
  for (const t of batch)
    assert.match(t, /older result shortened: \d+ characters omitted; the exact original \(entry [^)]+\) is readable with read_compaction_evidence/);
  assert.equal(result.mayProceed, true);
  assert.ok(sent && sent.tokens <= r.hardLimit, `${sent?.tokens} <= ${r.hardLimit}`);
  assert.equal(sent.tokens, result.tokens);
  assert.ok(!toolTexts(sent).some((t) => MARKER.test(t)), 'level 0 does not truncate');
  // The turn's task stays verbatim right after the capsule pair (docs/behaviour.md#cut).
  assert.equal(sent.input.messages[2]?.content, task.type === 'user' ? task.content : '');
});

test('seed scenario 3: 500k tokens in a 128k window — level 2 truncates the retained tool results, only in the copy sent', async (t) => {
  // A very long autonomous turn whose latest step read 5 service logs at once (~190k tokens, ~2,400 lines each).
  // The retained tail is known before any summary is paid for: no level below 2 brings the batch under the limit,
  // so the barrier goes straight to level 2, which summarizes the exchanges and truncates the batch.
  const closers: (() => Promise<void>)[] = [];
  const dir = await tempDir(t, closers);
  const path = join(dir, 'big.jsonl');
  const b = new SessionBuilder();
  earlierTurns(b, 5, 100);
  b.user('Find the cause of the crash in the service logs');
  exchanges(b, 140, 120);
  parallelReads(b, 5, 2400, 'logs');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_500k', cwd: '/w' } });
  closers.push(() => store.close());
  for (const e of b.entries) await store.append(e);
  const r = rig(store, {
    contextWindow: 128_000,
    maxOutputTokens: 8000,
    archive: new FileEvidenceArchive(join(dir, 'archive')),
    summarizer: new ScriptedModel([{ text: GOOD_SUMMARY }]),
  });
  const before = r.barrier.measure().tokens;
  assert.ok(before >= 480_000 && before <= 520_000, `about 500k: ${before}`);
  const { result, sent } = await r.infer(b.currentTurnId);
  report('500k/128k', before, r.hardLimit, result.outcomes, sent);
  assert.deepEqual(levels(result.outcomes), [['completed', 2]]);
  const plans = starts(r.events);
  assert.deepEqual(
    plans.map((p) => [p.level, p.truncateResults]),
    [[2, true]],
  );
  const last = result.outcomes[0];
  assert.ok(last?.outcome === 'completed' && last.capsule.truncateResults);
  assert.equal(result.mayProceed, true);
  assert.ok(sent && sent.tokens <= r.hardLimit, `${sent?.tokens} <= ${r.hardLimit}`);
  assert.equal(sent.tokens, result.tokens);
  // The copy sent: each log keeps its first and last 20 lines around the marker.
  const logs = toolTexts(sent).filter((c) => c.startsWith('logs'));
  assert.equal(logs.length, 5);
  for (const [i, text] of logs.entries()) {
    const ls = text.split('\n');
    assert.equal(ls.length, 41);
    assert.equal(ls[20], truncationMarker(2360));
    assert.match(ls[0] ?? '', new RegExp(`^logs${i} line 0:`));
    assert.match(ls[40] ?? '', new RegExp(`^logs${i} line 2399:`));
  }
  // The transcript on disk is untouched: no marker, every line of every log.
  const jsonl = await readFile(path, 'utf8');
  assert.ok(!MARKER.test(jsonl), 'no truncation marker in the JSONL');
  for (let i = 0; i < 5; i++) assert.ok(jsonl.includes(`logs${i} line 1200:`));
});

test(`seed scenario 4: when no level can get under the limit, one compaction at the deepest level (not ${MAX_COMPACTIONS_PER_TURN}) and the turn ends "context compaction exhausted", nothing sent`, async () => {
  // Project rules in the system prompt take ~18.4k of a 19.8k hard limit (32k window) and no summarizer is
  // reachable (deterministic fallback): no level's capsule plus tail fits beside the rules. Known before paying, so
  // the barrier runs the deepest level once instead of four compactions in a row, and sends nothing.
  const b = new SessionBuilder();
  earlierTurns(b, 3, 60);
  b.user('Stage every file');
  for (let i = 0; i < 200; i++) b.assistant('', 10, [{ name: 'run_command', args: { command: `git add src/f${i}.ts` }, result: 'exit code 0' }]);
  const store = new MemoryStore(b.entries);
  const r = rig(store, {
    contextWindow: 32_000,
    maxOutputTokens: 4000,
    settings: { keepRecentTokens: 4000, safetyReserveTokens: 8192 },
    defaultSystem: lines(1150, 'rule'),
  });
  const before = r.barrier.measure().tokens;
  const { result, sent } = await r.infer(b.currentTurnId);
  report('exhausted', before, r.hardLimit, result.outcomes, sent);
  assert.deepEqual(levels(result.outcomes), [['completed', 3]]);
  for (const [i, o] of result.outcomes.entries()) assert.ok(after(o) > r.hardLimit && after(o) < o.tokensBefore, `compaction ${i + 1}: ${after(o)}`);
  assert.equal(result.mayProceed, false);
  assert.equal(result.exhausted, true);
  assert.match(result.error ?? '', /^context compaction exhausted/);
  assert.ok(result.tokens > r.hardLimit);
  assert.equal(sent, undefined);
  assert.equal(r.agent.requests.length, 0, 'the oversized request was never sent');
  assert.deepEqual(
    r.events.filter((e) => e.type === 'preflight_blocked').map((e) => e.type === 'preflight_blocked' && e.reason),
    ['exhausted'],
  );
  assert.equal(store.ofType('capsule').length, 1);
});

test('fix: with only the active turn left, one huge tool result is truncated by a level-2 plan that summarizes nothing', async () => {
  // First preflight of a turn: no capsule yet, the task and one read of a 3,000-line file (~48k tokens).
  const b = new SessionBuilder();
  const task = b.user('Explain what this generated parser does');
  b.assistant('', 10, [{ name: 'read_file', args: { path: 'src/generated/parser.ts' }, result: output(3000, 'parser') }]);
  const store = new MemoryStore(b.entries);
  const r = rig(store, {
    contextWindow: 32_000,
    maxOutputTokens: 4000,
    settings: { keepRecentTokens: 4000 },
    summarizer: new ScriptedModel([{ text: GOOD_SUMMARY }]),
  });
  const { result, sent } = await r.infer(b.currentTurnId);
  report('active turn only', result.outcomes[0]?.tokensBefore ?? 0, r.hardLimit, result.outcomes, sent);
  assert.deepEqual(levels(result.outcomes), [['completed', 2]]);
  const capsule = store.ofType('capsule')[0];
  assert.ok(capsule);
  assert.deepEqual(capsule.pinnedEntryIds, [task.id]);
  assert.equal(capsule.firstKeptEntryId, b.entries[1]?.id);
  assert.equal(capsule.truncateResults, true);
  assert.ok(sent && sent.tokens <= r.hardLimit);
  assert.equal(sent.input.messages[2]?.content, 'Explain what this generated parser does');
  assert.equal(toolTexts(sent)[0]?.split('\n')[20], truncationMarker(2960));
  assert.equal(store.ofType('tool_result')[0]?.content.split('\n').length, 3000, 'the transcript keeps the whole result');
});

/** The branch plus a capsule after it, as the compactor would append it. */
function withCapsule(entries: readonly Entry[], c: Pick<CapsuleEntry, 'firstKeptEntryId' | 'pinnedEntryIds' | 'truncateResults'>, id = 'c_fix'): Entry[] {
  const capsule: CapsuleEntry = {
    type: 'capsule',
    id,
    parentId: entries[entries.length - 1]?.id ?? null,
    timestamp: '2025-01-01T00:01:00.000Z',
    summary: GOOD_SUMMARY,
    tokensBefore: 0,
    tokensAfter: 0,
    trigger: 'hard_limit',
    level: 2,
    quality: 'full',
    checkpointId: 'ck_fix',
    details: {},
    ...c,
  };
  return [...entries, capsule];
}

test('fix: a capsule truncates only its retained tail; a tail already truncated, or a saving under 10%, gives no truncation-only plan', () => {
  const cache = new EntryTokenCache(counterForModel('gpt-4o'));
  const tokensOf = (e: Entry): number => cache.tokensOf(e);
  const plan = (branch: readonly Entry[], level: 2 | 3) => planCut({ branch, tokensOf, keepRecentTokens: 2000, level, activeTurnId: 't1' });
  const b = new SessionBuilder();
  const task = b.user('Audit the logs');
  b.assistant('', 10, [{ name: 'read_file', args: { path: 'a.log' }, result: output(500, 'a') }]);
  const truncated = withCapsule(b.entries, { firstKeptEntryId: b.entries[1]?.id ?? null, pinnedEntryIds: [task.id], truncateResults: true });
  // Already sent truncated: planning again would append a capsule that saves nothing, compaction after compaction.
  for (const level of [2, 3] as const) assert.ok(isNothingToCompact(plan(truncated, level)));
  const fresh = withCapsule(b.entries, { firstKeptEntryId: b.entries[1]?.id ?? null, pinnedEntryIds: [task.id], truncateResults: false });
  const p = plan(fresh, 2);
  assert.ok(!isNothingToCompact(p));
  assert.deepEqual([p.summarizedTokens, p.pinnedEntryIds, p.firstKeptEntryId, p.truncateResults], [0, [task.id], b.entries[1]?.id, true]);
  assert.equal(p.previousCapsule?.id, 'c_fix', 'the previous capsule is rolled in');
  assert.ok(p.truncatedTokens >= 0.9 * (p.keptTokens - 500), `${p.truncatedTokens} of ${p.keptTokens}`);

  // A result that appears after the truncating capsule is sent whole until a new capsule covers it.
  const later = new SessionBuilder();
  later.user('x');
  const [call, result] = later.assistant('', 10, [{ name: 'read_file', args: { path: 'b.log' }, result: output(500, 'b') }]);
  assert.ok(call && result);
  // The same turn (t1) goes on after the capsule.
  const withLater: Entry[] = [...truncated, { ...call, id: 'a_later', parentId: 'c_fix' }, { ...result, id: 'r_later', parentId: 'a_later' }];
  const lineCounts = (branch: readonly Entry[]): number[] =>
    buildModelInput(branch, SYSTEM).messages.flatMap((m) => (m.role === 'tool' ? [m.content.split('\n').length] : []));
  assert.deepEqual(lineCounts(withLater), [41, 500]);
  const next = plan(withLater, 2);
  assert.ok(!isNothingToCompact(next) && next.truncateResults);
  assert.deepEqual([next.firstKeptEntryId, next.pinnedEntryIds], ['a_later', [task.id]]);
  const installed = withCapsule(withLater, { firstKeptEntryId: next.firstKeptEntryId, pinnedEntryIds: next.pinnedEntryIds, truncateResults: true }, 'c_next');
  assert.deepEqual(lineCounts(installed), [41], 'the older read was summarized; the newer one is now truncated');
  assert.equal(buildModelInput(installed, SYSTEM).messages[2]?.content, 'Audit the logs', 'the pinned task stays verbatim');

  // 45 lines truncate to 41: about 9% of one result, under the 10% effectiveness rule.
  const small = new SessionBuilder();
  small.user('Read it');
  small.assistant('', 10, [{ name: 'read_file', args: { path: 'c.ts' }, result: output(45, 'c') }]);
  for (const level of [2, 3] as const) assert.ok(isNothingToCompact(plan(small.entries, level)));
});

test('capsule compact --focus passes the focus to the summary instruction and records it on the capsule', async (t) => {
  const closers: (() => Promise<void>)[] = [];
  const dir = await tempDir(t, closers);
  const path = join(dir, 'focus.jsonl');
  const store = await JsonlSessionStore.open(path, { create: { id: 's_focus', cwd: '/w' } });
  for (const e of session(30, 100)) await store.append(e);
  await store.close();
  const server = await startFakeOpenAI({ window: 65000 });
  t.after(() => server.close());
  server.enqueue({ text: GOOD_SUMMARY });
  const out: string[] = [];
  const code = await main(['compact', path, '--base-url', server.url, '--model', 'gpt-4o', '--window', '65000', '--focus', 'the parser bug'], (s) =>
    out.push(s),
  );
  assert.equal(code, 0, out.join('\n'));
  const body = server.chatRequests[0]?.body as { messages?: { content?: unknown }[] } | undefined;
  const instruction = body?.messages?.at(-1)?.content;
  assert.match(typeof instruction === 'string' ? instruction : JSON.stringify(instruction), /the parser bug/);
  const reopened = await JsonlSessionStore.open(path);
  closers.push(() => reopened.close());
  const capsule = reopened.entries().find((e): e is CapsuleEntry => e.type === 'capsule');
  assert.equal(capsule?.details['focus'], 'the parser bug');
  await assert.rejects(
    main(['compact', path, '--fallback', '--focus', '  '], () => undefined),
    /--focus needs some text/,
  );
});
