// The system Clock and a crypto-random IdSource for the Node side of the engine's ports.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { idSource } from '../engine/ids.js';
import type { Clock, IdSource } from '../engine/ports.js';

export const nodeClock: Clock = {
  now: () => Date.now(),
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    // timers/promises rejects with an AbortError when the signal fires, as the port requires.
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  },
};

/** Random bytes from a pool refilled 4 KB at a time: one system call per ~340 ids, not one per id (an import makes one per entry). */
function pooledRandomBytes(): (n: number) => Uint8Array {
  let pool = randomBytes(4096);
  let at = 0;
  return (n) => {
    if (n > pool.length) return randomBytes(n);
    if (at + n > pool.length) {
      pool = randomBytes(4096);
      at = 0;
    }
    at += n;
    return pool.subarray(at - n, at);
  };
}

export const nodeIds: IdSource = idSource(pooledRandomBytes());
