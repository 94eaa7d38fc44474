// The `task` tool of docs/subagents.md: its schema, its arguments, and the answer a child's end gives the parent (pure).
import * as z from '../zod.js';
import type { ToolSchema } from '../ports.js';

export const TASK_TOOL_NAME = 'task';

/** The tools a child gets when the parent names none: it looks, it does not change anything. */
const READ_ONLY_TOOLS: readonly string[] = ['read_file', 'list_files', 'search', 'read_compaction_evidence'];

const TaskArgsSchema = z.object({
  description: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  prompt: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)),
  readOnly: z._default(z.boolean(), true),
  tools: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(50))),
});
export type TaskArgs = z.infer<typeof TaskArgsSchema>;

export const TASK_TOOL_SCHEMA: ToolSchema = {
  name: TASK_TOOL_NAME,
  description:
    'Delegate a self-contained piece of work (exploring code, answering a question about the workspace) to a subagent with its own context. ' +
    'Only its final answer comes back, so use it for work whose details you do not need to keep. Several task calls in one message run at the same time. ' +
    "The subagent reads only (read_file, list_files, search) unless readOnly is false; then writes and commands still need the user's approval.",
  parameters: {
    type: 'object',
    properties: {
      description: { type: 'string', description: 'A short name for the task (3-8 words), shown to the user.' },
      prompt: { type: 'string', description: 'Everything the subagent needs: the goal, what to look at, and what to report back.' },
      readOnly: { type: 'boolean', description: 'true (default): read-only tools. false: also writes and commands, each approved as usual.' },
      tools: { type: 'array', items: { type: 'string' }, description: 'Optional: only these tools (by name).' },
    },
    required: ['description', 'prompt'],
    additionalProperties: false,
  },
};

/** The arguments, or a one-line error for the model. */
export function parseTaskArgs(argsJson: string): { readonly ok: true; readonly args: TaskArgs } | { readonly ok: false; readonly error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(argsJson.trim() === '' ? '{}' : argsJson);
  } catch {
    return { ok: false, error: 'task: the arguments are not valid JSON; send {"description": "...", "prompt": "..."}.' };
  }
  const parsed = TaskArgsSchema.safeParse(raw);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    error: `task: ${issue === undefined ? 'bad arguments' : `${issue.path.map(String).join('.') || 'arguments'}: ${issue.message}`}; send {"description": "...", "prompt": "..."}.`,
  };
}

/** Never a child's: `task` (depth 1) and `checkpoint` (a rewind point belongs to the parent's conversation). */
const PARENT_ONLY: readonly string[] = [TASK_TOOL_NAME, 'checkpoint'];

/** The tools a child may use: the parent's, minus the parent-only ones, limited to read-only ones unless the parent asked otherwise. */
export function childToolNames(parentTools: readonly string[], args: TaskArgs): { readonly names: readonly string[]; readonly unknown: readonly string[] } {
  const available = parentTools.filter((n) => !PARENT_ONLY.includes(n));
  const allowed = args.readOnly ? available.filter((n) => READ_ONLY_TOOLS.includes(n)) : available;
  if (args.tools === undefined) return { names: allowed, unknown: [] };
  return { names: allowed.filter((n) => args.tools?.includes(n) === true), unknown: args.tools.filter((n) => !allowed.includes(n)) };
}

/** The system prompt of a child: the parent's rules, plus what a delegated run is for and how it ends. */
export function childSystemPrompt(parentSystem: string): string {
  return [
    parentSystem,
    'You are a subagent: another agent delegated one task to you. Work on it with your tools, then answer once, completely, in plain text: ' +
      'what you found or did, the file paths and facts the other agent needs, and anything left open. Your final answer is all it will see.',
  ].join('\n\n');
}
