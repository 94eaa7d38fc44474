// How a turn ends, however it ends: background processes stopped, calls left open answered, the agent's checkpoints written, the turn_end entry and event, and the turn-complete compaction intent (docs/behaviour.md#triggers).
import type { PreflightBarrier, PreflightResult } from '../compaction/barrier.js';
import type { TriggerState } from '../compaction/triggers.js';
import { unansweredAtLeaf } from '../transcript/repair.js';
import type { Entry, ToolResultEntry, TurnEndEntry, TurnFault } from '../transcript/schema.js';
import type { AgentEvent, TurnResult, TurnStatus } from './agentEvents.js';
import { type AgentDeps, errText } from './agentDeps.js';
import { CANCELLED_BEFORE_RUN, endToolTurn } from './toolBatch.js';
import type { TurnState } from './turnRequest.js';

/** What ending a turn needs of the agent. */
export interface TurnEndContext {
  readonly deps: AgentDeps;
  readonly barrier: PreflightBarrier;
  readonly triggers: TriggerState;
  emit(e: AgentEvent): void;
  entryBase(): { id: string; parentId: string | null; timestamp: string };
  /** The end of the active branch back to its latest message or answer (where open calls are), root first. */
  sinceLastAnswer(): Entry[];
  /** Writes the checkpoints the agent's tool asked for during the last batch (`force`: even with calls open). */
  flushBatchCheckpoints(force: boolean): Promise<void>;
}

export interface TurnEndDetails {
  readonly error?: string;
  readonly answer?: string;
  readonly stopReason?: TurnResult['stopReason'];
  /** What failed, as facts the chat's error card shows (docs/behaviour.md#errors). */
  readonly fault?: TurnFault;
}

/** A barrier that refused the request ends the turn cancelled when the turn or its compaction was cancelled, else failed. */
export function blockedStatus(pre: PreflightResult, signal: AbortSignal): TurnStatus {
  return signal.aborted || pre.outcomes.some((o) => o.outcome === 'cancelled') ? 'cancelled' : 'failed';
}

/**
 * The last line of defence for whole tool pairs: a turn that ended by an unexpected error between an assistant's
 * tool calls and their results gets an error result for each call left open, so the next request is valid.
 */
async function closeOpenCalls(ctx: TurnEndContext, st: TurnState, status: TurnStatus): Promise<void> {
  for (const c of unansweredAtLeaf(ctx.sinceLastAnswer())) {
    const content = status === 'cancelled' ? CANCELLED_BEFORE_RUN : `Not run: the turn stopped before ${c.name} could run.`;
    const entry: ToolResultEntry = {
      ...ctx.entryBase(),
      type: 'tool_result',
      toolCallId: c.id,
      toolName: c.name,
      content,
      isError: true,
      durationMs: 0,
      turnId: st.turnId,
    };
    await ctx.deps.store.append(entry);
  }
}

/** Ends the turn `st` with `status`; never rejects on a write that fails (it is logged). */
export async function finishTurn(ctx: TurnEndContext, st: TurnState, status: TurnStatus, details: TurnEndDetails = {}): Promise<TurnResult> {
  const { error, answer, stopReason, fault } = details;
  const f = fault === undefined ? {} : { fault };
  const { store, logger } = ctx.deps;
  const stopped = await endToolTurn(ctx.deps.tools, (err) =>
    logger?.log('warn', `Could not stop the background processes of turn ${st.turnId}: ${errText(err)}`),
  );
  if (stopped !== undefined) ctx.emit({ type: 'notice', turnId: st.turnId, level: 'info', message: stopped });
  if (!store.readOnly) {
    try {
      if (status !== 'completed') await closeOpenCalls(ctx, st, status);
      await ctx.flushBatchCheckpoints(true);
    } catch (err) {
      logger?.log('error', `Could not close the open tool calls of turn ${st.turnId}: ${errText(err)}`);
    }
    const entry: TurnEndEntry = { ...ctx.entryBase(), type: 'turn_end', turnId: st.turnId, status, ...(error === undefined ? {} : { error }), ...f };
    try {
      await store.append(entry);
    } catch (err) {
      logger?.log('error', `Could not record the end of turn ${st.turnId}: ${errText(err)}`);
    }
  }
  ctx.emit({ type: 'turn_end', turnId: st.turnId, status, ...(error === undefined ? {} : { error }), ...f });
  logger?.log(status === 'failed' ? 'warn' : 'info', `Turn ${st.turnId} ${status}${error ? `: ${error}` : ''}`, { turnId: st.turnId, requests: st.requests });
  if (status === 'completed') {
    // docs/behaviour.md#triggers: a completed turn at ≥ softLimit records its intent; the next barrier weighs it with ROI.
    try {
      if (ctx.barrier.measure().tokens >= ctx.barrier.limits().softLimit) ctx.triggers.recordIntent('turn_complete', st.turnId);
    } catch (err) {
      logger?.log('warn', `Could not measure the session after turn ${st.turnId}: ${errText(err)}`);
    }
  }
  return {
    turnId: st.turnId,
    status,
    ...(error === undefined ? {} : { error }),
    ...(answer === undefined ? {} : { answer }),
    requests: st.requests,
    ...(stopReason === undefined ? {} : { stopReason }),
    ...f,
  };
}
