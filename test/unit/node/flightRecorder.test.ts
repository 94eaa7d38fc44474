// Flight records (docs/behaviour.md#observability): strict content-free records, one human log line each, JSONL append and tolerant read-back.
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { FlightRecordSchema, buildFlightRecord, formatDuration, formatFlightRecord, groupDigits } from '../../../src/engine/compaction/flightRecord.js';
import type { FlightRecord, FlightRecordInput } from '../../../src/engine/compaction/flightRecord.js';
import type { LogLevel, Logger } from '../../../src/engine/ports.js';
import { FlightRecorder, readFlightRecords } from '../../../src/node/flightRecorder.js';
import { tempDir } from './storeHelpers.js';

const LIMITS = { contextWindow: 128_000, hardLimit: 111_616, softLimit: 89_292 };
const T0 = Date.parse('2025-03-01T10:00:00.000Z');

function input(over: Partial<FlightRecordInput> = {}): FlightRecordInput {
  return {
    operationId: 'op_x',
    sessionId: 's_1',
    trigger: 'auto_threshold',
    level: 0,
    outcome: 'completed',
    startedAt: T0,
    endedAt: T0 + 2_300,
    limits: LIMITS,
    tokensBefore: 52_310,
    tokensAfter: 18_904,
    checkpointId: 'ck_abc',
    quality: 'full',
    attempts: 1,
    ...over,
  };
}

function memoryLogger(): Logger & { lines: { level: LogLevel; message: string; fields?: Readonly<Record<string, unknown>> }[] } {
  const lines: { level: LogLevel; message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  return { lines, log: (level, message, fields) => lines.push({ level, message, ...(fields ? { fields } : {}) }) };
}

test('the builder computes duration, reclaimed tokens and percent', () => {
  const r = buildFlightRecord(input());
  assert.deepEqual(r, {
    ts: '2025-03-01T10:00:02.300Z',
    operationId: 'op_x',
    sessionId: 's_1',
    trigger: 'auto_threshold',
    level: 0,
    outcome: 'completed',
    durationMs: 2_300,
    limits: LIMITS,
    tokensBefore: 52_310,
    tokensAfter: 18_904,
    reclaimedTokens: 33_406,
    reclaimedPct: 63.9,
    checkpointId: 'ck_abc',
    quality: 'full',
    attempts: 1,
  });
  assert.equal(FlightRecordSchema.safeParse(r).success, true);
  const skipped = buildFlightRecord({ ...input({ outcome: 'skipped', reason: 'below soft limit' }), tokensAfter: undefined });
  assert.equal(skipped.reclaimedTokens, undefined);
  assert.equal(skipped.reclaimedPct, undefined);
});

test('the builder copies known fields only, so a capsule riding along never reaches the record', () => {
  const wide = { ...input(), summary: '## Goal\nSECRET capsule text', capsule: { summary: 'SECRET' } } as FlightRecordInput;
  const r = buildFlightRecord(wide);
  assert.ok(!JSON.stringify(r).includes('SECRET'));
  assert.equal(buildFlightRecord(input({ reason: 'r'.repeat(5_000) })).reason?.length, 1_000, 'long reasons are capped');
});

test('the schema is strict: unknown fields such as summary are rejected', () => {
  const r = buildFlightRecord(input());
  assert.equal(FlightRecordSchema.safeParse({ ...r, summary: 'the capsule' }).success, false);
  assert.equal(FlightRecordSchema.safeParse({ ...r, capsuleText: 'x' }).success, false);
  assert.equal(FlightRecordSchema.safeParse({ ...r, limits: { ...LIMITS, prompt: 'x' } }).success, false);
  assert.equal(FlightRecordSchema.safeParse({ ...r, outcome: 'exploded' }).success, false);
  assert.equal(FlightRecordSchema.safeParse({ ...r, trigger: 'whim' }).success, false);
  assert.equal(FlightRecordSchema.safeParse({ ...r, reason: 'x'.repeat(1_001) }).success, false);
});

test('one human line per record', () => {
  assert.equal(formatFlightRecord(buildFlightRecord(input())), 'op_x auto_threshold L0 completed 52,310 → 18,904 (-64%) in 2.3s ck_abc full');
  const failed = buildFlightRecord({
    ...input({ outcome: 'failed', level: 2, trigger: 'hard_limit', endedAt: T0 + 450, reason: 'provider error:\n  HTTP 500' }),
    tokensAfter: undefined,
    checkpointId: undefined,
    quality: undefined,
    attempts: 3,
  });
  assert.equal(formatFlightRecord(failed), 'op_x hard_limit L2 failed 52,310 in 450ms 3 attempts: provider error: HTTP 500');
  const degraded = buildFlightRecord(input({ quality: 'degraded', fallbackReason: 'summarizer timed out', tokensAfter: 60_000, endedAt: T0 + 65_000 }));
  assert.equal(
    formatFlightRecord(degraded),
    'op_x auto_threshold L0 completed 52,310 → 60,000 (+15%) in 1m 05s ck_abc degraded (fallback: summarizer timed out)',
  );
  assert.equal(groupDigits(1_234_567), '1,234,567');
  assert.equal(groupDigits(-999), '-999');
  assert.equal(formatDuration(59_960), '1m 00s', 'never "60.0s"');
  assert.equal(formatDuration(999), '999ms');
});

test('records append as JSONL, log one info line each, and read back skipping bad lines', async (t) => {
  const file = join(await tempDir(t), 'logs', 'flight.jsonl');
  assert.deepEqual(await readFlightRecords(file), [], 'no file yet: no records');
  const logger = memoryLogger();
  const rec = new FlightRecorder(file, logger);
  const a = buildFlightRecord(input({ operationId: 'op_a' }));
  const b = buildFlightRecord({ ...input({ operationId: 'op_b', outcome: 'cancelled' }), tokensAfter: undefined });
  const c = buildFlightRecord(input({ operationId: 'op_c', outcome: 'stale' }));
  await rec.record(a);
  await appendFile(file, 'not json at all\n{"operationId":"op_partial"}\n\n');
  await Promise.all([rec.record(b), rec.record(c)]);
  await appendFile(file, '{"ts":"2025-03-01T1'); // a torn last line

  const back = await readFlightRecords(file);
  assert.deepEqual(
    back.map((r) => r.operationId),
    ['op_a', 'op_b', 'op_c'],
  );
  assert.deepEqual(back[0], a);
  const lines = (await readFile(file, 'utf8')).split('\n');
  assert.equal(lines.filter((l) => l.startsWith('{"ts"') && l.endsWith('}')).length, 3, 'each record is one complete line');

  assert.deepEqual(
    logger.lines.map((l) => [l.level, l.message]),
    [
      ['info', formatFlightRecord(a)],
      ['info', formatFlightRecord(b)],
      ['info', formatFlightRecord(c)],
    ],
  );
});

test('a record with a summary is refused and nothing is written or logged', async (t) => {
  const file = join(await tempDir(t), 'flight.jsonl');
  const logger = memoryLogger();
  const rec = new FlightRecorder(file, logger);
  const leaky = { ...buildFlightRecord(input()), summary: 'SECRET capsule' } as FlightRecord;
  await assert.rejects(rec.record(leaky), /Refusing to write an invalid flight record \(op_x\): unknown field summary/);
  assert.deepEqual(await readFlightRecords(file), []);
  assert.deepEqual(logger.lines, []);
});

test('a disk failure is logged as a warning, not thrown', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'blocker'), 'x');
  const logger = memoryLogger();
  const rec = new FlightRecorder(join(dir, 'blocker', 'flight.jsonl'), logger);
  await rec.record(buildFlightRecord(input()));
  assert.equal(logger.lines.length, 2);
  assert.equal(logger.lines[1]?.level, 'warn');
  assert.match(logger.lines[1]?.message ?? '', /Could not write the flight record/);
  // Once the folder is usable again, the same recorder writes.
  await rm(join(dir, 'blocker'));
  await rec.record(buildFlightRecord(input({ operationId: 'op_after' })));
  assert.deepEqual(
    (await readFlightRecords(join(dir, 'blocker', 'flight.jsonl'))).map((r) => r.operationId),
    ['op_after'],
  );
});
