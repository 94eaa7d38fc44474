// One streamed model request of a turn (docs/behaviour.md#agent): deltas out as they arrive, transient faults retried while nothing was streamed, a stall timeout.
import { backoffDelayMs } from '../compaction/summarizer.js';
import type { ChatModel, ChatRequest, ChatStreamEvent, Clock } from '../ports.js';
import type { ToolCall, Usage } from '../transcript/schema.js';
import { classifyError, type FaultInfo } from '../provider/faults.js';

/** Like the summarizer (docs/behaviour.md#capsule): at most 4 network attempts for one request. */
export const MAX_CHAT_ATTEMPTS = 4;
/** Stands in for a tool name the model left empty, so the call is recorded, answered with an error and corrected. */
export const MISSING_TOOL_NAME = 'missing_tool_name';

/** A provider asking us to wait longer than this is treated as down: the user is better told than kept waiting. */
const MAX_RETRY_WAIT_MS = 60_000;
/** No stream event for this long ends the attempt (a hung connection, a stalled stream). */
export const DEFAULT_STALL_TIMEOUT_MS = 300_000;
/** All attempts of one request together stop after this long: a provider that accepts and never answers cannot hold a turn for attempts × stall. */
export const DEFAULT_REQUEST_DEADLINE_MS = 600_000;
/** Silence this long before the first event tells the user how long Capsule keeps waiting. */
const WAIT_NOTICE_MS = 15_000;

interface Reply {
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: Usage;
  readonly finishReason: string;
}

/** What was received before a request ended without a complete reply. */
export interface PartialReply {
  readonly content: string;
  /** Any text or tool call arrived, so a retry would show the user a second answer. */
  readonly streamed: boolean;
}

export type CallOutcome =
  | { readonly kind: 'ok'; readonly reply: Reply; readonly attempts: number }
  | { readonly kind: 'cancelled'; readonly partial: PartialReply }
  | { readonly kind: 'overflow'; readonly fault: FaultInfo; readonly partial: PartialReply }
  | { readonly kind: 'failed'; readonly message: string; readonly fault?: FaultInfo; readonly partial: PartialReply };

export interface CallArgs {
  readonly model: ChatModel;
  readonly request: ChatRequest;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly maxAttempts?: number;
  readonly stallTimeoutMs?: number;
  /** Overall limit for every attempt and wait of this request together. */
  readonly deadlineMs?: number;
  readonly onDelta: (delta: string) => void;
  /** Called once per attempt when nothing has arrived for WAIT_NOTICE_MS, with how long Capsule still waits. */
  readonly onWaiting?: (remainingMs: number, attempt: number) => void;
  /** Default WAIT_NOTICE_MS. */
  readonly waitNoticeMs?: number;
  /** Before a retry: the fault, the attempt about to start (2…) and the wait. */
  readonly onRetry?: (fault: FaultInfo, nextAttempt: number, waitMs: number) => void;
}

type Attempt =
  | { readonly kind: 'ok'; readonly reply: Reply }
  | { readonly kind: 'error'; readonly error: unknown; readonly partial: PartialReply }
  | { readonly kind: 'stalled'; readonly partial: PartialReply }
  | { readonly kind: 'cancelled'; readonly partial: PartialReply };

/**
 * Sends the request, retrying transient faults (network, timeout, 408/425/429, 5xx) with backoff only while
 * nothing was streamed: once the user saw text, a second answer would contradict the first. Overflow is
 * returned to the caller, which owns the docs/behaviour.md#overflow recovery; it is never retried here.
 */
export async function callModel(args: CallArgs): Promise<CallOutcome> {
  const maxAttempts = Math.max(1, Math.min(MAX_CHAT_ATTEMPTS, args.maxAttempts ?? MAX_CHAT_ATTEMPTS));
  const stallMs = args.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const deadlineMs = args.deadlineMs ?? DEFAULT_REQUEST_DEADLINE_MS;
  const started = args.clock.now();
  const left = (): number => deadlineMs - (args.clock.now() - started);
  const overDeadline = (partial: PartialReply): CallOutcome => ({
    kind: 'failed',
    message: `The model did not answer within ${Math.round(deadlineMs / 1000)} s (the limit for one request, all attempts together).`,
    ...(fault === undefined ? {} : { fault }),
    partial,
  });
  let fault: FaultInfo | undefined;
  for (let attempt = 1; ; attempt++) {
    const budget = Math.min(stallMs, Math.max(1, left()));
    const r = await runAttempt(args, budget, attempt, left);
    if (r.kind === 'ok') return { kind: 'ok', reply: r.reply, attempts: attempt };
    if (r.kind === 'cancelled' || args.signal.aborted) return { kind: 'cancelled', partial: r.partial };
    const partial = r.partial;
    if (r.kind === 'stalled') {
      fault = { kind: 'transient', message: `no response from the model for ${Math.round(budget / 1000)} s` };
      if (left() <= 0) return overDeadline(partial);
    } else {
      const f = classifyError(r.error, args.clock.now());
      // An abort nobody asked for (a proxy or client timeout) is a network failure, worth another attempt.
      fault = f.kind === 'abort' ? { ...f, kind: 'transient' } : f;
    }
    if (fault.kind === 'overflow') return { kind: 'overflow', fault, partial };
    if (fault.kind === 'fatal') return { kind: 'failed', message: `The model request failed: ${fault.message}`, fault, partial };
    if (partial.streamed) return { kind: 'failed', message: `The model's answer broke off: ${fault.message}`, fault, partial };
    if (attempt >= maxAttempts) {
      return { kind: 'failed', message: `The model request failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${fault.message}`, fault, partial };
    }
    const waitMs = fault.retryAfterMs ?? backoffDelayMs(attempt);
    if (waitMs > MAX_RETRY_WAIT_MS) {
      return { kind: 'failed', message: `The provider asked to retry after ${Math.ceil(waitMs / 1000)} s: ${fault.message}`, fault, partial };
    }
    if (waitMs >= left()) return overDeadline(partial);
    args.onRetry?.(fault, attempt + 1, waitMs);
    try {
      await args.clock.sleep(waitMs, args.signal);
    } catch {
      return { kind: 'cancelled', partial };
    }
    if (args.signal.aborted) return { kind: 'cancelled', partial };
  }
}

/** One attempt under its own controller, so a stall can end it without cancelling the turn. */
async function runAttempt(args: CallArgs, stallMs: number, attempt: number, left: () => number): Promise<Attempt> {
  const ctrl = new AbortController();
  let stalled = false;
  let content = '';
  let streamed = false;
  const toolCalls: ToolCall[] = [];
  let usage: Usage | undefined;
  let finishReason: string | undefined;
  const partial = (): PartialReply => ({ content, streamed });

  const onParentAbort = (): void => ctrl.abort();
  if (args.signal.aborted) return { kind: 'cancelled', partial: partial() };
  args.signal.addEventListener('abort', onParentAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      ctrl.abort();
    }, stallMs);
  };
  // A model that ignores its signal must not hold the turn: every wait races the abort.
  let wake: () => void = () => undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    wake = () => resolve('aborted');
    ctrl.signal.addEventListener('abort', wake, { once: true });
  });
  const iterator = args.model.chat(args.request, ctrl.signal)[Symbol.asyncIterator]();
  const onWaiting = args.onWaiting;
  const waitNotice = onWaiting === undefined ? undefined : setTimeout(() => onWaiting(Math.max(0, left()), attempt), args.waitNoticeMs ?? WAIT_NOTICE_MS);
  try {
    arm();
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted') break;
      if (next.done === true) break;
      clearTimeout(waitNotice);
      arm();
      const ev: ChatStreamEvent = next.value;
      switch (ev.type) {
        case 'text':
          if (ev.delta === '') break;
          content += ev.delta;
          streamed = true;
          args.onDelta(ev.delta);
          break;
        case 'tool_call':
          toolCalls.push({ id: ev.call.id, name: ev.call.name.trim() === '' ? MISSING_TOOL_NAME : ev.call.name, arguments: ev.call.arguments });
          streamed = true;
          break;
        case 'usage':
          usage = ev.usage;
          break;
        case 'done':
          finishReason = ev.finishReason;
          break;
      }
    }
  } catch (error) {
    if (args.signal.aborted) return { kind: 'cancelled', partial: partial() };
    if (stalled) return { kind: 'stalled', partial: partial() };
    return { kind: 'error', error, partial: partial() };
  } finally {
    clearTimeout(waitNotice);
    if (timer !== undefined) clearTimeout(timer);
    args.signal.removeEventListener('abort', onParentAbort);
    ctrl.signal.removeEventListener('abort', wake);
    if (ctrl.signal.aborted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  if (args.signal.aborted) return { kind: 'cancelled', partial: partial() };
  if (stalled) return { kind: 'stalled', partial: partial() };
  return { kind: 'ok', reply: { content, toolCalls, ...(usage ? { usage } : {}), finishReason: finishReason ?? 'stop' } };
}
