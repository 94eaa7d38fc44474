// The agent's task plan (docs/behaviour.md#plan): the update_plan tool's schema, its argument check, and the current plan read from the transcript.
import * as z from '../zod.js';
import type { ToolSchema } from '../ports.js';
import type { Entry } from '../transcript/schema.js';

export const UPDATE_PLAN_TOOL_NAME = 'update_plan';
const PLAN_STATUSES = ['pending', 'in_progress', 'done'] as const;
type PlanStatus = (typeof PLAN_STATUSES)[number];
/** A plan is a checklist, not a transcript: a few dozen steps at most, each one line. */
const MAX_PLAN_ITEMS = 50;
const MAX_PLAN_STEP_CHARS = 300;

const PlanItemSchema = z.strictObject({
  step: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_PLAN_STEP_CHARS)),
  status: z.enum(PLAN_STATUSES),
});
export type PlanItem = z.infer<typeof PlanItemSchema>;
export const PlanSchema = z.array(PlanItemSchema).check(z.maxLength(MAX_PLAN_ITEMS));
export type Plan = readonly PlanItem[];

export const UpdatePlanArgsSchema = z.strictObject({
  explanation: z.optional(z.string().check(z.maxLength(2_000))),
  plan: PlanSchema,
});

export const UPDATE_PLAN_TOOL: ToolSchema = {
  name: UPDATE_PLAN_TOOL_NAME,
  description:
    'Keep the plan of a multi-step task: send the whole checklist each time (it replaces the previous one), with each ' +
    'step "pending", "in_progress" or "done"; at most one step in progress. The current plan is kept exactly across ' +
    'context compaction, so it always tells you where you are. An empty list clears the plan.',
  parameters: {
    type: 'object',
    properties: {
      explanation: { type: 'string', description: 'Optional: why the plan changed.' },
      plan: {
        type: 'array',
        maxItems: MAX_PLAN_ITEMS,
        items: {
          type: 'object',
          properties: {
            step: { type: 'string', description: `One step, at most ${MAX_PLAN_STEP_CHARS} characters.` },
            status: { type: 'string', enum: [...PLAN_STATUSES] },
          },
          required: ['step', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['plan'],
    additionalProperties: false,
  },
};

/** What each argument must be, in the words of the tool errors. */
export const UPDATE_PLAN_HINTS: Readonly<Record<string, string>> = {
  plan: `a list of at most ${MAX_PLAN_ITEMS} objects {"step": non-empty text of at most ${MAX_PLAN_STEP_CHARS} characters, "status": "pending", "in_progress" or "done"}`,
  explanation: 'an optional string of at most 2000 characters',
};

export type PlanArgsResult = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly error: string };

/** Checks update_plan's arguments; the error is one line written for the model. */
export function parsePlanArgs(argsJson: string): PlanArgsResult {
  let raw: unknown;
  try {
    raw = JSON.parse(argsJson);
  } catch {
    return {
      ok: false,
      error: `${UPDATE_PLAN_TOOL_NAME}: arguments are not valid JSON; send {"plan":[{"step":"…","status":"pending"}]}. The previous plan stays.`,
    };
  }
  const parsed = UpdatePlanArgsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'arguments' : issue.path.join('.');
    return {
      ok: false,
      error:
        `${UPDATE_PLAN_TOOL_NAME}: ${where}: ${issue?.message ?? 'invalid'}. Expected {"plan":[{"step":"non-empty text","status":"pending"|"in_progress"|"done"}]} ` +
        `with at most ${MAX_PLAN_ITEMS} steps. The previous plan stays.`,
    };
  }
  const inProgress = parsed.data.plan.filter((i) => i.status === 'in_progress').length;
  if (inProgress > 1) {
    return { ok: false, error: `${UPDATE_PLAN_TOOL_NAME}: ${inProgress} steps are in_progress; at most one may be. The previous plan stays.` };
  }
  return { ok: true, plan: parsed.data.plan };
}

const MARK: Readonly<Record<PlanStatus, string>> = { pending: '[ ]', in_progress: '[~]', done: '[x]' };

/** The plan as checklist lines, the same text in the tool result, the capsule and the CLI. */
export function renderPlanLines(plan: Plan): string[] {
  return plan.map((i) => `- ${MARK[i.status]} ${i.step.replace(/\s+/g, ' ')}${i.status === 'in_progress' ? ' (in progress)' : ''}`);
}

/**
 * The plan in force after `entries` (oldest first), starting from `previous` (a capsule's plan):
 * the last update_plan call whose result is among the entries and not an error. A call without a
 * result (cancelled) or with an error result changes nothing.
 */
export function latestPlan(entries: readonly Entry[], previous: Plan | null): Plan | null {
  // Most spans have no plan call at all: then no result needs indexing.
  if (!entries.some((e) => e.type === 'assistant' && e.toolCalls.some((c) => c.name === UPDATE_PLAN_TOOL_NAME))) return previous;
  const failed = new Set<string>();
  const answered = new Set<string>();
  for (const e of entries) {
    if (e.type !== 'tool_result') continue;
    answered.add(e.toolCallId);
    if (e.isError) failed.add(e.toolCallId);
  }
  let plan = previous;
  for (const e of entries) {
    if (e.type !== 'assistant') continue;
    for (const c of e.toolCalls) {
      if (c.name !== UPDATE_PLAN_TOOL_NAME || !answered.has(c.id) || failed.has(c.id)) continue;
      const parsed = parsePlanArgs(c.arguments);
      if (parsed.ok) plan = parsed.plan;
    }
  }
  return plan;
}
