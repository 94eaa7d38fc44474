// What the chat list shows: transcript items (one union on `kind`), compaction cards, and the capsule viewer's content.
import { LIMITS, LIST_LIMITS, PATH_MAX } from './limits.js';
import * as z from 'zod/mini';
import type { Trigger } from '../engine/transcript/schema.js';
import { BudgetCategoriesSchema, amount, checkpointId, itemId, text } from './views.js';

/** The triggers of docs/behaviour.md#triggers (the webview bundles this list, not the engine's schema module). */
export const TriggerSchema = z.enum([
  'hard_limit',
  'context_overflow',
  'milestone',
  'plan_pivot',
  'turn_complete',
  'auto_threshold',
  'user',
  'idle',
  'model_switch',
]);
/** A trigger added to the transcript and not here (or the reverse) fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<Trigger, z.infer<typeof TriggerSchema>>;
const QualitySchema = z.enum(['full', 'partial', 'degraded']);
const ToolStatusSchema = z.enum(['running', 'ok', 'error', 'cancelled']);
const CheckpointKindViewSchema = z.enum(['auto', 'milestone', 'plan_pivot', 'user']);

/** Before/after figures of one completed compaction, by the same categories as the meter (docs/behaviour.md#observability). */
export const CompactionCardSchema = z.object({
  checkpointId,
  trigger: TriggerSchema,
  operationId: z.optional(text(LIMITS.id)),
  tokensBefore: amount,
  tokensAfter: amount,
  before: BudgetCategoriesSchema,
  after: BudgetCategoriesSchema,
  durationMs: amount,
  quality: QualitySchema,
  /** Why the deterministic fallback capsule was used (degraded capsules only). */
  fallbackReason: z.optional(text(LIMITS.line)),
  /** Escalation level 0–3 (docs/behaviour.md#cut). */
  level: z.optional(z.int().check(z.gte(0), z.lte(3))),
  /** A capsule loaded from a file (`/capsule load`): it adds context instead of summarizing this chat's. */
  loaded: z.optional(z.boolean()),
  /** The compaction was undone on this branch: the model sees the history it summarized (redo is offered). */
  undone: z.optional(z.boolean()),
  /** What of the summarized span survived: the one line ("files 100% · commands 100% · errors 6/7") and the dropped items. */
  retention: z.optional(
    z.object({
      line: text(300),
      dropped: z.array(z.object({ category: z.enum(['files', 'commands', 'errors', 'identifiers']), item: text(500) })).check(z.maxLength(200)),
      /** Lost files and commands appended to the capsule from the transcript. */
      appended: amount,
    }),
  ),
});

const base = { id: itemId, timestamp: z.optional(text(LIMITS.stamp)) };

/** Workspace-relative paths the host found on disk, as the text writes them. */
const LinksSchema = z.array(text(PATH_MAX).check(z.minLength(1))).check(z.maxLength(LIST_LIMITS.links));

/**
 * Where the conversation forks at this item (docs/rewind.md#branches): it is branch `index` of `count`, and the
 * switcher's ‹ and › name the items the neighbouring branches start with. The projection computes it; the webview
 * only draws it.
 */
const BranchViewSchema = z
  .object({
    index: z.int().check(z.gte(1)),
    count: z.int().check(z.gte(2), z.lte(LIST_LIMITS.branches)),
    previous: z.optional(itemId),
    next: z.optional(itemId),
  })
  .check(
    z.refine((b) => b.index <= b.count, { message: 'index is at most count' }),
    z.refine((b) => (b.previous !== undefined) === b.index > 1 && (b.next !== undefined) === b.index < b.count, {
      message: 'previous exists except on the first branch, next except on the last',
    }),
  );

const UserItemSchema = z.object({
  ...base,
  kind: z.literal('user'),
  text: text(LIMITS.input),
  /** The `clientId` of the `send` that produced it, so the webview can drop its pending chip. */
  clientId: z.optional(text(LIMITS.id)),
  /** Existing workspace paths the message names (its `@` mentions): only these become links. */
  links: z.optional(LinksSchema),
  /** How many images went with the message (the bytes stay in the transcript, not in the view). */
  images: z.optional(z.int().check(z.gte(1), z.lte(100))),
  /** The message is one of several sent at the same moment (edit and resend). */
  branch: z.optional(BranchViewSchema),
});
const AssistantItemSchema = z.object({
  ...base,
  kind: z.literal('assistant'),
  markdown: text(LIMITS.document),
  /** True while `streamDelta`s are still arriving for this item. */
  streaming: z.optional(z.boolean()),
  model: z.optional(text(LIMITS.id)),
  /** Paths the answer mentions that exist in the workspace: only these become links that open the file. */
  links: z.optional(LinksSchema),
  /** The answer is one of several to the same message (Retry), or continues a moment another branch also continues. */
  branch: z.optional(BranchViewSchema),
});
/** A subagent's state on its `task` card (docs/subagents.md#seeing-them): compacting is its own barrier at work; stopped carries why. */
const SubagentStatusSchema = z.enum(['running', 'compacting', 'done', 'stopped']);
const SubagentViewSchema = z.object({
  id: text(LIMITS.id),
  description: text(LIMITS.label),
  status: SubagentStatusSchema,
  reason: z.optional(text(LIMITS.notice)),
  /** The subagent's own context (its last request) and window: its meter, never added to the chat's. */
  contextTokens: amount,
  contextWindow: amount,
  requests: amount,
  /** Prompt plus completion tokens over all its requests. */
  tokens: amount,
  compactions: amount,
});
/** Lines of a subagent's transcript a page holds at most (the card asks for pages on demand). */
export const SUBAGENT_PAGE_LINES = LIST_LIMITS.subagentLines;
/** One line of a subagent's own transcript: its prompt, answers, tool calls with their results, compactions. */
export const SubagentLineSchema = z.object({
  kind: z.enum(['user', 'assistant', 'tool', 'compaction']),
  text: text(LIMITS.answer),
  /** The tool's name (tool lines). */
  name: z.optional(text(LIMITS.id)),
  status: z.optional(ToolStatusSchema),
});
const ToolItemSchema = z.object({
  ...base,
  kind: z.literal('tool'),
  name: text(LIMITS.id),
  /** One line saying what the call was asked to do, e.g. `src/app.ts lines 1–80`. */
  argsSummary: text(LIMITS.notice),
  status: ToolStatusSchema,
  durationMs: z.optional(amount),
  resultPreview: z.optional(text(LIMITS.answer)),
  /** Existing workspace paths named by the call or its result: only these become links. */
  links: z.optional(LinksSchema),
  /** An applied write_file / edit_file: "Show diff" opens the before and after of this edit. */
  diff: z.optional(z.boolean()),
  /** A `task` call: the subagent it runs, shown as its card. */
  subagent: z.optional(SubagentViewSchema),
});
const CompactionItemSchema = z.object({ ...base, kind: z.literal('compaction'), card: CompactionCardSchema });
const CheckpointItemSchema = z.object({
  ...base,
  kind: z.literal('checkpoint'),
  checkpointId,
  checkpointKind: CheckpointKindViewSchema,
  note: z.optional(text(LIMITS.detail)),
});
/** Which setting an error card's "Open settings" opens: the key, the model id, the base URL (docs/behaviour.md#errors). */
export const SettingsTargetSchema = z.enum(['apiKey', 'model', 'baseUrl']);
/** A failed turn's facts, shown as data (never markdown): where, the status, the provider's words, what to do. */
const FaultViewSchema = z.object({
  turnId: itemId,
  title: text(LIMITS.label),
  /** host[:port]; never a path, query or key. */
  endpoint: z.optional(text(LIMITS.label)),
  status: z.optional(z.int().check(z.gte(100), z.lte(599))),
  code: z.optional(text(LIMITS.id)),
  message: text(LIMITS.notice),
  hint: text(LIMITS.notice),
  settings: z.optional(SettingsTargetSchema),
  /** This is still the last turn of the branch, so Retry can send it again. */
  retry: z.boolean(),
});
const ErrorItemSchema = z.object({ ...base, kind: z.literal('error'), text: text(LIMITS.answer), fault: z.optional(FaultViewSchema) });
const InfoItemSchema = z.object({ ...base, kind: z.literal('info'), text: text(LIMITS.answer) });
/** The agent stopped a doom loop (the same tool call three times in a row): the user chooses Continue or Stop. */
const LoopItemSchema = z.object({ ...base, kind: z.literal('loop'), text: text(LIMITS.answer), toolName: text(LIMITS.id) });

export const TranscriptItemSchema = z.discriminatedUnion('kind', [
  UserItemSchema,
  AssistantItemSchema,
  ToolItemSchema,
  CompactionItemSchema,
  CheckpointItemSchema,
  ErrorItemSchema,
  InfoItemSchema,
  LoopItemSchema,
]);

/** Items in chronological order; a page never exceeds this many (the host pages older ones on `loadOlder`). */
const MAX_ITEMS_PER_MESSAGE = LIST_LIMITS.items;
export const TranscriptItemsSchema = z.array(TranscriptItemSchema).check(z.maxLength(MAX_ITEMS_PER_MESSAGE));

/** The capsule viewer's content: the sections and ledger, and the previous capsule's text for the line diff. */
export const CapsuleViewSchema = z.object({
  checkpointId,
  title: z.optional(text(LIMITS.label)),
  trigger: TriggerSchema,
  quality: QualitySchema,
  degradedReason: z.optional(text(LIMITS.line)),
  tokens: amount,
  createdAt: z.optional(text(LIMITS.stamp)),
  sections: z.array(z.object({ name: text(LIMITS.id), body: text(LIMITS.delta) })).check(z.maxLength(LIST_LIMITS.sections)),
  /** The exact ledger built from the transcript (docs/behaviour.md#capsule), as markdown. */
  ledger: text(LIMITS.capsule),
  /** The whole capsule as the model sees it (sections + ledger), the right side of the diff. */
  text: text(LIMITS.input),
  previous: z.nullable(z.object({ checkpointId, text: text(LIMITS.input) })),
  /** Existing workspace paths the sections and ledger name: only these become links. */
  links: z.optional(LinksSchema),
});

export type ToolStatus = z.infer<typeof ToolStatusSchema>;
export type CheckpointKindView = z.infer<typeof CheckpointKindViewSchema>;
export type TriggerView = z.infer<typeof TriggerSchema>;
export type CompactionCard = z.infer<typeof CompactionCardSchema>;
export type BranchView = z.infer<typeof BranchViewSchema>;
export type AssistantItem = z.infer<typeof AssistantItemSchema>;
export type ToolItem = z.infer<typeof ToolItemSchema>;
export type SubagentView = z.infer<typeof SubagentViewSchema>;
export type SubagentStatus = z.infer<typeof SubagentStatusSchema>;
export type SubagentLine = z.infer<typeof SubagentLineSchema>;
export type CheckpointItem = z.infer<typeof CheckpointItemSchema>;
export type ErrorItem = z.infer<typeof ErrorItemSchema>;
export type FaultView = z.infer<typeof FaultViewSchema>;
export type SettingsTarget = z.infer<typeof SettingsTargetSchema>;
export type TranscriptItem = z.infer<typeof TranscriptItemSchema>;
export type CapsuleView = z.infer<typeof CapsuleViewSchema>;
