// Asks the model for a capsule (docs/behaviour.md#capsule): the cache-friendly request, bounded when it would overflow, one bounded retry on overflow.
import type { ChatModel, ChatRequest, ChatStreamEvent, Clock, ToolSchema } from '../ports.js';
import type { EntryTokenCache } from '../tokens/entryCache.js';
import { estimateRequest } from '../tokens/estimate.js';
import type { ModelMessage } from '../transcript/modelInput.js';
import type { Usage } from '../transcript/schema.js';
import { describeFailure, summarize } from './summarizer.js';
import { parseCapsuleSections, SECTION_NAMES } from './capsuleFormat.js';
import { boundSummaryMessages, buildSummaryMessages, summaryWordsFor } from './summaryPrompt.js';

/** Capsules are ~2–10k tokens; the ledger is appended by code, so the model's part needs less. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 8192;
/** After the provider reports an overflow our estimate undercounted: retry at this share of what was sent. */
const OVERFLOW_RETRY_SHARE = 0.7;
/** Below this much time left, a second (bounded) request is not worth starting. */
const MIN_RETRY_MS = 500;
/** About what a full capsule answer streams, for the progress figure only. */
const EXPECTED_ANSWER_CHARS = 12_000;

interface BoundInfo {
  readonly truncatedResults: number;
  readonly omittedResults: number;
  readonly droppedMessages: number;
}

interface Sent {
  /** Messages of the last request actually sent (or attempted); [] when no model was asked. */
  readonly sent: readonly ModelMessage[];
  readonly attempts: number;
  readonly bounded?: BoundInfo;
}

export type SummaryAttempt =
  | (Sent & { readonly kind: 'text'; readonly text: string; readonly usage?: Usage })
  /** Cut off (`finish_reason: length`) or without any section even after the tighter retry: merged into the fallback. */
  | (Sent & { readonly kind: 'partial'; readonly text: string; readonly reason: string; readonly usage?: Usage })
  | (Sent & { readonly kind: 'failed'; readonly reason: string })
  | (Sent & { readonly kind: 'cancelled' });

/** Summary requests already sent in this turn, by their exact content: an identical request is never sent twice. */
export type SummaryMemo = Map<string, SummaryAttempt>;

export interface GenerateArgs {
  /** undefined: no summarizer (CLI `--fallback`); the caller builds the deterministic capsule. */
  readonly model: ChatModel | undefined;
  readonly system: string;
  readonly tools: readonly ToolSchema[];
  /** The exact message list the model last received (buildModelInput of the current branch). */
  readonly lastSent: readonly ModelMessage[];
  /** The compaction instruction asking for about this many words (derived from the request's max_tokens). */
  readonly instruction: (words: number) => string;
  readonly cache: EntryTokenCache;
  /**
   * No summary request above this many effective tokens is sent: what the provider accepts (window − the summary's
   * output budget), not the agent's hard limit, so the cached prefix survives whenever the full request fits.
   */
  readonly hardLimit: number;
  readonly maxOutputTokens: number;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** 0..1 within the summarizing phase; never goes backwards. */
  readonly onProgress?: (fraction: number) => void;
  /** The turn's earlier summary requests; escalation often rebuilds the very same one. */
  readonly memo?: SummaryMemo;
}

/** Streams through unchanged while counting answer characters for the progress figure. */
function tapped(model: ChatModel, onChars: (n: number) => void): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent> {
      const inner = model.chat(request, signal);
      return (async function* (): AsyncGenerator<ChatStreamEvent> {
        for await (const ev of inner) {
          if (ev.type === 'text') onChars(ev.delta.length);
          yield ev;
        }
      })();
    },
  };
}

/**
 * Share of the summarizing phase done: each retry starts halfway to the end, and an answer streaming in
 * advances its attempt up to 80% of what is left. The phase's 100% is reached when the answer is complete.
 */
function progressOf(failedAttempts: number, answerChars: number): number {
  const streamed = Math.min(1, answerChars / EXPECTED_ANSWER_CHARS);
  return 1 - 0.5 ** failedAttempts * (1 - 0.8 * streamed);
}

/** Token budget for the messages of a request whose total (system + tools + priming, with the margin) must stay ≤ hardLimit. */
function messageBudget(args: GenerateArgs): number {
  const frame = estimateRequest({ system: args.system, messages: [], entryIds: [] }, args.tools, args.cache, 0).raw;
  return Math.floor((args.hardLimit * 100) / 105) - frame;
}

/** Reasoning is not the summary: `<think>…</think>` blocks (and an unclosed leading one) are dropped. */
export function withoutReasoning(text: string): string {
  const closed = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const open = closed.search(/<think>/i);
  return (open >= 0 ? closed.slice(0, open) : closed).trim();
}

/**
 * Why an answer is worth one tighter retry: cut off at the output limit, or without any recognizable section.
 * An answer with some sections is used as it is (missing ones are filled from the ledger, quality `partial`):
 * real models omit empty sections and rename headings, and asking again rarely changes that.
 */
function qualityProblem(text: string, finishReason: string | undefined): string | undefined {
  if (finishReason === 'length') return 'the summary was cut off at its output limit (finish_reason: length)';
  const { missing } = parseCapsuleSections(text);
  if (missing.length === SECTION_NAMES.length) return 'the summary has none of the required sections';
  return undefined;
}

export async function generateSummary(args: GenerateArgs): Promise<SummaryAttempt> {
  if (args.model === undefined) {
    return { kind: 'failed', reason: 'no summarizer model: the deterministic fallback was requested', sent: [], attempts: 0 };
  }
  const started = args.clock.now();
  const tokensOf = (m: ModelMessage): number => args.cache.tokensOfMessage(m);
  const maxTokens = Math.max(1, Math.min(args.maxOutputTokens, SUMMARY_MAX_OUTPUT_TOKENS));
  let words = summaryWordsFor(maxTokens);
  let full = buildSummaryMessages(args.lastSent, args.instruction(words));
  const budget = messageBudget(args);
  const fullTokens = full.reduce((n, m) => n + tokensOf(m), 0);

  let messages: readonly ModelMessage[] = full;
  let bounded: BoundInfo | undefined;
  let sentTokens = fullTokens;
  const bound = (limit: number): boolean => {
    const b = boundSummaryMessages(full, tokensOf, limit);
    messages = b.messages;
    sentTokens = b.tokens;
    bounded = { truncatedResults: b.truncatedResults, omittedResults: b.omittedResults, droppedMessages: b.droppedMessages };
    return b.fits;
  };
  // The unchanged prefix is what makes the request cheap; only a request that cannot fit loses it.
  if (fullTokens > budget && !bound(budget)) {
    return {
      kind: 'failed',
      reason: `the summary request cannot fit the ${args.hardLimit}-token limit even when bounded`,
      sent: [],
      attempts: 0,
      ...(bounded ? { bounded } : {}),
    };
  }

  let attempts = 0;
  let fraction = 0;
  let chars = 0;
  let round = 0;
  const report = (f: number): void => {
    if (f <= fraction) return;
    fraction = f;
    args.onProgress?.(f);
  };
  const model = tapped(args.model, (n) => {
    chars += n;
    report(progressOf(round, chars));
  });

  let tightened = false;
  for (let pass = 0; pass < 2; pass++) {
    const left = args.timeoutMs - (args.clock.now() - started);
    const request: ChatRequest = {
      system: args.system,
      messages,
      tools: args.tools,
      toolChoice: 'none',
      maxOutputTokens: maxTokens,
      stream: false,
    };
    const key = args.memo === undefined ? undefined : JSON.stringify([args.model.provider, args.model.model, request]);
    const seen = key === undefined ? undefined : args.memo?.get(key);
    if (seen !== undefined && seen.kind !== 'cancelled') {
      // The same bytes would get the same answer (or the same failure): reuse it instead of paying for it again.
      if (seen.kind === 'text' || seen.kind === 'partial') return { ...seen, attempts };
      return { ...seen, reason: `${seen.reason} (this exact summary request already failed in this turn, so it was not sent again)`, attempts };
    }
    const result = await summarize({
      model,
      request,
      timeoutMs: Math.max(1, left),
      clock: args.clock,
      signal: args.signal,
      onAttempt: (n) => {
        round = attempts + n - 1;
        chars = 0;
        report(progressOf(round, 0));
      },
    });
    attempts += result.attempts;
    const sent = { sent: messages, attempts, ...(bounded ? { bounded } : {}) };
    const remember = (a: SummaryAttempt): SummaryAttempt => {
      if (key !== undefined) args.memo?.set(key, a);
      return a;
    };
    if (result.ok) {
      const text = withoutReasoning(result.text);
      const problem = qualityProblem(text, result.finishReason);
      const usage = result.usage ? { usage: result.usage } : {};
      if (problem === undefined) return remember({ kind: 'text', text, ...usage, ...sent });
      const remainingMs = args.timeoutMs - (args.clock.now() - started);
      if (tightened || remainingMs < MIN_RETRY_MS) return remember({ kind: 'partial', text, reason: problem, ...usage, ...sent });
      // One tighter retry: half the words, same prefix (only the instruction at the end changes).
      tightened = true;
      words = Math.max(100, Math.floor(words / 2));
      full = buildSummaryMessages(args.lastSent, args.instruction(words));
      if (bounded === undefined) {
        messages = full;
        sentTokens = full.reduce((n, m) => n + tokensOf(m), 0);
      } else if (!bound(budget)) return remember({ kind: 'partial', text, reason: problem, ...usage, ...sent });
      pass -= 1; // the quality retry does not use up the overflow retry
      continue;
    }
    if (result.reason === 'cancelled') return { kind: 'cancelled', ...sent };
    const remaining = args.timeoutMs - (args.clock.now() - started);
    if (result.reason !== 'overflow' || pass > 0 || remaining < MIN_RETRY_MS) return remember({ kind: 'failed', reason: describeFailure(result), ...sent });
    // The provider counted more than we did: shrink well below what was refused and try once more.
    if (!bound(Math.floor(Math.min(sentTokens, budget) * OVERFLOW_RETRY_SHARE))) {
      return { kind: 'failed', reason: `${describeFailure(result)}; a bounded retry cannot fit`, sent: messages, attempts, ...(bounded ? { bounded } : {}) };
    }
  }
  return { kind: 'failed', reason: 'the summary request overflowed twice', sent: messages, attempts, ...(bounded ? { bounded } : {}) };
}
