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

export const nodeIds: IdSource = idSource((n) => randomBytes(n));
