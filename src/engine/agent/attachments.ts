// Files the user attached to a message (`@file`, an editor selection): read by the read tool itself, recorded as one tool exchange after the message.
import type { AssistantEntry, ToolCall } from '../transcript/schema.js';

/** A workspace file, or some of its lines, given as context with a message. */
export interface Attachment {
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
}

/** The read tool's name: an attachment is a read the user asked for, so the ledger, rewind and compaction treat it as one. */
const ATTACH_TOOL = 'read_file';
/** The finish reason of the assistant entry that carries the attachments' calls: written by Capsule, not by a model. */
const ATTACH_FINISH_REASON = 'user_attachments';

/** The read_file calls for the attachments, one per file, with their line range when one was given. */
export function attachmentCalls(attachments: readonly Attachment[], callId: (i: number) => string): ToolCall[] {
  return attachments.map((a, i) => ({
    id: callId(i),
    name: ATTACH_TOOL,
    arguments: JSON.stringify({
      path: a.path,
      ...(a.startLine === undefined ? {} : { startLine: a.startLine }),
      ...(a.endLine === undefined ? {} : { endLine: a.endLine }),
    }),
  }));
}

/** The entry that asks for the reads: no text, the calls, and a finish reason saying who wrote it. */
export function attachmentEntry(
  base: { readonly id: string; readonly parentId: string | null; readonly timestamp: string },
  calls: readonly ToolCall[],
  turnId: string,
): AssistantEntry {
  return { ...base, type: 'assistant', content: '', toolCalls: [...calls], finishReason: ATTACH_FINISH_REASON, turnId };
}

/** True for the assistant entry of attachments (no model wrote it). */
export function isAttachmentEntry(e: { readonly type: string; readonly finishReason?: string }): boolean {
  return e.type === 'assistant' && e.finishReason === ATTACH_FINISH_REASON;
}
