// What the agent tells its host (VS Code chat view, CLI) while a turn runs: one discriminated union, plain data only.
import type { BarrierEvent } from '../compaction/barrierEvents.js';
import type { Attachment } from './attachments.js';
import type { ImagePart, ToolCall, TurnFault, Usage } from '../transcript/schema.js';

export type TurnStatus = 'completed' | 'cancelled' | 'failed';

/** The prompt-cache figures of one response (docs/behaviour.md#cache-epochs); never any prompt content. */
export interface CacheMetrics {
  /** prompt_tokens as the provider reported them. */
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  /** promptTokens - cachedTokens - cacheWriteTokens, never below 0. */
  readonly uncachedTokens: number;
  /** Whole percent of the prompt read from the cache. */
  readonly hitPercent: number;
  /** Id of the `system_update` base entry that opened the current cache epoch, if any. */
  readonly epochId?: string;
  /** E.g. `Prompt cache: 12,288 / 20,512 prompt tokens cached (60%) · cache write 0 · uncached 8,224`. */
  readonly line: string;
}

export type AgentEvent =
  /** `userEntryId` is '' when the session is read-only and nothing could be appended (turn_end failed follows). */
  | { readonly type: 'turn_start'; readonly turnId: string; readonly userEntryId: string }
  /** A preflight barrier (docs/behaviour.md#barrier) event; `turnId` is undefined for compactions outside a turn (/compact, idle, model switch). */
  | { readonly type: 'barrier'; readonly turnId?: string; readonly event: BarrierEvent }
  /** A model request starts; `request` counts the requests of this turn from 1 (continuations after tool results too). */
  | { readonly type: 'assistant_start'; readonly turnId: string; readonly request: number }
  | { readonly type: 'text_delta'; readonly turnId: string; readonly delta: string }
  /**
   * The reply of one request ended. `entryId` is the assistant entry appended for it; undefined with `discarded`
   * true when the streamed text was dropped (the provider cut the answer off as an overflow, and it is regenerated).
   */
  | {
      readonly type: 'assistant_end';
      readonly turnId: string;
      readonly entryId?: string;
      readonly content: string;
      readonly toolCalls: readonly ToolCall[];
      readonly finishReason: string;
      readonly usage?: Usage;
      readonly discarded?: boolean;
    }
  | { readonly type: 'tool_start'; readonly turnId: string; readonly callId: string; readonly name: string; readonly arguments: string }
  | {
      readonly type: 'tool_end';
      readonly turnId: string;
      readonly callId: string;
      readonly name: string;
      /** The tool_result entry appended for the call. */
      readonly entryId: string;
      readonly content: string;
      readonly isError: boolean;
      readonly durationMs: number;
      /** The call never ran or was stopped because the turn was cancelled. */
      readonly cancelled: boolean;
    }
  | { readonly type: 'cache_metrics'; readonly turnId?: string; readonly metrics: CacheMetrics }
  /** Something the user should see in passing: a retry, a model switch, a fallback. */
  /** `transient`: true for "retrying…" and "waiting…" lines, which say nothing once the turn has ended. */
  | { readonly type: 'notice'; readonly turnId?: string; readonly level: 'info' | 'warn' | 'error'; readonly message: string; readonly transient?: boolean }
  | {
      readonly type: 'model_changed';
      readonly provider: string;
      readonly model: string;
      readonly contextWindow: number;
      readonly maxOutputTokens: number;
      /** `default`: the window is an assumption (nobody reported it). */
      readonly windowSource?: 'table' | 'provider' | 'learned' | 'override' | 'default';
      /** A mandatory protective handoff compaction ran with the previous model before the switch (docs/behaviour.md#triggers). */
      readonly handoff: boolean;
      /** Set when a provider's overflow error stated this window: hosts persist it per endpoint + model (docs/compaction.md#overflow-recovery). */
      readonly learnedFrom?: 'overflow_error';
    }
  /** The same tool call came back `repeats` times in a row: the turn stops and the user decides (Continue / Stop). */
  | { readonly type: 'loop_detected'; readonly turnId: string; readonly name: string; readonly arguments: string; readonly repeats: number }
  /** `fault`: the provider failure that ended the turn, when one did (the error card's facts). */
  | { readonly type: 'turn_end'; readonly turnId: string; readonly status: TurnStatus; readonly error?: string; readonly fault?: TurnFault };

export type AgentListener = (e: AgentEvent) => void;

export interface TurnInput {
  readonly userText: string;
  readonly images?: readonly ImagePart[];
  /** Files the user attached: read with the read tool right after the message, before the first request. */
  readonly attachments?: readonly Attachment[];
  readonly signal: AbortSignal;
  /** Defaults to a fresh `t_…` id. */
  readonly turnId?: string;
}

export interface TurnResult {
  readonly turnId: string;
  readonly status: TurnStatus;
  /** The one-line reason when the turn did not complete. */
  readonly error?: string;
  /** The final answer's text, when the turn completed. */
  readonly answer?: string;
  /** Model requests sent in this turn (retries of one request counted once). */
  readonly requests: number;
  /** Why a turn the agent itself stopped ended early: the same call in a loop. */
  readonly stopReason?: 'doom_loop';
  /** The provider failure that ended the turn, when one did. */
  readonly fault?: TurnFault;
}
