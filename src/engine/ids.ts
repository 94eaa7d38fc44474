// Id formats used across sessions: entry ids, checkpoint ids and operation ids.
import type { IdSource } from './ports.js';

/** Builds an IdSource from a source of random bytes (Node or browser crypto, or a seeded PRNG in tests). */
export function idSource(randomBytes: (n: number) => Uint8Array): IdSource {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  return {
    next(prefix: string): string {
      const bytes = randomBytes(12);
      let s = '';
      for (const b of bytes) s += alphabet[b % alphabet.length];
      return `${prefix}${s}`;
    },
  };
}
