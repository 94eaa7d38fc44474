// Repair on open: the tool calls a crash left without results get "interrupted" results, appended, so the next request is valid.
import type { Entry, ToolCall, ToolResultEntry } from './schema.js';
import { interruptedResultText } from './toolPairGuard.js';

/**
 * The calls of the branch's latest assistant entry that have no result, when nothing but bookkeeping (turn ends,
 * checkpoints, model changes, system updates) or some of its results follow it: exactly the calls a result appended
 * at the leaf still answers. A user message after them means the pair can no longer be closed by appending; the
 * model-input guard covers those.
 */
export function unansweredAtLeaf(branch: readonly Entry[]): ToolCall[] {
  const answered = new Set<string>();
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e === undefined || e.type === 'user' || e.type === 'capsule') return [];
    if (e.type === 'tool_result') answered.add(e.toolCallId);
    if (e.type === 'assistant') return e.toolCalls.filter((c) => !answered.has(c.id));
  }
  return [];
}

/** The result entry that closes an interrupted call (the caller fills in id, parent and time). */
export function interruptedResult(call: ToolCall, turnId?: string): Omit<ToolResultEntry, 'id' | 'parentId' | 'timestamp'> {
  return {
    type: 'tool_result',
    toolCallId: call.id,
    toolName: call.name,
    content: interruptedResultText(call.name),
    isError: true,
    interrupted: true,
    durationMs: 0,
    ...(turnId === undefined ? {} : { turnId }),
  };
}

/**
 * Appends an interrupted result for every call the branch left open at its leaf; returns the line that tells the user,
 * or undefined when nothing was open.
 */
export async function appendInterruptedResults(
  branch: readonly Entry[],
  entryBase: () => { readonly id: string; readonly parentId: string | null; readonly timestamp: string },
  append: (e: ToolResultEntry) => Promise<void>,
): Promise<string | undefined> {
  const open = unansweredAtLeaf(branch);
  if (open.length === 0) return undefined;
  for (const c of open) await append({ ...entryBase(), ...interruptedResult(c) });
  const one = open.length === 1;
  const names = open.map((c) => c.name).join(', ');
  return `${open.length} tool call${one ? ' was' : 's were'} interrupted before ${one ? 'its result was' : 'their results were'} recorded (${names}); marked as interrupted so the chat can go on.`;
}
