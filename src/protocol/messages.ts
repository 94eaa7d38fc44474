// The host⇄webview message contract: zod schemas, one discriminated union per direction, types derived from them.
import { VIEW_COMMAND_IDS, type ViewCommandId } from './commands.js';
import { API_KEY_MAX, IMAGE_DATA_URL_MAX, IMAGE_LIMITS, LIMITS, LINE_MAX, LIST_LIMITS, PATH_MAX } from './limits.js';
import * as z from 'zod/mini';
import {
  AllowRuleSchema,
  AllowRulesSchema,
  ApprovalChoiceSchema,
  McpServerActionSchema,
  McpServersSchema,
  ApprovalsSchema,
  BarrierViewSchema,
  ChatStateSchema,
  PlanViewSchema,
  ProviderChoiceSchema,
  QueueSchema,
  SetupStateSchema,
} from './chatState.js';
import { CapsuleViewSchema, SettingsTargetSchema, SUBAGENT_PAGE_LINES, SubagentLineSchema, TranscriptItemSchema, TranscriptItemsSchema } from './transcript.js';
import { BudgetViewSchema, SessionViewSchema, SettingsViewSchema, checkpointId, itemId, text } from './views.js';

export * from './views.js';
export * from './transcript.js';
export * from './chatState.js';

const line = z.int().check(z.gte(1), z.lte(LINE_MAX));
const workspacePath = text(PATH_MAX).check(z.minLength(1));

/** A file (or some of its lines) attached to a message as context: read on send like the read tool reads. */
const AttachmentSchema = z.object({ path: workspacePath, startLine: z.optional(line), endLine: z.optional(line) });
export type Attachment = z.infer<typeof AttachmentSchema>;

/** An image pasted or dropped in the composer: its file name (for messages) and its bytes as a data URL; the host checks the bytes again. */
const ComposerImageSchema = z.object({
  name: text(PATH_MAX).check(z.minLength(1)),
  dataUrl: z.string().check(z.maxLength(IMAGE_DATA_URL_MAX), z.regex(/^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/=]*$/)),
});
export type ComposerImage = z.infer<typeof ComposerImageSchema>;

export const HostToWebviewSchema = z.discriminatedUnion('type', [
  /** The full state; the first message after `ready`, and again whenever the session or settings change. */
  z.object({
    type: z.literal('snapshot'),
    session: z.nullable(SessionViewSchema),
    budget: z.nullable(BudgetViewSchema),
    settings: SettingsViewSchema,
    /** Why no session could be opened, when that happened. */
    error: z.optional(text(LIMITS.notice)),
    ...ChatStateSchema.shape,
  }),
  z.object({ type: z.literal('budget'), budget: BudgetViewSchema }),
  /** `transient`: about the running turn (a retry, a wait); it goes when the turn ends, however it ended. */
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning', 'error']), text: text(LIMITS.notice), transient: z.optional(z.boolean()) }),
  /** New items at the end of the transcript; an id already shown replaces that item. */
  z.object({ type: z.literal('itemsAppended'), items: TranscriptItemsSchema }),
  /** One item changed (a tool finished, an answer was finalized); the webview replaces it in place. */
  z.object({ type: z.literal('itemUpdated'), item: TranscriptItemSchema }),
  /** More text for a streaming assistant item. */
  z.object({ type: z.literal('streamDelta'), itemId, text: text(LIMITS.delta) }),
  /** The stream ended; `markdown`, when given, is the final text and wins over the deltas; `item`, the entry it became, replaces it. */
  z.object({ type: z.literal('streamEnd'), itemId, markdown: z.optional(text(LIMITS.document)), item: z.optional(TranscriptItemSchema) }),
  z.object({ type: z.literal('barrier'), ...BarrierViewSchema.shape }),
  /** The answer to `viewCapsule`. */
  z.object({ type: z.literal('capsule'), capsule: CapsuleViewSchema }),
  /** The answer to `loadOlder`: the items just before `beforeId`, oldest first. */
  z.object({ type: z.literal('olderItems'), beforeId: itemId, items: TranscriptItemsSchema, hasMore: z.boolean() }),
  z.object({ type: z.literal('setup'), setup: SetupStateSchema }),
  z.object({ type: z.literal('queue'), items: QueueSchema }),
  /** The agent's plan changed (an update_plan call, a rewind, another chat). */
  z.object({ type: z.literal('plan'), plan: PlanViewSchema }),
  /** The approvals waiting for the user, all of them (an empty list: none). */
  z.object({ type: z.literal('approvals'), approvals: ApprovalsSchema, allowRules: z.optional(AllowRulesSchema) }),
  /** An agent turn started or ended. */
  z.object({ type: z.literal('busy'), busy: z.boolean() }),
  /** Puts text in the composer (the message a rewind went back before, ready to edit and send again). */
  z.object({ type: z.literal('composer'), text: text(LIMITS.input) }),
  /** The answer to `findFiles`: workspace files matching `query`, best first. */
  z.object({
    type: z.literal('fileMatches'),
    requestId: z.int().check(z.nonnegative()),
    query: text(PATH_MAX),
    files: z.array(workspacePath).check(z.maxLength(LIST_LIMITS.fileMatches)),
  }),
  /** The answer to `subagentTranscript`: one page of the subagent's own messages and tool calls, oldest first. */
  z.object({
    type: z.literal('subagentTranscript'),
    itemId,
    page: z.int().check(z.gte(1)),
    pages: z.int().check(z.gte(1)),
    lines: z.array(SubagentLineSchema).check(z.maxLength(SUBAGENT_PAGE_LINES)),
  }),
  /** The window's MCP servers changed (one started, failed, was restarted or disabled). */
  z.object({ type: z.literal('mcpServers'), servers: McpServersSchema }),
  /** "Add Selection to Chat": a mention to insert at the composer's caret, attached when the message is sent. */
  z.object({ type: z.literal('mention'), mention: text(PATH_MAX + 40).check(z.minLength(2)), attachment: AttachmentSchema }),
]);

/** What a user message's hover actions ask for; `retry` is offered on the last answer and names its message. */
const MessageActionSchema = z.enum(['rewind', 'edit', 'retry', 'compactUpTo']);

/** The view's buttons name a palette command of the catalog by its id; each runs what the palette runs. */
export const WebviewCommandSchema = z.enum(VIEW_COMMAND_IDS as readonly ViewCommandId[] as [ViewCommandId, ...ViewCommandId[]]);

export const WebviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('command'), command: WebviewCommandSchema }),
  /** A runtime error inside the webview, forwarded so it reaches the log instead of a hidden devtools console. */
  z.object({ type: z.literal('webviewError'), message: text(LIMITS.notice), stack: z.optional(text(LIMITS.stack)) }),
  /** What the user typed: plain text or a slash command, which the host parses. */
  z.object({
    type: z.literal('send'),
    text: text(LIMITS.input).check(z.minLength(1)),
    clientId: z.optional(itemId),
    attachments: z.optional(z.array(AttachmentSchema).check(z.maxLength(LIST_LIMITS.attachments))),
    images: z.optional(z.array(ComposerImageSchema).check(z.maxLength(IMAGE_LIMITS.perMessage))),
  }),
  /** `@` completion: workspace files whose path matches `query` (answered by `fileMatches` with the same id). */
  z.object({ type: z.literal('findFiles'), requestId: z.int().check(z.nonnegative()), query: text(PATH_MAX) }),
  /** A file path the user clicked; the host opens it only when it is an existing file inside the workspace. */
  z.object({ type: z.literal('openFile'), path: workspacePath, line: z.optional(line), column: z.optional(line) }),
  /** "Show diff" on an applied edit's tool row (the item id names the call). */
  z.object({ type: z.literal('showDiff'), itemId }),
  /** A subagent card's transcript, one page (1 = the oldest), asked for when the card is expanded. */
  z.object({ type: z.literal('subagentTranscript'), itemId, page: z.int().check(z.gte(1), z.lte(100_000)) }),
  /** The user's answer on an approval card; `feedback` only with `deny`; `rule` and `scope` only with `allowAlways` (the rule as the user left it). */
  z.object({
    type: z.literal('approval'),
    id: itemId,
    choice: ApprovalChoiceSchema,
    feedback: z.optional(text(LIMITS.notice)),
    rule: z.optional(text(LIMITS.label).check(z.minLength(1))),
    scope: z.optional(AllowRuleSchema.shape.scope),
  }),
  /** The × of an always-allow rule in the view's list. */
  z.object({ type: z.literal('removeAllowRule'), rule: AllowRuleSchema }),
  /** Restart, Disable or Enable on a server in the setup panel's MCP list. */
  z.object({ type: z.literal('mcpServer'), name: text(LIMITS.id).check(z.minLength(1)), action: McpServerActionSchema }),
  /** Stop the running turn. */
  z.object({ type: z.literal('cancel') }),
  /** An error card's Retry: the failed turn is sent again (the same user message, not a second one). */
  z.object({ type: z.literal('retryTurn'), turnId: itemId }),
  /** An error card's or the meter's "Open settings"; `window` is the context-window setting. */
  z.object({ type: z.literal('openSettings'), target: z.union([SettingsTargetSchema, z.literal('window')]) }),
  z.object({ type: z.literal('selectModel'), id: text(LIMITS.id).check(z.minLength(1)) }),
  z.object({ type: z.literal('setupProvider'), provider: ProviderChoiceSchema }),
  /** After saving an endpoint (and its key): check it and say what it found. */
  z.object({ type: z.literal('checkProvider') }),
  /** Sent once from the setup panel's password field, which is cleared right after; the host puts it in SecretStorage. */
  z.object({ type: z.literal('setApiKey'), key: z.string().check(z.minLength(1)).check(z.maxLength(API_KEY_MAX)) }),
  z.object({ type: z.literal('loadOlder'), beforeId: itemId }),
  z.object({ type: z.literal('viewCapsule'), checkpointId }),
  z.object({ type: z.literal('rewind'), checkpointId }),
  z.object({ type: z.literal('messageAction'), action: MessageActionSchema, entryId: itemId }),
  /** The ‹ › switcher at a fork: show the branch that starts at `entryId` (an item's `branch.previous` or `branch.next`). */
  z.object({ type: z.literal('switchBranch'), entryId: itemId }),
  /** "Undo this compaction" / "Redo" on a compaction card. */
  z.object({ type: z.literal('compactionAction'), action: z.enum(['undo', 'redo']), checkpointId }),
  z.object({ type: z.literal('exportCapsule'), checkpointId }),
  /** A code block's Insert at Cursor, Apply to File (the active editor's selection, or the whole file after a confirmation) or New File. */
  z.object({
    type: z.literal('codeBlock'),
    action: z.enum(['insert', 'apply', 'newFile']),
    code: text(LIMITS.document),
    language: z.optional(text(LIMITS.id)),
  }),
  /** Put text on the clipboard (code blocks, answers, capsules). */
  z.object({ type: z.literal('copy'), text: text(LIMITS.document) }),
  /** A link the user clicked; the webview never navigates, and the host opens only schemes it allows. */
  z.object({ type: z.literal('openLink'), href: text(LIMITS.link).check(z.minLength(1)) }),
]);

export type HostToWebview = z.infer<typeof HostToWebviewSchema>;
export type WebviewCommand = z.infer<typeof WebviewCommandSchema>;
export type WebviewToHost = z.infer<typeof WebviewToHostSchema>;
/** The user intents the chat view provider does not handle itself (it is transport only); it hands them to its `onIntent` listeners. */
export type ChatIntent = Exclude<WebviewToHost, { type: 'ready' | 'webviewError' }>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(error: { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Validates one message received from the webview; never throws. */
export function parseWebviewMessage(data: unknown): ParseResult<WebviewToHost> {
  const r = WebviewToHostSchema.safeParse(data);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error) };
}

/** Validates one host message (tests, and hosts that check what they are about to post); never throws. */
export function parseHostMessage(data: unknown): ParseResult<HostToWebview> {
  const r = HostToWebviewSchema.safeParse(data);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error) };
}
