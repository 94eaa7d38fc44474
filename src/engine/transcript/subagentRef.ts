// The mark a subagent's entries carry in the session file (docs/session-format.md#subagents): which child wrote them and for which task call.
import { z } from 'zod';

export const SubagentRefSchema = z.object({
  /** The child's id (`sa_…`), one per `task` call. */
  id: z.string().min(1).max(200),
  /** The parent's `task` tool call this child answers. */
  toolCallId: z.string().min(1).max(200),
  /** The parent's assistant entry holding that call: the child's branch hangs off it in the tree view, never in the parent's path. */
  anchorId: z.string().min(1).max(200).optional(),
  /** The task's short description (on the child's first entry). */
  description: z.string().max(500).optional(),
});
export type SubagentRef = z.infer<typeof SubagentRefSchema>;

/** True for an entry a subagent wrote: it never moves the session's leaf and never joins the parent's path. */
export function isSubagentEntry(e: { readonly subagent?: SubagentRef | undefined }): boolean {
  return e.subagent !== undefined;
}
