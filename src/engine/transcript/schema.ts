// zod schemas for the session JSONL: the header line and every entry kind (docs/behaviour.md#transcript, #model-input, #rewind).
import * as z from '../zod.js';
import { EffectsSchema } from './effects.js';
import { SubagentRefSchema } from './subagentRef.js';

export const CURRENT_VERSION = 1;

const id = z.string().check(z.minLength(1), z.maxLength(200));
const timestamp = z.string().check(z.minLength(1), z.maxLength(64));

export const SessionHeaderSchema = z.object({
  type: z.literal('session'),
  version: z.number().check(z.int(), z.positive()),
  id,
  createdAt: timestamp,
  cwd: z.string(),
  title: z.optional(z.string().check(z.maxLength(500))),
});
export type SessionHeader = z.infer<typeof SessionHeaderSchema>;

// `subagent`: set on every entry a subagent wrote (a side branch of the same file, docs/session-format.md#subagents).
const base = { id, parentId: z.nullable(id), timestamp, subagent: z.optional(SubagentRefSchema) };

export const ImagePartSchema = z.object({
  /** A data: URL or an https URL. */
  url: z.string().check(z.minLength(1)),
  detail: z.optional(z.enum(['auto', 'low', 'high'])),
  /** Pixel size when known; used for the image token estimate. */
  width: z.optional(z.number().check(z.int(), z.positive())),
  height: z.optional(z.number().check(z.int(), z.positive())),
});
export type ImagePart = z.infer<typeof ImagePartSchema>;

export const ToolCallSchema = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  /** The raw JSON argument string exactly as the model produced it. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

const UsageSchema = z.object({
  promptTokens: z.number().check(z.int(), z.nonnegative()),
  completionTokens: z.number().check(z.int(), z.nonnegative()),
  cachedTokens: z.optional(z.number().check(z.int(), z.nonnegative())),
  cacheWriteTokens: z.optional(z.number().check(z.int(), z.nonnegative())),
});
export type Usage = z.infer<typeof UsageSchema>;

const UserEntrySchema = z.object({
  ...base,
  type: z.literal('user'),
  content: z.string(),
  images: z.optional(z.array(ImagePartSchema)),
  turnId: z.optional(z.string()),
  /** Set by importers on user turns that the other agent or a tool wrote (reminders, instructions, demonstrations), not the person. */
  injected: z.optional(z.boolean()),
});

const AssistantEntrySchema = z.object({
  ...base,
  type: z.literal('assistant'),
  content: z.string(),
  toolCalls: z._default(z.array(ToolCallSchema), []),
  model: z.optional(z.string()),
  provider: z.optional(z.string()),
  usage: z.optional(UsageSchema),
  /** Hash of (provider, model, system prompt, tool schemas) of the request that produced this reply (docs/behaviour.md#tokens). */
  prefixFingerprint: z.optional(z.string()),
  finishReason: z.optional(z.string()),
  turnId: z.optional(z.string()),
  /** Reasoning text the provider returned (`reasoning_content`); sent back with tool-call turns, which DeepSeek-style models require. */
  reasoningContent: z.optional(z.string()),
});

const ToolResultEntrySchema = z.object({
  ...base,
  type: z.literal('tool_result'),
  toolCallId: z.string().check(z.minLength(1)),
  toolName: z.string(),
  content: z.string(),
  isError: z._default(z.boolean(), false),
  /** Written on open for a call whose process died before its result was recorded (a crash, a kill). */
  interrupted: z.optional(z.literal(true)),
  durationMs: z.optional(z.number().check(z.nonnegative())),
  turnId: z.optional(z.string()),
  /** What the call did (files, exit status), measured or inferred; absent in sessions written before effects were recorded. */
  effects: z.optional(EffectsSchema),
  /** Images of the result for a vision model (an MCP tool's image content), sent as image parts right after the tool messages. */
  images: z.optional(z.array(ImagePartSchema)),
});

/** Bounds of a system update's `touched` list: a longer list is not written (a reopened chat then reads the branch). */
export const MAX_TOUCHED_PATHS = 4000;
export const MAX_TOUCHED_PATH = 4096;

const SystemUpdateEntrySchema = z.object({
  ...base,
  type: z.literal('system_update'),
  /** `base` starts a cache epoch with a full system prompt; `append` adds one chronological update (docs/behaviour.md#cache-epochs). */
  mode: z.enum(['base', 'append']),
  content: z.string(),
  reason: z.optional(z.string()),
  /** The instruction sources in force after this entry (key + content hash), so a reload or a branch knows what the model saw (docs/user/instructions.md). */
  sources: z.optional(z.array(z.object({ key: z.string().check(z.minLength(1), z.maxLength(1000)), hash: z.string().check(z.minLength(1), z.maxLength(64)) }))),
  /**
   * The paths the agent's calls had named on the branch up to this entry (what folder- and glob-scoped instructions
   * follow), so a reopened chat reads only the entries after it to know them.
   */
  touched: z.optional(z.array(z.string().check(z.maxLength(MAX_TOUCHED_PATH))).check(z.maxLength(MAX_TOUCHED_PATHS))),
});

export const TRIGGERS = [
  'hard_limit',
  'context_overflow',
  'milestone',
  'plan_pivot',
  'turn_complete',
  'auto_threshold',
  'user',
  'idle',
  'model_switch',
] as const;
export const TriggerSchema = z.enum(TRIGGERS);
export type Trigger = z.infer<typeof TriggerSchema>;

const CapsuleEntrySchema = z.object({
  ...base,
  type: z.literal('capsule'),
  /** The capsule as the model sees it: sections plus the ledger, rendered as markdown. */
  summary: z.string().check(z.minLength(1)),
  /** First entry kept verbatim after the capsule; null when nothing before the capsule is kept. */
  firstKeptEntryId: z.nullable(id),
  /** Entries inside the summarized span that stay verbatim (the active turn's user task, docs/behaviour.md#cut). */
  pinnedEntryIds: z._default(z.array(id), []),
  tokensBefore: z.number().check(z.int(), z.nonnegative()),
  tokensAfter: z.number().check(z.int(), z.nonnegative()),
  trigger: TriggerSchema,
  level: z.number().check(z.int(), z.gte(0), z.lte(3)),
  quality: z.enum(['full', 'partial', 'degraded']),
  truncateResults: z._default(z.boolean(), false),
  /** Tool results of the retained tail older than the newest keepRecentTokens: sent in a bounded form (head + tail, the entry id). */
  boundedResultIds: z.optional(z.array(id)),
  checkpointId: z.string().check(z.minLength(1)),
  details: z._default(z.record(z.string(), z.unknown()), {}),
});

const CheckpointKindSchema = z.enum(['auto', 'milestone', 'plan_pivot', 'user']);
export type CheckpointKind = z.infer<typeof CheckpointKindSchema>;

const CheckpointEntrySchema = z.object({
  ...base,
  type: z.literal('checkpoint'),
  checkpointId: z.string().check(z.regex(/^ck_[A-Za-z0-9_-]+$/)),
  kind: CheckpointKindSchema,
  note: z.optional(z.string().check(z.maxLength(10_000))),
  /** The user message this checkpoint was taken before (the automatic checkpoint of each message). */
  forEntryId: z.optional(id),
});

const ModelChangeEntrySchema = z.object({
  ...base,
  type: z.literal('model_change'),
  provider: z.string(),
  model: z.string(),
  contextWindow: z.optional(z.number().check(z.int(), z.positive())),
  maxOutputTokens: z.optional(z.number().check(z.int(), z.positive())),
  /** `default`: the window is Capsule's assumption (no one reported it); shown as "window unknown". */
  windowSource: z.optional(z.enum(['table', 'provider', 'learned', 'override', 'default'])),
});

/** Moves the active leaf (rewind); not part of the conversation tree. */
const LeafEntrySchema = z.object({
  ...base,
  type: z.literal('leaf'),
  targetId: z.nullable(id),
  reason: z.optional(z.string()),
});

/** What failed when a turn ended on a provider error (docs/behaviour.md#errors): the error card's facts, never a key or a URL's path or query. */
const TurnFaultSchema = z.object({
  category: z.enum([
    'auth',
    'forbidden',
    'model_not_found',
    'not_found',
    'rate_limit',
    'quota',
    'server',
    'connection_refused',
    'dns',
    'timeout',
    'network',
    'bad_request',
    'overflow',
    'other',
  ]),
  status: z.optional(z.number().check(z.int())),
  code: z.optional(z.string().check(z.maxLength(200))),
  /** The provider's own words, one line, as data (an HTML page reduced to its title). */
  message: z.string().check(z.maxLength(2000)),
  /** host[:port] the request went to; absent for VS Code language models. */
  endpoint: z.optional(z.string().check(z.maxLength(300))),
});
export type TurnFault = z.infer<typeof TurnFaultSchema>;

/** Marks the end of a turn; fsynced so a resumed session knows which turns finished. */
const TurnEndEntrySchema = z.object({
  ...base,
  type: z.literal('turn_end'),
  turnId: z.string(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  error: z.optional(z.string()),
  fault: z.optional(TurnFaultSchema),
});

/** Undoes or redoes one compaction: the model input is built as if that capsule did not exist (or again with it); nothing is removed. */
const CompactionUndoEntrySchema = z.object({
  ...base,
  type: z.literal('compaction_undo'),
  capsuleId: id,
  checkpointId: z.string().check(z.minLength(1)),
  action: z.enum(['undo', 'redo']),
});

export const EntrySchema = z.discriminatedUnion('type', [
  UserEntrySchema,
  AssistantEntrySchema,
  ToolResultEntrySchema,
  SystemUpdateEntrySchema,
  CapsuleEntrySchema,
  CheckpointEntrySchema,
  ModelChangeEntrySchema,
  LeafEntrySchema,
  TurnEndEntrySchema,
  CompactionUndoEntrySchema,
]);

export type Entry = z.infer<typeof EntrySchema>;
export type EntryType = Entry['type'];
export type UserEntry = z.infer<typeof UserEntrySchema>;
export type AssistantEntry = z.infer<typeof AssistantEntrySchema>;
export type ToolResultEntry = z.infer<typeof ToolResultEntrySchema>;
export type SystemUpdateEntry = z.infer<typeof SystemUpdateEntrySchema>;
export type CapsuleEntry = z.infer<typeof CapsuleEntrySchema>;
export type CheckpointEntry = z.infer<typeof CheckpointEntrySchema>;
export type ModelChangeEntry = z.infer<typeof ModelChangeEntrySchema>;
export type LeafEntry = z.infer<typeof LeafEntrySchema>;
export type TurnEndEntry = z.infer<typeof TurnEndEntrySchema>;
export type CompactionUndoEntry = z.infer<typeof CompactionUndoEntrySchema>;

/** Entry kinds that are fsynced on append (docs/behaviour.md#transcript). */
export const DURABLE_TYPES: ReadonlySet<EntryType> = new Set(['capsule', 'checkpoint', 'turn_end', 'leaf', 'compaction_undo']);
