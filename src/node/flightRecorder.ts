// Appends flight records (docs/behaviour.md#observability) to a JSONL file, one complete line per write, and echoes each as one log line.
import { mkdir } from 'node:fs/promises';
import { openRegularFileForAppend } from './regularFile.js';
import { readJsonLines } from './fsUtil.js';
import { dirname } from 'node:path';
import { FlightRecordSchema, formatFlightRecord, parseFlightRecord } from '../engine/compaction/flightRecord.js';
import type { FlightRecord } from '../engine/compaction/flightRecord.js';
import type { Logger } from '../engine/ports.js';
import { writeAll } from './tornTail.js';

function errText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

export class FlightRecorder {
  readonly file: string;
  private readonly logger: Logger | undefined;
  // Records are written one after another, so two operations finishing together never interleave bytes.
  private queue: Promise<void> = Promise.resolve();

  constructor(file: string, logger?: Logger) {
    this.file = file;
    this.logger = logger;
  }

  /**
   * Validates and appends one record. An invalid record (an unknown field such as `summary`) throws:
   * that is a bug to surface. Disk failures are logged, never thrown: observability must not fail the
   * compaction it observes.
   */
  async record(r: FlightRecord): Promise<void> {
    const parsed = FlightRecordSchema.safeParse(r);
    if (!parsed.success) {
      const what = parsed.error.issues
        .slice(0, 3)
        .map((i) => (i.code === 'unrecognized_keys' ? `unknown field ${i.keys.join(', ')}` : `${i.path.map(String).join('.')}: ${i.message}`));
      throw new Error(`Refusing to write an invalid flight record (${String(r.operationId)}): ${what.join('; ')}`);
    }
    const line = Buffer.from(`${JSON.stringify(parsed.data)}\n`, 'utf8');
    this.logger?.log('info', formatFlightRecord(parsed.data), { operationId: parsed.data.operationId, outcome: parsed.data.outcome });
    const run = this.queue.then(() => this.append(line));
    this.queue = run.catch(() => undefined);
    try {
      await run;
    } catch (err) {
      this.logger?.log('warn', `Could not write the flight record to ${this.file}: ${errText(err)}`, { operationId: parsed.data.operationId });
    }
  }

  private async append(line: Buffer): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    // No fsync: a lost last record after a power cut is acceptable for a diagnostic log.
    const h = await openRegularFileForAppend(this.file, 'flight log');
    try {
      await writeAll(h, line);
    } finally {
      await h.close();
    }
  }
}

/** All valid records in file order; a missing file is empty, bad or torn lines are skipped. */
export async function readFlightRecords(file: string): Promise<FlightRecord[]> {
  return (await readJsonLines(file, parseFlightRecord, 'flight record')).items;
}
