// Runs the index of the lines before a session's tail on a second thread (docs/loading.md#indexing): it reads, splits and key-reads the file while this thread links the tree and goes on with its work.
import { readBatch, type BatchReader, type KeyBatch, type KeyEnd } from './keyBatches.js';
import type { ScanResult } from './lineReader.js';
import { startThread } from './threadStart.js';

/**
 * `minBytes`: below this much before the tail, indexing here costs less than starting a thread (about 30 ms, the
 * time to index some 8 MB). `runs`: how many indexes a thread did (tests read it).
 */
export const indexThreadHooks: { minBytes: number; runs: number } = { minBytes: 8 * 1024 * 1024, runs: 0 };

/**
 * Scans `[0, end)` of `path` on the index thread and hands every line to `to`, in file order. Undefined when no
 * thread can run here (no script next to the bundle); rejects when the thread fails, so the caller indexes here instead.
 */
export function scanOnIndexThread(path: string, to: BatchReader, maxLineBytes: number, end: number): Promise<ScanResult> | undefined {
  const worker = startThread('indexWorker', { workerData: { path, maxLineBytes, end } });
  if (worker === undefined) return undefined;
  return new Promise<ScanResult>((resolve, reject) => {
    let settled = false;
    let prev: string | undefined;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    worker.on('message', (m: KeyBatch | KeyEnd) => {
      if (settled) return;
      if ('nums' in m) {
        try {
          prev = readBatch(m, to, prev);
        } catch (err) {
          fail(err);
        }
      } else if ('failed' in m) fail(new Error(m.failed));
      else {
        settled = true;
        indexThreadHooks.runs++;
        resolve({ bytes: m.bytes, lines: m.lines });
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the index thread stopped (exit code ${code})`)));
  });
}
