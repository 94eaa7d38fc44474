// The body of a turn once its message is written: preflight → request → tools, until the answer or a stop (docs/behaviour.md#barrier, #agent), and the user's attachments read as one tool exchange.
import type { PreflightResult } from '../compaction/barrier.js';
import type { ToolResultEntry, TurnFault } from '../transcript/schema.js';
import type { AgentEvent, TurnResult, TurnStatus } from './agentEvents.js';
import { errText, type AgentDeps } from './agentDeps.js';
import { attachmentCalls, attachmentEntry, type Attachment } from './attachments.js';
import { DOOM_LOOP_REPEATS, DoomLoopDetector, doomLoopMessage } from './doomLoop.js';
import { runToolBatch, type BatchDeps } from './toolBatch.js';
import { blockedStatus } from './turnEnd.js';
import { runRequest, type RequestDeps, type TurnState } from './turnRequest.js';

/** What the steps of a turn need of the agent. */
export interface StepHost {
  readonly deps: AgentDeps;
  emit(e: AgentEvent): void;
  entryBase(): { id: string; parentId: string | null; timestamp: string };
  /** Instruction updates that waited for a safe point. */
  flushUpdates(): Promise<void>;
  /** The barrier before an inference (a completed compaction opens a new cache epoch). */
  preflight(st: TurnState): Promise<PreflightResult>;
  requestDeps(st: TurnState): RequestDeps;
  /** A tool batch starts: the agent's checkpoint tool collects its checkpoints until the batch's results are written. */
  beginBatch(): void;
  flushBatchCheckpoints(force?: boolean): Promise<void>;
  finish(st: TurnState, status: TurnStatus, error?: string, answer?: string, stopReason?: TurnResult['stopReason'], fault?: TurnFault): Promise<TurnResult>;
}

/** Tool results are appended as entries and reported as start/end events of `turnId`. */
function batchDepsOf(h: Pick<StepHost, 'deps' | 'emit' | 'entryBase'>, turnId: string): BatchDeps {
  return {
    tools: h.deps.tools,
    clock: h.deps.clock,
    appendResult: async (r) => {
      const entry: ToolResultEntry = { ...h.entryBase(), type: 'tool_result', ...r };
      await h.deps.store.append(entry);
      return entry;
    },
    onStart: (c) => h.emit({ type: 'tool_start', turnId, callId: c.id, name: c.name, arguments: c.arguments }),
    onEnd: (c, e, wasCancelled) =>
      h.emit({
        type: 'tool_end',
        turnId,
        callId: c.id,
        name: c.name,
        entryId: e.id,
        content: e.content,
        isError: e.isError,
        durationMs: e.durationMs ?? 0,
        cancelled: wasCancelled,
      }),
  };
}

/** The user's attachments as one read_file exchange after the message (docs/user/chat.md); true when the turn was cancelled meanwhile. */
export async function attachFiles(
  h: Pick<StepHost, 'deps' | 'emit' | 'entryBase'>,
  attachments: readonly Attachment[],
  turnId: string,
  signal: AbortSignal,
): Promise<boolean> {
  const calls = attachmentCalls(attachments, () => h.deps.ids.next('att_'));
  await h.deps.store.append(attachmentEntry(h.entryBase(), calls, turnId));
  return runToolBatch(batchDepsOf(h, turnId), calls, turnId, signal);
}

/** Preflight → request → tools, until the answer (or a stop); every way out goes through finish(). */
export async function runSteps(h: StepHost, st: TurnState): Promise<TurnResult> {
  const turnId = st.turnId;
  const loops = new DoomLoopDetector();
  for (;;) {
    if (st.signal.aborted) return h.finish(st, 'cancelled', 'The turn was cancelled.');
    await h.flushUpdates();
    // docs/behaviour.md#barrier: before every inference, the first of the turn and each continuation after tool results (same turn id).
    const pre = await h.preflight(st);
    if (!pre.mayProceed) return h.finish(st, blockedStatus(pre, st.signal), pre.error);
    const step = await runRequest(h.requestDeps(st), st);
    if (step.kind === 'end') return h.finish(st, step.status, step.error, step.answer, undefined, step.fault);
    const first = step.entry.toolCalls[0];
    if (loops.note(step.entry.toolCalls) && first !== undefined) {
      // The repeated calls are not run again: finish() answers them as not run, so the input stays valid.
      h.emit({ type: 'loop_detected', turnId, name: first.name, arguments: first.arguments, repeats: DOOM_LOOP_REPEATS });
      return h.finish(st, 'failed', doomLoopMessage(first, DOOM_LOOP_REPEATS), undefined, 'doom_loop');
    }
    h.beginBatch();
    const cancelled = await runToolBatch(batchDepsOf(h, turnId), step.entry.toolCalls, turnId, st.signal).finally(() => h.flushBatchCheckpoints());
    if (cancelled) return h.finish(st, 'cancelled', 'The turn was cancelled while tools were running.');
  }
}

/** A turn's body ends in finish(); an unexpected error ends it too, as failed (or cancelled when the user stopped it). */
export async function guarded(h: Pick<StepHost, 'deps' | 'finish'>, st: TurnState, body: () => Promise<TurnResult>): Promise<TurnResult> {
  try {
    return await body();
  } catch (err) {
    h.deps.logger?.log('error', `Turn ${st.turnId} stopped: ${errText(err)}`);
    return h.finish(st, st.signal.aborted ? 'cancelled' : 'failed', st.signal.aborted ? 'The turn was cancelled.' : `The turn stopped: ${errText(err)}`);
  }
}
