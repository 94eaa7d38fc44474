// Asks the model for the capsule text (docs/behaviour.md#capsule): retries transient faults only, per-attempt + overall deadlines, fallback hook.
import { classifyError, type FaultInfo } from '../provider/faults.js';
import type { ChatModel, ChatRequest, Clock } from '../ports.js';
import type { Usage } from '../transcript/schema.js';

/** docs/behaviour.md#capsule: "at most 4 network attempts"; a larger maxAttempts is clamped to this. */
const MAX_SUMMARY_ATTEMPTS = 4;

export interface SummarizeArgs {
  readonly model: ChatModel;
  /** Sent non-streaming with toolChoice 'none' whatever it says: the summarizer must not start new work. */
  readonly request: ChatRequest;
  /** Overall deadline for the whole call, backoff included. */
  readonly timeoutMs: number;
  /** Per-attempt deadline; defaults to timeoutMs, i.e. one slow attempt may use everything that is left. */
  readonly attemptTimeoutMs?: number;
  readonly clock: Clock;
  /** The turn's cancellation: ends the call at once with `cancelled`. */
  readonly signal: AbortSignal;
  readonly maxAttempts?: number;
  /** Called before attempt n (1-based) with the fault that ended attempt n-1; for progress and flight records. */
  readonly onAttempt?: (n: number, err?: FaultInfo) => void;
}

type SummaryFailureReason = 'timeout' | 'provider_error' | 'empty' | 'overflow';

interface SummaryOk {
  readonly ok: true;
  /** The answer, trimmed. */
  readonly text: string;
  readonly attempts: number;
  readonly usage?: Usage;
  readonly finishReason?: string;
}
export interface SummaryFailed {
  readonly ok: false;
  readonly reason: SummaryFailureReason;
  readonly detail: string;
  readonly attempts: number;
  /** The last fault seen, when the failure came from the provider. */
  readonly fault?: FaultInfo;
}
export interface SummaryCancelled {
  readonly ok: false;
  readonly reason: 'cancelled';
  readonly attempts: number;
}
export type SummarizeResult = SummaryOk | SummaryFailed | SummaryCancelled;

/** Exponential backoff without jitter: one client retrying one request gains nothing from jitter, tests gain determinism. */
export function backoffDelayMs(failedAttempt: number): number {
  return Math.min(8000, 500 * 2 ** Math.max(0, failedAttempt - 1));
}

type AttemptOutcome =
  | { readonly kind: 'ok'; readonly text: string; readonly usage?: Usage; readonly finishReason?: string }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'deadline' }
  | { readonly kind: 'aborted' };

/**
 * Never throws and never outlives `timeoutMs` (plus a timer tick), even when the model ignores its abort signal.
 * Deadlines are wall-clock timers rather than clock.sleep, so a test clock whose sleep resolves at once cannot
 * expire them; clock.now() measures the remaining budget and clock.sleep paces the backoff.
 * An empty answer is not retried: it is usually the model's deterministic reply to this input (a refusal, or the
 * output budget spent on reasoning), and the caller's fallback capsule is better than spending the budget again.
 */
export async function summarize(args: SummarizeArgs): Promise<SummarizeResult> {
  if (args.signal.aborted) return { ok: false, reason: 'cancelled', attempts: 0 };
  const { clock, timeoutMs } = args;
  const maxAttempts = Math.max(1, Math.min(MAX_SUMMARY_ATTEMPTS, Math.floor(args.maxAttempts ?? MAX_SUMMARY_ATTEMPTS)));
  const attemptTimeoutMs = args.attemptTimeoutMs ?? timeoutMs;
  const request: ChatRequest = { ...args.request, stream: false, toolChoice: 'none' };
  const started = clock.now();
  const remaining = (): number => timeoutMs - (clock.now() - started);

  const overall = new AbortController();
  let overallCause: 'cancelled' | 'timeout' | undefined;
  const stopOverall = startTimer(timeoutMs, () => {
    overallCause ??= 'timeout';
    overall.abort();
  });
  const unlinkOuter = onAbort(args.signal, () => {
    overallCause ??= 'cancelled';
    overall.abort();
  });

  let attempts = 0;
  let fault: FaultInfo | undefined;
  let lastWasDeadline = false;
  const ended = (): SummarizeResult =>
    overallCause === 'cancelled' || args.signal.aborted
      ? { ok: false, reason: 'cancelled', attempts }
      : {
          ok: false,
          reason: 'timeout',
          detail: `no summary within ${timeoutMs} ms${fault ? ` (last fault: ${fault.message})` : ''}`,
          attempts,
          ...faultField(fault),
        };

  try {
    while (attempts < maxAttempts) {
      if (overall.signal.aborted) return ended();
      const left = remaining();
      if (left <= 0) return ended();
      attempts += 1;
      notify(args.onAttempt, attempts, fault);
      if (overall.signal.aborted) return ended();

      const limitMs = Math.min(attemptTimeoutMs, left);
      const outcome = await runAttempt(args.model, request, overall.signal, limitMs);
      if (args.signal.aborted) return ended();
      // An answer that lands as the overall deadline fires is still used; anything else ends here.
      if (outcome.kind !== 'ok' && overallCause !== undefined) return ended();

      if (outcome.kind === 'ok') {
        const text = outcome.text.trim();
        if (text === '') {
          const why = outcome.finishReason ? ` (finish_reason: ${outcome.finishReason})` : '';
          return { ok: false, reason: 'empty', detail: `the model returned no summary text${why}`, attempts };
        }
        return {
          ok: true,
          text,
          attempts,
          ...(outcome.usage ? { usage: outcome.usage } : {}),
          ...(outcome.finishReason ? { finishReason: outcome.finishReason } : {}),
        };
      }
      lastWasDeadline = outcome.kind === 'deadline';
      if (outcome.kind === 'deadline') fault = { kind: 'transient', message: `attempt ${attempts} got no answer within ${limitMs} ms` };
      else if (outcome.kind === 'aborted') fault = { kind: 'transient', message: `attempt ${attempts} was aborted` };
      else {
        const f = classifyError(outcome.error, clock.now());
        // An abort we did not ask for (a proxy or SDK timeout surfacing as AbortError) is worth another attempt.
        fault = f.kind === 'abort' ? { ...f, kind: 'transient' } : f;
        if (fault.kind === 'overflow') return { ok: false, reason: 'overflow', detail: fault.message, attempts, fault };
        if (fault.kind === 'fatal') return { ok: false, reason: 'provider_error', detail: fault.message, attempts, fault };
      }
      if (attempts >= maxAttempts) break;

      const waitMs = fault.retryAfterMs ?? backoffDelayMs(attempts);
      const budget = remaining();
      if (waitMs >= budget) {
        const asked = fault.retryAfterMs !== undefined ? `the provider asked to retry after ${Math.round(waitMs)} ms` : `backoff of ${waitMs} ms`;
        return exhausted(fault, lastWasDeadline, attempts, `${asked}, but only ${Math.max(0, Math.round(budget))} ms of the ${timeoutMs} ms budget remain`);
      }
      if (!(await sleepUnlessAborted(clock, waitMs, overall.signal))) return ended();
    }
    return exhausted(fault, lastWasDeadline, attempts, `gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}`);
  } finally {
    stopOverall();
    unlinkOuter();
  }
}

/** Attempts ran out: when the last one hit its deadline it reads as a timeout, otherwise as the provider failing. */
function exhausted(fault: FaultInfo | undefined, timedOut: boolean, attempts: number, why: string): SummaryFailed {
  const last = fault?.message ?? 'unknown fault';
  return { ok: false, reason: timedOut ? 'timeout' : 'provider_error', detail: `${why}; last: ${last}`, attempts, ...faultField(fault) };
}

function faultField(fault: FaultInfo | undefined): { fault?: FaultInfo } {
  return fault === undefined ? {} : { fault };
}

function notify(cb: SummarizeArgs['onAttempt'], n: number, fault: FaultInfo | undefined): void {
  if (cb === undefined) return;
  try {
    cb(n, fault);
  } catch {
    // a progress callback must never break summarization
  }
}

/** One model call under its own controller, linked to the overall one, raced against both so a stuck stream cannot hold us. */
async function runAttempt(model: ChatModel, request: ChatRequest, parent: AbortSignal, limitMs: number): Promise<AttemptOutcome> {
  const ctrl = new AbortController();
  let deadlineHit = false;
  const unlink = onAbort(parent, () => ctrl.abort());
  const stop = startTimer(limitMs, () => {
    deadlineHit = true;
    ctrl.abort();
  });
  const aborted = whenAborted(ctrl.signal);
  try {
    if (ctrl.signal.aborted) return { kind: 'aborted' };
    const work: Promise<AttemptOutcome> = collect(model, request, ctrl.signal).then(
      (ok) => ok,
      (error: unknown) => ({ kind: 'error', error }),
    );
    const outcome = await Promise.race([work, aborted.promise.then((): AttemptOutcome => ({ kind: 'aborted' }))]);
    // An error thrown because we aborted is the abort, not a provider fault.
    if (outcome.kind !== 'ok' && ctrl.signal.aborted) return deadlineHit && !parent.aborted ? { kind: 'deadline' } : { kind: 'aborted' };
    return outcome;
  } finally {
    stop();
    unlink();
    aborted.dispose();
  }
}

async function collect(model: ChatModel, request: ChatRequest, signal: AbortSignal): Promise<AttemptOutcome> {
  let text = '';
  let usage: Usage | undefined;
  let finishReason: string | undefined;
  for await (const ev of model.chat(request, signal)) {
    switch (ev.type) {
      case 'text':
        text += ev.delta;
        break;
      case 'usage':
        usage = ev.usage;
        break;
      case 'done':
        finishReason = ev.finishReason;
        break;
      case 'tool_call':
        break; // toolChoice 'none': a provider that still proposes a call gets it ignored
    }
  }
  return { kind: 'ok', text, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) };
}

/** Backoff through the Clock port, but raced with the abort in case a clock ignores the signal. False when aborted. */
async function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  const aborted = whenAborted(signal);
  try {
    const slept = clock.sleep(ms, signal).then(
      () => true,
      () => false,
    );
    return (await Promise.race([slept, aborted.promise.then(() => false)])) && !signal.aborted;
  } finally {
    aborted.dispose();
  }
}

function startTimer(ms: number, fire: () => void): () => void {
  const handle = setTimeout(fire, Math.max(0, ms));
  return () => clearTimeout(handle);
}

/** Runs `fn` when the signal aborts (at once if it already has); returns the unsubscribe. */
function onAbort(signal: AbortSignal, fn: () => void): () => void {
  if (signal.aborted) {
    fn();
    return () => undefined;
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}

function whenAborted(signal: AbortSignal): { readonly promise: Promise<void>; readonly dispose: () => void } {
  let dispose: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    dispose = onAbort(signal, () => resolve());
  });
  return { promise, dispose };
}

// ---- fallback ---------------------------------------------------------------------------------------------

export interface CapsuleText {
  readonly ok: true;
  readonly text: string;
  readonly quality: 'full' | 'partial' | 'degraded';
  /** Why the deterministic fallback was used; shown in the UI and the flight record. */
  readonly fallbackReason?: string;
  readonly attempts: number;
  readonly usage?: Usage;
}

/** A one-line reason for a failed summary, e.g. "timeout: no summary within 15000 ms". */
export function describeFailure(result: SummaryFailed): string {
  return `${result.reason}: ${result.detail}`;
}

/**
 * Turns any non-cancelled result into capsule text: the model's answer (`full`) or the caller's deterministic
 * fallback (`degraded`), so compaction always completes. A cancelled turn stays cancelled: no capsule at all.
 * On `overflow` the caller is expected to bound the request and summarize again before settling for this.
 */
export function withFallback(result: SummarizeResult, buildFallback: (reason: string) => string): CapsuleText | SummaryCancelled {
  if (result.ok) return { ok: true, text: result.text, quality: 'full', attempts: result.attempts, ...(result.usage ? { usage: result.usage } : {}) };
  if (result.reason === 'cancelled') return result;
  const fallbackReason = describeFailure(result);
  return { ok: true, text: buildFallback(fallbackReason), quality: 'degraded', fallbackReason, attempts: result.attempts };
}
