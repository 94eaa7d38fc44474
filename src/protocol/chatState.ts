// Live chat state beside the transcript: models, first-run setup, the preflight barrier (docs/behaviour.md#barrier) and queued input.
import { LIMITS, LIST_LIMITS } from './limits.js';
import * as z from 'zod/mini';
import { TranscriptItemsSchema, TriggerSchema } from './transcript.js';
import { amount, checkpointId, itemId, text } from './views.js';

/** One entry of the model picker, with the limits docs/behaviour.md#tokens derives for it. */
const ModelOptionSchema = z.object({
  id: text(LIMITS.id).check(z.minLength(1)),
  label: text(LIMITS.id),
  provider: z.enum(['openai', 'lm']),
  contextWindow: amount,
  maxOutputTokens: amount,
  hardLimit: amount,
  /** The effective soft threshold with the current settings. */
  softLimit: amount,
  /** Where the window came from: the built-in table, the provider, an overflow error it sent, the user's override. */
  windowSource: z.optional(z.enum(['table', 'provider', 'learned', 'override', 'default'])),
  /** The hard limit / soft threshold were derived from the window (settings left unset): shown as "auto: N". */
  hardDerived: z.optional(z.boolean()),
  softDerived: z.optional(z.boolean()),
  /** The model is known to take images (the composer says so before sending one to a model that does not). */
  images: z.optional(z.boolean()),
});

/** `''` means OpenAI itself, as in the `capsule.provider.baseUrl` setting. */
const BaseUrlSchema = z.union([
  z.literal(''),
  z
    .string()
    .check(z.maxLength(LIMITS.line))
    .check(z.regex(/^https?:\/\/\S+$/)),
]);

export const ProviderChoiceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('lm'), modelId: text(LIMITS.id).check(z.minLength(1)) }),
  z.object({ kind: z.literal('openai'), baseUrl: BaseUrlSchema, model: text(LIMITS.id).check(z.minLength(1)) }),
]);

/** What the first-run setup panel needs; never the API key itself, only whether one is stored. */
export const SetupStateSchema = z.object({
  /** No usable provider yet: the panel opens by itself. */
  required: z.boolean(),
  lmModels: z
    .array(
      z.object({ id: text(LIMITS.id).check(z.minLength(1)), label: text(LIMITS.id), vendor: z.optional(text(LIMITS.id)), maxInputTokens: z.optional(amount) }),
    )
    .check(z.maxLength(LIST_LIMITS.models)),
  provider: z.nullable(ProviderChoiceSchema),
  hasApiKey: z.boolean(),
  /** Why setup is needed or what went wrong last time, in words. */
  message: z.optional(text(LIMITS.line)),
  /** What checking the saved endpoint found (docs/behaviour.md#errors): models, the model, the window; or what failed. */
  check: z.optional(z.object({ status: z.enum(['checking', 'ok', 'warning', 'error']), summary: text(LIMITS.line), hint: z.optional(text(LIMITS.line)) })),
});

const BarrierOutcomeSchema = z.enum(['completed', 'skipped', 'cancelled', 'stale', 'failed']);

/** The preflight barrier (docs/behaviour.md#barrier): a live line while it runs, then one persistent result line. */
export const BarrierViewSchema = z.object({
  phase: z.enum(['start', 'progress', 'end']),
  operationId: itemId,
  trigger: TriggerSchema,
  percent: z.number().check(z.gte(0), z.lte(100)),
  /** Host-written text replacing the line the webview would compose (e.g. a failure explanation). */
  line: z.optional(text(LIMITS.line)),
  /** Set with phase `end`. */
  result: z.optional(
    z.object({
      outcome: BarrierOutcomeSchema,
      tokensBefore: z.optional(amount),
      tokensAfter: z.optional(amount),
      checkpointId: z.optional(checkpointId),
      durationMs: z.optional(amount),
      quality: z.optional(z.enum(['full', 'partial', 'degraded'])),
    }),
  ),
});

/** Input the user sent while the agent or the barrier was busy; `id` echoes the `send`'s `clientId` when there was one. */
const QueuedInputSchema = z.object({ id: itemId, text: text(LIMITS.input) });
export const QueueSchema = z.array(QueuedInputSchema).check(z.maxLength(LIST_LIMITS.queue));

/** The agent's plan (update_plan), shown as a checklist above the composer. */
export const PlanViewSchema = z
  .array(z.object({ step: text(LIMITS.label).check(z.minLength(1)), status: z.enum(['pending', 'in_progress', 'done']) }))
  .check(z.maxLength(LIST_LIMITS.planSteps));
export type PlanView = z.infer<typeof PlanViewSchema>;

/** A write, command or MCP tool call waiting for the user: an inline card (non-modal); writes also open in VS Code's diff editor. */
const ApprovalViewSchema = z.object({
  id: itemId,
  kind: z.enum(['write', 'command', 'mcp']),
  title: text(LIMITS.label),
  command: z.optional(text(LIMITS.notice)),
  cwd: z.optional(text(LIMITS.label)),
  path: z.optional(text(LIMITS.label)),
  /** The unified diff of a write, cut for the card (the diff editor shows it whole). */
  diff: z.optional(text(LIMITS.detail)),
  /** The always-allow rule offered for a command: its name ("npm"); absent when no rule could match it. The user may edit it. */
  rule: z.optional(text(LIMITS.label)),
  /** The command's first words, shortest first ("npm", "npm run", "npm run build"): the rules the card offers to pick. */
  ruleChoices: z.optional(z.array(text(LIMITS.label)).check(z.maxLength(LIST_LIMITS.ruleChoices))),
  /** An MCP call: the server, the tool's own name on it, and the arguments as JSON (cut for the card). Its `rule` is the tool's full name. */
  server: z.optional(text(LIMITS.label)),
  tool: z.optional(text(LIMITS.label)),
  args: z.optional(text(LIMITS.detail)),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;
export const ApprovalsSchema = z.array(ApprovalViewSchema).check(z.maxLength(LIST_LIMITS.approvals));
/** Where an always-allow rule is kept: the user's settings (every workspace) or this workspace's. */
const AllowRuleScopeSchema = z.enum(['user', 'workspace']);
export type AllowRuleScope = z.infer<typeof AllowRuleScopeSchema>;
/** One always-allow rule as the view lists it, with where it is kept; `mcpTool` is an MCP tool allowed by its full name (a command prefix when absent). */
export const AllowRuleSchema = z.object({
  rule: text(LIMITS.label).check(z.minLength(1)),
  scope: AllowRuleScopeSchema,
  kind: z.optional(z.enum(['command', 'mcpTool'])),
});
export type AllowRule = z.infer<typeof AllowRuleSchema>;
export const AllowRulesSchema = z.array(AllowRuleSchema).check(z.maxLength(LIST_LIMITS.allowRules));
/** `deny` with feedback is "Deny with feedback": the text goes to the model as the tool result. */
export const ApprovalChoiceSchema = z.enum(['allow', 'allowAlways', 'allowAllEdits', 'deny', 'openDiff']);
export type ApprovalChoice = z.infer<typeof ApprovalChoiceSchema>;

/** What an MCP server is doing: its connection's status, or `disabled` (turned off in this workspace). */
const McpServerStatusSchema = z.enum(['starting', 'ready', 'restarting', 'failed', 'stopped', 'disabled']);
/** One MCP server as the setup panel lists it, with Restart and Disable (or Enable). */
const McpServerViewSchema = z.object({
  name: text(LIMITS.id).check(z.minLength(1)),
  status: McpServerStatusSchema,
  tools: amount,
  /** Tokens of its tool schemas as they are sent with every request (0 until it is ready). */
  schemaTokens: amount,
  transport: z.optional(z.enum(['stdio', 'http', 'sse'])),
  /** Where it is configured ("the user setting", ".mcp.json"…); unknown for one disabled before it started. */
  source: z.optional(text(LIMITS.label)),
  /** Why it failed or last crashed, with the end of its error output. */
  error: z.optional(text(LIMITS.notice)),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;
export const McpServersSchema = z.array(McpServerViewSchema).check(z.maxLength(LIST_LIMITS.mcpServers));
export const McpServerActionSchema = z.enum(['restart', 'disable', 'enable']);
export type McpServerAction = z.infer<typeof McpServerActionSchema>;

export type ModelOption = z.infer<typeof ModelOptionSchema>;
export type ProviderChoice = z.infer<typeof ProviderChoiceSchema>;
export type SetupState = z.infer<typeof SetupStateSchema>;
export type BarrierOutcome = z.infer<typeof BarrierOutcomeSchema>;
export type BarrierView = z.infer<typeof BarrierViewSchema>;
export type QueuedInput = z.infer<typeof QueuedInputSchema>;

/** The chat part of a snapshot: everything beside session, budget and settings. */
export const ChatStateSchema = z.object({
  /** The newest items of the active branch (a page, not necessarily all); `hasMore` says older ones exist. */
  transcript: z.object({ items: TranscriptItemsSchema, hasMore: z.boolean() }),
  models: z.array(ModelOptionSchema).check(z.maxLength(LIST_LIMITS.models)),
  currentModelId: z.nullable(text(LIMITS.id)),
  /** An agent turn is running (the Stop button shows; input is queued, never blocked). */
  busy: z.boolean(),
  queue: QueueSchema,
  /** The running barrier, or the last one's result line, which stays until the next barrier starts. */
  barrier: z.nullable(BarrierViewSchema),
  setup: z.nullable(SetupStateSchema),
  /** The agent's current plan; absent or empty when it keeps none. */
  plan: z.optional(PlanViewSchema),
  /** Approvals waiting for the user; they survive a reload of the view. */
  approvals: z.optional(ApprovalsSchema),
  /** The always-allow command rules in force, listed and removable in the view. */
  allowRules: z.optional(AllowRulesSchema),
  /** The window's MCP servers (the setup panel's list); absent when none is configured. */
  mcpServers: z.optional(McpServersSchema),
});
export type ChatState = z.infer<typeof ChatStateSchema>;

/** A chat with nothing in it yet: what a snapshot carries before the agent has state to show. */
export function emptyChatState(): ChatState {
  return { transcript: { items: [], hasMore: false }, models: [], currentModelId: null, busy: false, queue: [], barrier: null, setup: null };
}
