// Per-entry token counts, cached by immutable entry id, so a preflight after one new entry costs O(that entry) (docs/behaviour.md#tokens).
import { CAPSULE_QUESTION, toModelMessage, type ModelMessage } from '../transcript/modelInput.js';
import type { CapsuleEntry, Entry } from '../transcript/schema.js';
import { countMessage, countText, MESSAGE_OVERHEAD, ROLE_TOKENS } from './messageTokens.js';
import type { TokenCounter } from './tokenizer.js';
import { textKey, type PersistedCounts } from './persistedCounts.js';

/** System prompts and tool schema strings change rarely; a few recent ones are enough. */
const MAX_CACHED_TEXTS = 32;

/** A tool result's count with the content length it was counted at. */
interface SizedCount {
  readonly length: number;
  readonly tokens: number;
}

export class EntryTokenCache {
  readonly #messages = new Map<string, number>();
  readonly #toolResults = new Map<string, SizedCount>();
  readonly #otherFormToolResults = new Map<string, SizedCount>();
  readonly #capsules = new Map<string, number>();
  readonly #texts = new Map<string, number>();
  /** The last capsule pair counted: a compaction measures its candidate capsule, then the continuation holding it. */
  #lastPair: { readonly summary: string; readonly tokens: number } | undefined;

  /** `persisted`: counts kept across opens (docs/behaviour.md#counted-once), read before tokenizing and given every exact count. */
  constructor(
    readonly counter: TokenCounter,
    private readonly persisted?: PersistedCounts,
  ) {}

  /** Counts that were upper bounds (the table was not built yet); they are neither cached nor persisted. */
  get provisional(): number {
    return this.counter.provisional ?? 0;
  }

  /** Count exactly from now on (docs/behaviour.md#cold-start): a compaction or a limit decision is next. */
  settle(): void {
    this.counter.settle?.();
  }

  /**
   * The persisted count of `key` at this length, else `measure()`; an exact result is persisted. `exact` is false
   * when the counter gave an upper bound, which must not be remembered as the entry's count.
   */
  #counted(key: string, chars: number, measure: () => number): { readonly tokens: number; readonly exact: boolean } {
    const stored = this.persisted?.get(key, chars);
    if (stored !== undefined) return { tokens: stored, exact: true };
    const before = this.provisional;
    const tokens = measure();
    const exact = this.provisional === before;
    if (exact) this.persisted?.put(key, chars, tokens);
    return { tokens, exact };
  }

  /**
   * Tokens the entry adds to the model input as a message (framing, role, content, tool calls, images).
   * Entries that are not messages (capsules, checkpoints, system updates...) add 0 here; see tokensOfCapsule.
   */
  tokensOf(entry: Entry): number {
    if (entry.type === 'assistant') {
      const hit = this.#messages.get(entry.id);
      if (hit !== undefined) return hit;
    }
    const m = toModelMessage(entry);
    return m === undefined ? 0 : this.tokensOfMessage(m);
  }

  /**
   * Cached by entry id when the message has one. A tool result is also checked against the content length it
   * was counted at, because level ≥ 2 compaction sends a truncated copy of the same entry (docs/behaviour.md#cut) which must not
   * reuse the full count. An entry has only those two forms, so two slots per id are enough.
   */
  tokensOfMessage(m: ModelMessage): number {
    const id = m.entryId;
    // Messages no entry holds (a synthetic result for an interrupted call, a batch's images) are few: keyed by content.
    if (id === undefined) return this.#counted(textKey(JSON.stringify(m)), messageChars(m), () => countMessage(this.counter, m)).tokens;
    if (m.role !== 'tool') {
      // A user message with images has a second form once a compaction passed it (placeholders instead of images).
      const key = m.role === 'user' && m.images === undefined && m.content.includes('left the model input at a compaction') ? `${id}#placeholders` : id;
      const hit = this.#messages.get(key);
      if (hit !== undefined) return hit;
      const n = this.#counted(key, messageChars(m), () => countMessage(this.counter, m));
      if (n.exact) this.#messages.set(key, n.tokens);
      return n.tokens;
    }
    const len = m.content.length;
    const first = this.#toolResults.get(id);
    if (first !== undefined && first.length === len) return first.tokens;
    const other = this.#otherFormToolResults.get(id);
    if (other !== undefined && other.length === len) return other.tokens;
    const { tokens, exact } = this.#counted(id, messageChars(m), () => countMessage(this.counter, m));
    if (exact) (first === undefined ? this.#toolResults : this.#otherFormToolResults).set(id, { length: len, tokens });
    return tokens;
  }

  /** The capsule as it enters the input: the pair user:"What did we do so far?" / assistant:<summary>. */
  tokensOfCapsule(capsule: CapsuleEntry): number {
    const hit = this.#capsules.get(capsule.id);
    if (hit !== undefined) return hit;
    const n = this.#counted(`c:${capsule.id}`, capsule.summary.length, () => this.capsulePair(capsule.summary));
    if (n.exact) this.#capsules.set(capsule.id, n.tokens);
    return n.tokens;
  }

  /** The same pair for a summary that is not (yet) an entry, e.g. a candidate capsule being measured. */
  capsulePair(summary: string): number {
    if (this.#lastPair?.summary === summary) return this.#lastPair.tokens;
    const before = this.provisional;
    const tokens = 2 * (MESSAGE_OVERHEAD + ROLE_TOKENS) + countText(this.counter, CAPSULE_QUESTION) + countText(this.counter, summary);
    if (this.provisional === before) this.#lastPair = { summary, tokens };
    return tokens;
  }

  /** Plain text (system prompt, serialized tools), memoized by value for the few that recur. */
  tokensOfText(text: string): number {
    const hit = this.#texts.get(text);
    if (hit !== undefined) return hit;
    const { tokens: n, exact } = this.#counted(textKey(text), text.length, () => countText(this.counter, text));
    if (!exact) return n;
    if (this.#texts.size >= MAX_CACHED_TEXTS) {
      const oldest = this.#texts.keys().next();
      if (oldest.done !== true) this.#texts.delete(oldest.value);
    }
    this.#texts.set(text, n);
    return n;
  }

  /**
   * The same count, exact even before the tokenizer's table is built (docs/behaviour.md#cold-start): for figures the
   * user is shown and warned by, such as the instruction files' share of the window. Persisted like any other.
   */
  exactTokensOfText(text: string): number {
    const hit = this.#texts.get(text);
    if (hit !== undefined) return hit;
    const exact = this.counter.exact ?? this.counter;
    const n = this.#counted(textKey(text), text.length, () => countText(exact, text)).tokens;
    this.#texts.set(text, n);
    return n;
  }

  /** Number of cached message counts (for diagnostics and benchmarks). */
  get size(): number {
    return this.#messages.size + this.#toolResults.size + this.#otherFormToolResults.size;
  }
}

/** The length of everything countMessage reads: a persisted count is only trusted for a message of the same length. */
function messageChars(m: ModelMessage): number {
  let n = m.content.length;
  switch (m.role) {
    case 'user':
      n += m.images?.length ?? 0;
      break;
    case 'assistant':
      n += m.reasoningContent?.length ?? 0;
      for (const call of m.toolCalls ?? []) n += call.id.length + call.name.length + call.arguments.length;
      break;
    case 'tool':
      n += m.toolCallId.length;
      break;
  }
  return n;
}
