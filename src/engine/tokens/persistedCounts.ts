// Token counts kept across opens (docs/behaviour.md#counted-once): what the per-entry cache reads before it tokenizes, and records after.
import { cyrb53 } from './hash.js';

/**
 * Which counter and counting rules a persisted figure came from. A count is only trusted for the same id: another
 * encoding, or a change to how a message is framed (MESSAGE_OVERHEAD and friends), bumps it and old figures are ignored.
 */
const COUNTING_RULES = 1;

export function tokenizerId(encoding: string): string {
  return `${encoding}@${COUNTING_RULES}`;
}

/**
 * Counts by key for one tokenizer. `chars` is the length of what was counted: a figure whose length no longer
 * matches (a hand-edited line, a truncated form of the same entry) is not returned, so it is recounted instead.
 */
export interface PersistedCounts {
  get(key: string, chars: number): number | undefined;
  /** Records an exact count; the store decides when it reaches the disk. */
  put(key: string, chars: number, tokens: number): void;
}

/** Plain texts (system prompt, tool schemas) are keyed by their hash: the same text always has the same count. */
export function textKey(text: string): string {
  return `t:${cyrb53(text, 7).toString(36)}${cyrb53(text, 11).toString(36)}`;
}
