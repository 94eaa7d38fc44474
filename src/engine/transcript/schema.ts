// zod schemas for the session JSONL: the header line and every entry kind (docs/behaviour.md#transcript, #model-input, #rewind).
import { z } from 'zod';
import { EffectsSchema } from './effects.js';
import { SubagentRefSchema } from './subagentRef.js';

export const CURRENT_VERSION = 1;

const id = z.string().min(1).max(200);
const timestamp = z.string().min(1).max(64);

export const SessionHeaderSchema = z.object({
  type: z.literal('session'),
  version: z.number().int().positive(),
  id,
  createdAt: timestamp,
  cwd: z.string(),
  title: z.string().max(500).optional(),
});
export type SessionHeader = z.infer<typeof SessionHeaderSchema>;

// `subagent`: set on every entry a subagent wrote (a side branch of the same file, docs/session-format.md#subagents).
const base = { id, parentId: id.nullable(), timestamp, subagent: SubagentRefSchema.optional() };

export const ImagePartSchema = z.object({
  /** A data: URL or an https URL. */
  url: z.string().min(1),
  detail: z.enum(['auto', 'low', 'high']).optional(),
  /** Pixel size when known; used for the image token estimate. */
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});
export type ImagePart = z.infer<typeof ImagePartSchema>;

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The raw JSON argument string exactly as the model produced it. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const UserEntrySchema = z.object({
  ...base,
  type: z.literal('user'),
  content: z.string(),
  images: z.array(ImagePartSchema).optional(),
  turnId: z.string().optional(),
  /** Set by importers on user turns that the other agent or a tool wrote (reminders, instructions, demonstrations), not the person. */
  injected: z.boolean().optional(),
});

export const AssistantEntrySchema = z.object({
  ...base,
  type: z.literal('assistant'),
  content: z.string(),
  toolCalls: z.array(ToolCallSchema).default([]),
  model: z.string().optional(),
  provider: z.string().optional(),
  usage: UsageSchema.optional(),
  /** Hash of (provider, model, system prompt, tool schemas) of the request that produced this reply (docs/behaviour.md#tokens). */
  prefixFingerprint: z.string().optional(),
  finishReason: z.string().optional(),
  turnId: z.string().optional(),
  /** Reasoning text the provider returned (`reasoning_content`); sent back with tool-call turns, which DeepSeek-style models require. */
  reasoningContent: z.string().optional(),
});

export const ToolResultEntrySchema = z.object({
  ...base,
  type: z.literal('tool_result'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  content: z.string(),
  isError: z.boolean().default(false),
  /** Written on open for a call whose process died before its result was recorded (a crash, a kill). */
  interrupted: z.literal(true).optional(),
  durationMs: z.number().nonnegative().optional(),
  turnId: z.string().optional(),
  /** What the call did (files, exit status), measured or inferred; absent in sessions written before effects were recorded. */
  effects: EffectsSchema.optional(),
  /** Images of the result for a vision model (an MCP tool's image content), sent as image parts right after the tool messages. */
  images: z.array(ImagePartSchema).optional(),
});

export const SystemUpdateEntrySchema = z.object({
  ...base,
  type: z.literal('system_update'),
  /** `base` starts a cache epoch with a full system prompt; `append` adds one chronological update (docs/behaviour.md#cache-epochs). */
  mode: z.enum(['base', 'append']),
  content: z.string(),
  reason: z.string().optional(),
  /** The instruction sources in force after this entry (key + content hash), so a reload or a branch knows what the model saw (docs/user/instructions.md). */
  sources: z.array(z.object({ key: z.string().min(1).max(1000), hash: z.string().min(1).max(64) })).optional(),
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

export const CapsuleEntrySchema = z.object({
  ...base,
  type: z.literal('capsule'),
  /** The capsule as the model sees it: sections plus the ledger, rendered as markdown. */
  summary: z.string().min(1),
  /** First entry kept verbatim after the capsule; null when nothing before the capsule is kept. */
  firstKeptEntryId: id.nullable(),
  /** Entries inside the summarized span that stay verbatim (the active turn's user task, docs/behaviour.md#cut). */
  pinnedEntryIds: z.array(id).default([]),
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  trigger: TriggerSchema,
  level: z.number().int().min(0).max(3),
  quality: z.enum(['full', 'partial', 'degraded']),
  truncateResults: z.boolean().default(false),
  /** Tool results of the retained tail older than the newest keepRecentTokens: sent in a bounded form (head + tail, the entry id). */
  boundedResultIds: z.array(id).optional(),
  checkpointId: z.string().min(1),
  details: z.record(z.string(), z.unknown()).default({}),
});

export const CheckpointKindSchema = z.enum(['auto', 'milestone', 'plan_pivot', 'user']);
export type CheckpointKind = z.infer<typeof CheckpointKindSchema>;

export const CheckpointEntrySchema = z.object({
  ...base,
  type: z.literal('checkpoint'),
  checkpointId: z.string().regex(/^ck_[A-Za-z0-9_-]+$/),
  kind: CheckpointKindSchema,
  note: z.string().max(10_000).optional(),
  /** The user message this checkpoint was taken before (the automatic checkpoint of each message). */
  forEntryId: id.optional(),
});

export const ModelChangeEntrySchema = z.object({
  ...base,
  type: z.literal('model_change'),
  provider: z.string(),
  model: z.string(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /** `default`: the window is Capsule's assumption (no one reported it); shown as "window unknown". */
  windowSource: z.enum(['table', 'provider', 'learned', 'override', 'default']).optional(),
});

/** Moves the active leaf (rewind); not part of the conversation tree. */
export const LeafEntrySchema = z.object({
  ...base,
  type: z.literal('leaf'),
  targetId: id.nullable(),
  reason: z.string().optional(),
});

/** What failed when a turn ended on a provider error (docs/behaviour.md#errors): the error card's facts, never a key or a URL's path or query. */
export const TurnFaultSchema = z.object({
  category: z.enum(['auth', 'forbidden', 'model_not_found', 'not_found', 'rate_limit', 'quota', 'server', 'connection_refused', 'dns', 'timeout', 'network', 'bad_request', 'overflow', 'other']),
  status: z.number().int().optional(),
  code: z.string().max(200).optional(),
  /** The provider's own words, one line, as data (an HTML page reduced to its title). */
  message: z.string().max(2000),
  /** host[:port] the request went to; absent for VS Code language models. */
  endpoint: z.string().max(300).optional(),
});
export type TurnFault = z.infer<typeof TurnFaultSchema>;

/** Marks the end of a turn; fsynced so a resumed session knows which turns finished. */
export const TurnEndEntrySchema = z.object({
  ...base,
  type: z.literal('turn_end'),
  turnId: z.string(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  error: z.string().optional(),
  fault: TurnFaultSchema.optional(),
});

/** Undoes or redoes one compaction: the model input is built as if that capsule did not exist (or again with it); nothing is removed. */
export const CompactionUndoEntrySchema = z.object({
  ...base,
  type: z.literal('compaction_undo'),
  capsuleId: id,
  checkpointId: z.string().min(1),
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
