// One step of a turn: a model request, its assistant entry and cache line, and the docs/behaviour.md#overflow overflow recovery (one compaction, one resend).
import type { PreflightResult } from '../compaction/barrier.js';
import { DEFAULT_MAX_REQUESTS_PER_TURN } from '../config.js';
import type { ChatRequest, Clock, Logger } from '../ports.js';
import type { AssistantEntry } from '../transcript/schema.js';
import type { AgentEvent, CacheMetrics, TurnStatus } from './agentEvents.js';
import { cacheMetricsOf } from './cacheEpoch.js';
import type { FaultInfo } from '../provider/faults.js';
import { turnFaultOf, type TurnFault } from '../provider/turnFault.js';
import { callModel, DEFAULT_REQUEST_DEADLINE_MS, DEFAULT_STALL_TIMEOUT_MS, MAX_CHAT_ATTEMPTS, type PartialReply } from './modelCall.js';
import type { AgentModel } from './modelSwitch.js';

export interface AgentOptions {
  /** No stream event for this long ends a request attempt as a transient fault. */
  readonly stallTimeoutMs: number;
  /** Every attempt and retry wait of one model request together end after this long. */
  readonly requestDeadlineMs: number;
  /** Network attempts per model request (docs/behaviour.md#agent: at most 4). */
  readonly maxAttempts: number;
  /** A runaway tool loop ends the turn after this many model requests. */
  readonly maxRequestsPerTurn: number;
}

export const DEFAULT_AGENT_OPTIONS: AgentOptions = {
  stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS,
  requestDeadlineMs: DEFAULT_REQUEST_DEADLINE_MS,
  maxAttempts: MAX_CHAT_ATTEMPTS,
  maxRequestsPerTurn: DEFAULT_MAX_REQUESTS_PER_TURN,
};

export interface TurnState {
  readonly turnId: string;
  readonly signal: AbortSignal;
  requests: number;
  overflowRetried: boolean;
}

export type Step =
  | { readonly kind: 'tools'; readonly entry: AssistantEntry }
  | { readonly kind: 'end'; readonly status: TurnStatus; readonly error?: string; readonly answer?: string; readonly fault?: TurnFault };

export interface RequestDeps {
  readonly model: AgentModel;
  readonly options: AgentOptions;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly emit: (e: AgentEvent) => void;
  readonly append: (e: AssistantEntry) => Promise<void>;
  readonly entryBase: () => { readonly id: string; readonly parentId: string | null; readonly timestamp: string };
  /** The request exactly as the barrier measured it, with its calibration fingerprint (docs/behaviour.md#tokens). */
  readonly build: () => { readonly request: ChatRequest; readonly fingerprint: string };
  /** Adopts the window the overflow states (or shrinks the assumed one) before the recovery is planned. */
  readonly learnOverflow?: (fault: FaultInfo) => Promise<void>;
  /** barrier.recoverOverflow, opening a new cache epoch when it compacts. */
  readonly recoverOverflow: () => Promise<PreflightResult>;
  readonly epochId: () => string | undefined;
  /** Log level of the cache line (debug unless the hit rate dropped); debug when absent. */
  readonly cacheLineLevel?: (m: CacheMetrics) => 'debug' | 'info';
}

const OVERFLOW_ADVICE = 'Start a new chat, rewind to a checkpoint, or switch to a model with a larger context window.';

function blockedStatus(pre: PreflightResult, signal: AbortSignal): TurnStatus {
  return signal.aborted || pre.outcomes.some((o) => o.outcome === 'cancelled') ? 'cancelled' : 'failed';
}

/**
 * Sends the next request of the turn. A reply becomes an assistant entry (with usage and the prefix fingerprint,
 * so calibration works) and a cache line; an overflow runs the one recovery compaction and resends once — never
 * the same oversized request, and never a third request after a second overflow.
 */
export async function runRequest(d: RequestDeps, st: TurnState): Promise<Step> {
  const { turnId, signal } = st;
  for (;;) {
    if (st.requests >= d.options.maxRequestsPerTurn) {
      return {
        kind: 'end',
        status: 'failed',
        error: `The turn was stopped after ${st.requests} model requests (capsule.agent.maxRequestsPerTurn); ask again to continue, or raise the setting.`,
      };
    }
    st.requests += 1;
    const { request, fingerprint } = d.build();
    const chat = d.model.chat;
    d.emit({ type: 'assistant_start', turnId, request: st.requests });
    const out = await callModel({
      model: chat,
      request,
      signal,
      clock: d.clock,
      maxAttempts: d.options.maxAttempts,
      stallTimeoutMs: d.options.stallTimeoutMs,
      deadlineMs: d.options.requestDeadlineMs,
      onDelta: (delta) => d.emit({ type: 'text_delta', turnId, delta }),
      onWaiting: (remainingMs, attempt) => {
        const message = `Waiting for the model (attempt ${attempt} of ${d.options.maxAttempts}); Capsule gives up in ${Math.ceil(remainingMs / 1000)} s if nothing arrives.`;
        d.emit({ type: 'notice', turnId, level: 'info', message, transient: true });
      },
      onRetry: (fault, next, waitMs) => {
        const message = `The model request failed (${fault.message}); retrying in ${(waitMs / 1000).toFixed(1)} s (attempt ${next} of ${d.options.maxAttempts}).`;
        d.logger?.log('warn', message, { turnId });
        d.emit({ type: 'notice', turnId, level: 'warn', message, transient: true });
      },
    });
    if (out.kind === 'ok') {
      const r = out.reply;
      const entry: AssistantEntry = {
        ...d.entryBase(),
        type: 'assistant',
        content: r.content,
        toolCalls: [...r.toolCalls],
        model: chat.model,
        provider: chat.provider,
        ...(r.usage === undefined ? {} : { usage: r.usage }),
        prefixFingerprint: fingerprint,
        finishReason: r.finishReason,
        turnId,
      };
      await d.append(entry);
      d.emit({
        type: 'assistant_end',
        turnId,
        entryId: entry.id,
        content: r.content,
        toolCalls: entry.toolCalls,
        finishReason: r.finishReason,
        ...(r.usage ? { usage: r.usage } : {}),
      });
      // A server that reports no cache figures at all (no cached or written tokens) gets no "0 / N cached" line.
      if (r.usage !== undefined && (r.usage.cachedTokens !== undefined || r.usage.cacheWriteTokens !== undefined)) {
        const metrics = cacheMetricsOf(r.usage, d.epochId());
        d.logger?.log(d.cacheLineLevel?.(metrics) ?? 'debug', metrics.line, { turnId, cachedTokens: metrics.cachedTokens, promptTokens: metrics.promptTokens });
        d.emit({ type: 'cache_metrics', turnId, metrics });
      }
      if (entry.toolCalls.length > 0) return { kind: 'tools', entry };
      if (r.finishReason === 'length') {
        d.emit({
          type: 'notice',
          turnId,
          level: 'warn',
          message: `The answer was cut off at the output limit (${d.model.maxOutputTokens} tokens); ask the model to continue.`,
        });
      } else if (r.content.trim() === '') {
        d.emit({ type: 'notice', turnId, level: 'warn', message: `The model returned an empty answer (finish reason: ${r.finishReason}).` });
      }
      return { kind: 'end', status: 'completed', answer: r.content };
    }
    if (out.kind === 'cancelled') {
      await keepPartial(d, turnId, out.partial, 'cancelled');
      return { kind: 'end', status: 'cancelled', error: 'The turn was cancelled.' };
    }
    if (out.kind === 'failed') {
      await keepPartial(d, turnId, out.partial, 'error');
      const fault = out.fault === undefined ? undefined : turnFaultOf(out.fault, chat.endpoint);
      return { kind: 'end', status: 'failed', error: out.message, ...(fault === undefined ? {} : { fault }) };
    }
    // Overflow: what streamed before the provider gave up is regenerated, not kept.
    d.emit({ type: 'assistant_end', turnId, content: out.partial.content, toolCalls: [], finishReason: 'context_overflow', discarded: true });
    if (!st.overflowRetried) await d.learnOverflow?.(out.fault);
    const rec = await d.recoverOverflow();
    if (!rec.mayProceed) {
      const status = blockedStatus(rec, signal);
      if (status === 'cancelled') return { kind: 'end', status, error: rec.error ?? 'The turn was cancelled.' };
      const error = st.overflowRetried
        ? `The provider reported a context overflow again after this turn's recovery compaction (${out.fault.message}); the request was not resent. ${OVERFLOW_ADVICE}`
        : `Context overflow (${out.fault.message}): ${rec.error ?? 'the recovery compaction did not complete'}`;
      return { kind: 'end', status, error, fault: turnFaultOf(out.fault, chat.endpoint) };
    }
    if (!rec.outcomes.some((o) => o.outcome === 'completed')) {
      return {
        kind: 'end',
        status: 'failed',
        error: `The provider reported a context overflow (${out.fault.message}) and the recovery compaction could not make the request smaller, so it was not resent. ${OVERFLOW_ADVICE}`,
        fault: turnFaultOf(out.fault, chat.endpoint),
      };
    }
    st.overflowRetried = true;
    d.emit({
      type: 'notice',
      turnId,
      level: 'warn',
      message: 'The provider reported a context overflow; the context was compacted one level deeper and the request is sent once more.',
    });
  }
}

/** A cancelled or broken-off answer stays in the history as far as the user saw it; tool calls from it are dropped. */
async function keepPartial(d: RequestDeps, turnId: string, partial: PartialReply, finishReason: 'cancelled' | 'error'): Promise<void> {
  if (partial.content === '') {
    d.emit({ type: 'assistant_end', turnId, content: '', toolCalls: [], finishReason, discarded: true });
    return;
  }
  const chat = d.model.chat;
  const entry: AssistantEntry = {
    ...d.entryBase(),
    type: 'assistant',
    content: partial.content,
    toolCalls: [],
    model: chat.model,
    provider: chat.provider,
    finishReason,
    turnId,
  };
  await d.append(entry);
  d.emit({ type: 'assistant_end', turnId, entryId: entry.id, content: partial.content, toolCalls: [], finishReason });
}
