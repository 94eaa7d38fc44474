// Runs one assistant message's tool calls in order and appends a tool_result for every call, so tool pairs stay whole even on cancel.
import type { Clock, ToolHost, ToolResult } from '../ports.js';
import { MISSING_TOOL_NAME } from './modelCall.js';
import { TASK_TOOL_NAME } from './subagentTask.js';
import type { ToolCall, ToolResultEntry } from '../transcript/schema.js';

export const CANCELLED_BEFORE_RUN = 'Cancelled: the turn was cancelled before this tool ran.';

function cancelledWhileRunning(name: string): string {
  return `Cancelled: ${name} was stopped because the turn was cancelled.`;
}

export interface BatchDeps {
  readonly tools: ToolHost;
  readonly clock: Clock;
  /** Appends the result entry (parent = current leaf) and returns it. */
  readonly appendResult: (r: Omit<ToolResultEntry, 'id' | 'parentId' | 'timestamp' | 'type'>) => Promise<ToolResultEntry>;
  readonly onStart: (call: ToolCall) => void;
  readonly onEnd: (call: ToolCall, entry: ToolResultEntry, cancelled: boolean) => void;
}

/** Resolves with the tool's answer, or with undefined as soon as the signal fires (a stuck tool must not hold the turn). */
async function runUnlessCancelled(tools: ToolHost, call: ToolCall, signal: AbortSignal, turnId: string): Promise<ToolResult | undefined> {
  if (call.name === MISSING_TOOL_NAME) {
    const names = tools
      .schemas()
      .map((t) => t.name)
      .join(', ');
    return { isError: true, content: `This tool call had no tool name, so nothing ran. Call a tool by its name${names === '' ? '' : ` (one of: ${names})`}.` };
  }
  let onAbort: () => void = () => undefined;
  const cancelled = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const run = tools
      .run(call.name, call.arguments, signal, { callId: call.id, turnId })
      .catch((err: unknown): ToolResult => ({ isError: true, content: `${call.name} failed: ${err instanceof Error ? err.message : String(err)}` }));
    return await Promise.race([run, cancelled]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Every call gets exactly one result entry: the tool's own answer, a "cancelled" error for the call that was
 * running when the turn was cancelled (unless the tool still answered first), and one for each call never started.
 * Returns true when the turn was cancelled during the batch.
 */
export async function runToolBatch(deps: BatchDeps, calls: readonly ToolCall[], turnId: string, signal: AbortSignal): Promise<boolean> {
  let cancelled = false;
  // docs/subagents.md#concurrency: consecutive task calls start together; their results are still written in call order.
  const early = new Map<string, { readonly started: number; readonly result: Promise<ToolResult | undefined> }>();
  const startGroup = (from: number): void => {
    for (let i = from; i < calls.length; i++) {
      const c = calls[i];
      if (c === undefined || c.name !== TASK_TOOL_NAME) break;
      if (early.has(c.id)) continue;
      deps.onStart(c);
      early.set(c.id, { started: deps.clock.now(), result: runUnlessCancelled(deps.tools, c, signal, turnId) });
    }
  };
  for (const [index, call] of calls.entries()) {
    if (call.name === TASK_TOOL_NAME && !cancelled && !signal.aborted) startGroup(index);
    const pending = early.get(call.id);
    if (pending !== undefined) {
      const result = await pending.result;
      if (result === undefined || signal.aborted) cancelled = true;
      const entry = await deps.appendResult({
        toolCallId: call.id,
        toolName: call.name,
        content: result?.content ?? cancelledWhileRunning(call.name),
        isError: result?.isError ?? true,
        durationMs: Math.max(0, deps.clock.now() - pending.started),
        turnId,
        ...(result?.effects === undefined ? {} : { effects: result.effects }),
        ...(result?.images === undefined || result.images.length === 0 ? {} : { images: [...result.images] }),
      });
      deps.onEnd(call, entry, result === undefined);
      continue;
    }
    if (cancelled || signal.aborted) {
      cancelled = true;
      const entry = await deps.appendResult({ toolCallId: call.id, toolName: call.name, content: CANCELLED_BEFORE_RUN, isError: true, durationMs: 0, turnId });
      deps.onEnd(call, entry, true);
      continue;
    }
    deps.onStart(call);
    const started = deps.clock.now();
    const result = signal.aborted ? undefined : await runUnlessCancelled(deps.tools, call, signal, turnId);
    const durationMs = Math.max(0, deps.clock.now() - started);
    const stopped = result === undefined;
    if (stopped || signal.aborted) cancelled = true;
    const entry = await deps.appendResult({
      toolCallId: call.id,
      toolName: call.name,
      content: result?.content ?? cancelledWhileRunning(call.name),
      isError: result?.isError ?? true,
      durationMs,
      turnId,
      ...(result?.effects === undefined ? {} : { effects: result.effects }),
      ...(result?.images === undefined || result.images.length === 0 ? {} : { images: [...result.images] }),
    });
    deps.onEnd(call, entry, stopped);
  }
  return cancelled;
}

/** The turn is over: the tools stop what they left running; a line for the user, or undefined. Never throws. */
export async function endToolTurn(tools: ToolHost, onError: (err: unknown) => void): Promise<string | undefined> {
  try {
    return await tools.endTurn?.();
  } catch (err) {
    onError(err);
    return undefined;
  }
}
