// The index thread's entry (docs/loading.md#indexing): reads the lines before a session's tail and posts their keys, chunk by chunk, while the main thread goes on.
import { parentPort, workerData } from 'node:worker_threads';
import { BatchWriter, type KeyEnd } from './keyBatches.js';
import { scanLines } from './lineReader.js';

interface IndexJob {
  readonly path: string;
  readonly maxLineBytes: number;
  readonly end: number;
}

async function main(port: NonNullable<typeof parentPort>, job: IndexJob): Promise<void> {
  const out = new BatchWriter((b) => port.postMessage(b, [b.nums.buffer as ArrayBuffer, b.keyLengths.buffer as ArrayBuffer]));
  let end: KeyEnd;
  try {
    const scan = await scanLines(job.path, out.sink, job.maxLineBytes, 0, job.end);
    out.flush();
    end = { done: true, bytes: scan.bytes, lines: scan.lines };
  } catch (err) {
    end = { failed: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(end);
}

if (parentPort !== null) void main(parentPort, workerData as IndexJob);
