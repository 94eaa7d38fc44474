// The mark a subagent's entries carry in the session file (docs/session-format.md#subagents): which child wrote them and for which task call.
import * as z from '../zod.js';

export const SubagentRefSchema = z.object({
  /** The child's id (`sa_…`), one per `task` call. */
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  /** The parent's `task` tool call this child answers. */
  toolCallId: z.string().check(z.minLength(1), z.maxLength(200)),
  /** The parent's assistant entry holding that call: the child's branch hangs off it in the tree view, never in the parent's path. */
  anchorId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  /** The task's short description (on the child's first entry). */
  description: z.optional(z.string().check(z.maxLength(500))),
});
export type SubagentRef = z.infer<typeof SubagentRefSchema>;

/** True for an entry a subagent wrote: it never moves the session's leaf and never joins the parent's path. */
export function isSubagentEntry(e: { readonly subagent?: SubagentRef | undefined }): boolean {
  return e.subagent !== undefined;
}
