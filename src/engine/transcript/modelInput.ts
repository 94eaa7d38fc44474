// Builds the model input of docs/behaviour.md#model-input from a branch: system prompt, the latest capsule as a Q/A pair, the kept tail.
import { boundToolResult, truncateToolResult } from './truncation.js';
import type { CapsuleEntry, Entry, ImagePart, ToolCall } from './schema.js';
import { guardToolPairs, interruptedResultText } from './toolPairGuard.js';
import { imagePlaceholder } from './images.js';

export const CAPSULE_QUESTION = 'What did we do so far?';

/**
 * `reason` of a system update that reaches the model where it happened in the conversation (docs/user/instructions.md),
 * not folded into the system text: the request up to it stays byte-identical, so the provider's cached prefix holds.
 * It is sent as a user-role message (any OpenAI-compatible server accepts that mid-conversation; a second system
 * message is rejected by some local chat templates). A new epoch's base folds its content in.
 */
export const CHRONOLOGICAL_UPDATE_REASON = 'instructions update';

export type ModelMessage =
  | { readonly role: 'user'; readonly content: string; readonly images?: readonly ImagePart[]; readonly entryId?: string }
  | {
      readonly role: 'assistant';
      readonly content: string;
      readonly toolCalls?: readonly ToolCall[];
      readonly entryId?: string;
      readonly reasoningContent?: string;
    }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string; readonly entryId?: string };

export interface ModelInput {
  /** Epoch base plus the appended system updates, in order. */
  readonly system: string;
  /** The capsule pair (if any) followed by the kept entries. */
  readonly messages: readonly ModelMessage[];
  /** The capsule in force, if any. */
  readonly capsule?: CapsuleEntry;
  /** Conversation entries that contributed messages (capsule pair excluded), in order. */
  readonly entryIds: readonly string[];
}

/** The latest capsule in force on a branch, with its index: a capsule whose latest undo/redo event on the branch is an undo does not count. */
export function latestCapsule(branch: readonly Entry[]): { capsule: CapsuleEntry; index: number } | undefined {
  let toggled: Map<string, 'undo' | 'redo'> | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'compaction_undo') {
      toggled ??= new Map();
      // Walking backwards, the first event seen for a capsule is its latest.
      if (!toggled.has(e.capsuleId)) toggled.set(e.capsuleId, e.action);
    } else if (e?.type === 'capsule' && toggled?.get(e.id) !== 'undo') return { capsule: e, index: i };
  }
  return undefined;
}

/** The system prompt: the latest `base` update on the branch (or the default) plus later `append` updates. */
export function systemPromptOf(branch: readonly Entry[], defaultSystem: string): string {
  let system = defaultSystem;
  const appended: string[] = [];
  for (const e of branch) {
    if (e.type !== 'system_update') continue;
    if (e.mode === 'base') {
      system = e.content;
      appended.length = 0;
    } else if (e.reason !== CHRONOLOGICAL_UPDATE_REASON) appended.push(e.content);
  }
  return appended.length === 0 ? system : [system, ...appended].join('\n\n');
}

function withoutImages(e: Extract<Entry, { type: 'user' }>): Entry {
  const lines = (e.images ?? []).map((img, i) => imagePlaceholder(e.id, img, i));
  const { images: _dropped, ...rest } = e;
  void _dropped;
  return { ...rest, content: [e.content, ...lines].filter((t) => t !== '').join('\n') };
}

type ToolResultEntry = Extract<Entry, { type: 'tool_result' }>;

/**
 * The images of tool results, as one user message after the tool messages of a batch (a tool message carries text
 * only). `passed`: a compaction passed them, so each is one placeholder line instead (the transcript keeps them).
 */
function toolImagesMessage(results: readonly ToolResultEntry[], passed: boolean): ModelMessage | undefined {
  const withImages = results.filter((e) => e.images !== undefined && e.images.length > 0);
  if (withImages.length === 0) return undefined;
  if (passed) return { role: 'user', content: withImages.flatMap((e) => (e.images ?? []).map((img, i) => imagePlaceholder(e.id, img, i))).join('\n') };
  const names = withImages.map((e) => `${e.toolName} (call ${e.toolCallId})`).join(', ');
  return { role: 'user', content: `The images in the result of ${names}:`, images: withImages.flatMap((e) => e.images ?? []) };
}

function isChronologicalUpdate(e: Entry): boolean {
  return e.type === 'system_update' && e.mode === 'append' && e.reason === CHRONOLOGICAL_UPDATE_REASON;
}

/** Index of the latest epoch base before `end` (-1 when none). */
function latestBaseIndex(branch: readonly Entry[], end: number): number {
  for (let i = Math.min(end, branch.length) - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'system_update' && e.mode === 'base') return i;
  }
  return -1;
}

/** Converts one conversation entry to a model message; other kinds contribute nothing. */
export function toModelMessage(e: Entry, truncateResults = false): ModelMessage | undefined {
  switch (e.type) {
    case 'user':
      return e.images && e.images.length > 0
        ? { role: 'user', content: e.content, images: e.images, entryId: e.id }
        : { role: 'user', content: e.content, entryId: e.id };
    case 'assistant':
      return e.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: e.content,
            toolCalls: e.toolCalls,
            entryId: e.id,
            ...(e.reasoningContent === undefined ? {} : { reasoningContent: e.reasoningContent }),
          }
        : { role: 'assistant', content: e.content, entryId: e.id };
    case 'tool_result':
      return { role: 'tool', toolCallId: e.toolCallId, content: truncateResults ? truncateToolResult(e.content) : e.content, entryId: e.id };
    case 'system_update':
      return e.mode === 'append' && e.reason === CHRONOLOGICAL_UPDATE_REASON ? { role: 'user', content: e.content, entryId: e.id } : undefined;
    case 'capsule':
    case 'checkpoint':
    case 'model_change':
    case 'leaf':
    case 'turn_end':
    case 'compaction_undo':
      return undefined;
  }
}

/**
 * docs/behaviour.md#model-input: `[system]` + `[user:"What did we do so far?" / assistant:<capsule>]` + all entries from the
 * capsule's firstKeptEntryId to the leaf. Only the latest capsule on the branch counts; entries it
 * pins stay verbatim right after the pair.
 */
export function buildModelInput(branch: readonly Entry[], defaultSystem: string): ModelInput {
  const system = systemPromptOf(branch, defaultSystem);
  const found = latestCapsule(branch);
  const messages: ModelMessage[] = [];
  const entryIds: string[] = [];
  // Tool results with images since the last non-tool message: their images follow the batch's tool messages.
  let imaged: { results: ToolResultEntry[]; passed: boolean } = { results: [], passed: false };
  const flushImages = (): void => {
    const m = toolImagesMessage(imaged.results, imaged.passed);
    if (m !== undefined) messages.push(m);
    imaged = { results: [], passed: false };
  };
  const noteImages = (e: Entry, passed: boolean): void => {
    if (e.type !== 'tool_result' || e.images === undefined || e.images.length === 0) return;
    imaged.results.push(e);
    // One batch is either before the capsule's cut or after it; a mixed one shows placeholders (never more than the model had).
    imaged.passed ||= passed;
  };
  const push = (e: Entry, truncate: boolean, passed = false): void => {
    const m = toModelMessage(e, truncate);
    if (m) {
      if (m.role !== 'tool') flushImages();
      messages.push(m);
      entryIds.push(e.id);
      noteImages(e, passed);
    }
  };
  if (!found) {
    for (const e of branch) push(e, false);
    flushImages();
    return guarded({ system, messages, entryIds });
  }
  const { capsule, index } = found;
  messages.push({ role: 'user', content: CAPSULE_QUESTION }, { role: 'assistant', content: capsule.summary });
  const pinned = new Set(capsule.pinnedEntryIds);
  const firstKept = capsule.firstKeptEntryId === null ? index : branch.findIndex((e) => e.id === capsule.firstKeptEntryId);
  const start = firstKept < 0 || firstKept > index ? index : firstKept;
  // Instruction updates of the epoch in force are never summarized away: a compaction that opened no new epoch
  // (whose base would carry them) still sends them, in order, like pinned entries.
  const epochStart = latestBaseIndex(branch, branch.length);
  for (let i = 0; i < start; i++) {
    const e = branch[i];
    if (e && (pinned.has(e.id) || (i > epochStart && isChronologicalUpdate(e)))) push(e, false);
  }
  const bounded = new Set(capsule.boundedResultIds ?? []);
  for (let i = start; i < index; i++) {
    const e = branch[i];
    if (e?.type === 'tool_result' && bounded.has(e.id)) {
      // Older retained results go in their bounded form; the exact original is in the capsule's evidence.
      messages.push({ role: 'tool', toolCallId: e.toolCallId, content: boundToolResult(e.content, e.id), entryId: e.id });
      entryIds.push(e.id);
      noteImages(e, true);
    } else if (e?.type === 'user' && e.images !== undefined && e.images.length > 0) {
      // The compaction passed these: images leave the model input as one line each (the transcript keeps them).
      push(withoutImages(e), capsule.truncateResults);
    } else if (e) push(e, capsule.truncateResults, true);
  }
  for (let i = index + 1; i < branch.length; i++) {
    const e = branch[i];
    if (e) push(e, false);
  }
  flushImages();
  return guarded({ system, messages, entryIds, capsule });
}

/** The input with its tool pairs made whole (see guardToolPairs); entryIds follow the messages that remain. */
function guarded(input: ModelInput): ModelInput {
  const messages = guardToolPairs<ModelMessage>(input.messages, (toolCallId, name) => ({ role: 'tool', toolCallId, content: interruptedResultText(name) }));
  if (messages === input.messages) return input;
  const entryIds = messages.flatMap((m) => (m.entryId === undefined ? [] : [m.entryId]));
  return { ...input, messages, entryIds };
}

/** The operation id of the capsule in force on `branch`, for read_compaction_evidence. */
export function capsuleOperationId(branch: readonly Entry[]): string | undefined {
  const op = latestCapsule(branch)?.capsule.details['operationId'];
  return typeof op === 'string' ? op : undefined;
}
