// The narrow interfaces actions and views use: what the open chat is, what to tell the user, and the work queue.
import type { ChatFacade } from '../../node/chatFacade.js';
import type { OfflineChat } from '../../node/offlineChat.js';
import type { SubagentEvent } from '../../node/subagents/subagentRunner.js';
import type { Budget } from '../../engine/tokens/budget.js';
import type { AgentEvent } from '../../engine/agent/agentEvents.js';
import type { Entry } from '../../engine/transcript/schema.js';
import type { Attachment, ModelOption, QueuedInput, SetupState } from '../../protocol/messages.js';
import type { MeterBasis } from './meterBasis.js';

/**
 * The open chat, as methods (docs/ARCHITECTURE.md#the-facade): the agent's facade when a model is set up
 * (`online: true`: turns, compactions, checkpoints), else one over the session file alone (read, measure, rewind).
 */
export type OpenChatFacade = ChatFacade | OfflineChat;

/** What is open (its facade), why a chat or a model is missing, and its figures. */
export interface OpenChat {
  readonly open: OpenChatFacade | undefined;
  /** Why no chat or no model is available, in words. */
  readonly problem: string | undefined;
  readonly budget: Budget | undefined;
  readonly models: readonly ModelOption[];
  basis(): MeterBasis;
  currentModelId(): string | null;
}

/** Answers to the user: kept in the chat after the current leaf (not entries), or a transient notice. */
export interface ChatOutput {
  /** What the user typed, echoed when it is not a model turn (a command, or a message that could not be sent). */
  echo(text: string, clientId?: string): void;
  info(text: string): void;
  fail(text: string): void;
  notify(level: 'info' | 'warning' | 'error', text: string): void;
  /** Opens the capsule made at `checkpointId` in the chat's viewer (or says there is none). */
  showCapsule(checkpointId: string): void;
  /** Puts text in the composer, to edit and send again. */
  fillComposer(text: string): void;
  /** Inserts a mention at the composer's caret ("Add Selection to Chat"); the attachment goes with the next message. */
  mention(mention: string, attachment: Attachment): void;
}

/** A job's work, a closure its caller built (a slash command's handler, a palette action); Stop aborts `signal`. */
export type JobRun = (signal: AbortSignal) => Promise<void>;

/**
 * `budget`: new figures. `tree`: the chat or its checkpoints changed. `state`: everything the webview shows changed
 * (`cards`: earlier compaction cards must be measured again). `appended`: an entry reached the open chat's store.
 * `agent`: an event of the running agent. `opened` / `closed`: an agent started or stopped for the open chat.
 * `turn`: the next turn belongs to this `send`. `echo`, `fail`, `notice`: what the service itself tells the user (the
 * projection shows them; the service sits below it, so it says them as events rather than calling it).
 */
export type ChatChange =
  | { readonly kind: 'budget' }
  | { readonly kind: 'tree' }
  | { readonly kind: 'state'; readonly cards: boolean }
  | { readonly kind: 'appended'; readonly entry: Entry }
  | { readonly kind: 'setup'; readonly setup: SetupState }
  | { readonly kind: 'queue'; readonly items: readonly QueuedInput[] }
  | { readonly kind: 'busy'; readonly busy: boolean }
  | { readonly kind: 'agent'; readonly event: AgentEvent }
  /** A subagent's progress (docs/subagents.md#seeing-them): its card on the task row follows it. */
  | { readonly kind: 'subagent'; readonly event: SubagentEvent }
  | { readonly kind: 'opened'; readonly durations: Map<string, number>; readonly model: string; readonly provider: string }
  | { readonly kind: 'closed' }
  | { readonly kind: 'turn'; readonly clientId: string | undefined }
  | { readonly kind: 'echo'; readonly text: string; readonly clientId: string | undefined }
  | { readonly kind: 'fail'; readonly text: string }
  | { readonly kind: 'notice'; readonly level: 'info' | 'warning' | 'error'; readonly text: string };
