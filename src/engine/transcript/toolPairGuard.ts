// Keeps a model input whole at tool pairs: every call is answered right after its assistant message, and no result floats elsewhere.
/** The parts of a model message the pairing rule looks at (modelInput's ModelMessage has them; kept structural to avoid an import cycle). */
export interface PairedMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly toolCallId?: string;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string }[];
}

/** What the model reads for a call whose result was never recorded (a crash, a kill, an old session). */
export function interruptedResultText(toolName: string): string {
  return `Interrupted: ${toolName} did not finish (Capsule stopped before its result was recorded). It may or may not have taken effect; check before repeating it.`;
}

/**
 * Providers reject a request in which an assistant's tool calls are not followed, at once, by one result for every
 * call id (OpenAI answers 400), so one damaged pair would fail every later turn. The transcript stays as it is; only
 * the copy sent is mended: a missing result before a later message becomes an "interrupted" result in place, and a result that does not
 * answer a call of the assistant message right before it (after a later user message, a second copy, an orphan) is
 * left out. Returns the input itself when it is already whole, which is the normal case.
 */
export function guardToolPairs<M extends PairedMessage>(messages: readonly M[], interrupted: (toolCallId: string, toolName: string) => M): readonly M[] {
  if (isWhole(messages)) return messages;
  const out: M[] = [];
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    i++;
    if (m === undefined) continue;
    if (m.role === 'tool') continue; // not right after its call: an orphan
    out.push(m);
    if (m.role !== 'assistant' || m.toolCalls === undefined || m.toolCalls.length === 0) continue;
    const pending = new Map(m.toolCalls.map((c) => [c.id, c.name] as const));
    while (i < messages.length) {
      const r = messages[i];
      if (r?.role !== 'tool') break;
      i++;
      if (pending.delete(r.toolCallId ?? '')) out.push(r);
    }
    // A batch at the very end is still running: its results are on their way (the turn loop writes every one
    // before it builds the next request, and repair on open closes what a crash left), so it is left as it is.
    if (i >= messages.length) break;
    for (const [id, name] of pending) out.push(interrupted(id, name));
  }
  return out;
}

/** Every result right after its call, every call answered before the next message (the last batch may be running). */
function isWhole(messages: readonly PairedMessage[]): boolean {
  let pending: Set<string> | undefined;
  for (const m of messages) {
    if (m.role === 'tool') {
      if (pending === undefined || !pending.delete(m.toolCallId ?? '')) return false;
      continue;
    }
    if (pending !== undefined && pending.size > 0) return false;
    pending = m.role === 'assistant' && m.toolCalls !== undefined && m.toolCalls.length > 0 ? new Set(m.toolCalls.map((c) => c.id)) : undefined;
  }
  return true;
}
