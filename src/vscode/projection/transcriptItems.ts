// The active branch as chat items (user, assistant, tools, cards, checkpoints, errors), plus paging for the webview's list.
import { LIMITS, LIST_LIMITS } from '../../protocol/limits.js';
import { CANCELLED_BEFORE_RUN } from '../../engine/agent/toolBatch.js';
import { TASK_TOOL_NAME } from '../../engine/agent/subagentTask.js';
import { inheritedMemoryNotice, PROJECT_MEMORY_REASON } from '../../engine/portable/memoryPolicy.js';
import { touchesFiles } from '../../engine/transcript/effects.js';
import type { Fork } from '../../engine/transcript/branches.js';
import type { CapsuleEntry, Entry, ModelChangeEntry, ToolResultEntry, TurnFault, UserEntry } from '../../engine/transcript/schema.js';
import { windowText } from '../../engine/tokens/modelLimits.js';
import { faultView, withoutRetry } from './faultViews.js';
import type { BranchView, CompactionCard, SubagentView, ToolItem, ToolStatus, TranscriptItem } from '../../protocol/messages.js';

/** Entries that follow a failed turn without making it something other than the last thing that happened. */
const BOOKKEEPING: ReadonlySet<Entry['type']> = new Set(['checkpoint', 'leaf', 'model_change', 'system_update']);

/** Items in a snapshot or one `olderItems` page: enough to fill a tall view several times, small to post. */
export const PAGE_SIZE = 200;
const PREVIEW_CHARS = 4000;
const ARGS_CHARS = 300;

export interface ItemContext {
  /** Items that are not entries (command echoes and answers), by the entry they follow; null = before the first. */
  readonly ephemeral: ReadonlyMap<string | null, readonly TranscriptItem[]>;
  /** The compaction card of a capsule on the branch. */
  readonly card: (capsule: CapsuleEntry) => CompactionCard;
  /** The composer's id of the `send` that became this user entry (the webview matches its pending bubble by it). */
  readonly clientIdOf?: (userEntryId: string) => string | undefined;
  /** The paths in these texts that name existing workspace files (undefined: none, or no workspace). */
  readonly links?: (texts: readonly string[]) => string[] | undefined;
  /** Where the conversation forks at an entry (a message or an answer other branches also continue from). */
  readonly forkOf?: (entryId: string) => Fork | undefined;
  /** The card of the subagent a `task` call runs (docs/subagents.md#seeing-them), from its own entries. */
  readonly subagent?: (assistantEntryId: string, callId: string, result: ToolResultEntry | undefined) => SubagentView | undefined;
}

/** Tools whose applied call changed one file: their rows offer "Show diff". */
const EDIT_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

function effectPaths(e: ToolResultEntry): string[] {
  const f = e.effects;
  return f === undefined ? [] : [...f.read, ...f.created, ...f.modified, ...f.renamed.map((r) => r.to)];
}

/** The switcher's view of a fork; none past the list limit (those branches stay in the tree). */
function branchView(f: Fork | undefined): BranchView | undefined {
  if (f === undefined || f.count > LIST_LIMITS.branches) return undefined;
  return { index: f.index, count: f.count, ...(f.previous === undefined ? {} : { previous: f.previous }), ...(f.next === undefined ? {} : { next: f.next }) };
}

/** Tool items are keyed by the assistant entry that asked, so call ids a provider reuses across turns never collide. */
export function toolItemId(assistantEntryId: string, callId: string): string {
  return `${assistantEntryId}/${callId}`.slice(0, LIMITS.id);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** One line saying what the call was asked to do: its arguments as `key: value`, long values cut. */
export function argsSummary(argsJson: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argsJson);
  } catch {
    return oneLine(argsJson, ARGS_CHARS);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return oneLine(argsJson, ARGS_CHARS);
  const parts = Object.entries(parsed).map(([k, v]) => `${k}: ${typeof v === 'string' ? oneLine(v, 120) : oneLine(JSON.stringify(v) ?? '', 80)}`);
  return oneLine(parts.join(' · '), ARGS_CHARS);
}

function resultPreview(content: string): string {
  return content.length > PREVIEW_CHARS ? `${content.slice(0, PREVIEW_CHARS)}\n…` : content;
}

export function toolStatusOf(r: Pick<ToolResultEntry, 'isError' | 'content'>, cancelled = false): ToolStatus {
  if (cancelled || (r.isError && r.content.startsWith('Cancelled:'))) return 'cancelled';
  return r.isError ? 'error' : 'ok';
}

function userItem(e: UserEntry, clientId?: string, branch?: BranchView, links?: readonly string[]): TranscriptItem {
  const images = Math.min(e.images?.length ?? 0, 100);
  return {
    id: e.id,
    kind: 'user',
    text: e.content,
    timestamp: e.timestamp,
    ...(clientId === undefined ? {} : { clientId: clientId.slice(0, LIMITS.id) }),
    ...(branch === undefined ? {} : { branch }),
    ...(links === undefined ? {} : { links: [...links] }),
    ...(images === 0 ? {} : { images }),
  };
}

function modelChangeText(e: Pick<ModelChangeEntry, 'provider' | 'model' | 'contextWindow' | 'windowSource'>, handoff = false): string {
  const window =
    e.contextWindow === undefined
      ? ''
      : ` (${windowText({ contextWindow: e.contextWindow, ...(e.windowSource === undefined ? {} : { windowSource: e.windowSource }) })})`;
  return `Model: ${e.model} via ${e.provider}${window}${handoff ? ' · the previous model compacted the context first' : ''}`;
}

/** `failure`: the provider fault that ended the turn, which makes the error a card with Retry (while `retry` holds). */
export function turnEndItem(
  id: string,
  status: 'completed' | 'cancelled' | 'failed',
  error: string | undefined,
  timestamp?: string,
  failure?: { readonly fault: TurnFault; readonly turnId: string; readonly retry: boolean },
): TranscriptItem | undefined {
  const ts = timestamp === undefined ? {} : { timestamp };
  const card = failure === undefined ? {} : { fault: faultView(failure.fault, failure.turnId, failure.retry) };
  if (status === 'failed') return { id, kind: 'error', text: (error ?? 'The turn failed.').slice(0, LIMITS.answer), ...ts, ...card };
  if (status === 'cancelled') return { id, kind: 'info', text: error ?? 'Stopped.', ...ts };
  return undefined;
}

/** What one entry changed in the item list: items to add at the end, items already shown that changed. */
export interface ItemChanges {
  readonly appended: readonly TranscriptItem[];
  readonly updated: readonly TranscriptItem[];
}

/**
 * The item list of one branch, built one entry at a time: a snapshot folds the whole branch, the live view folds
 * each appended entry into the same fold, so both show the same items by construction.
 */
export class ItemFold {
  readonly #out: TranscriptItem[] = [];
  /** Open calls: call id → index of its tool item in `#out`. */
  readonly #open = new Map<string, number>();
  #lastModel: ModelChangeEntry | undefined;
  /** The last entry that says something (not a checkpoint, system update or leaf move). */
  #lastSaid: Entry | undefined;
  #tip: string | null = null;
  /**
   * A fork waiting for the answer that shows it: Retry's branches ask the same question, so ‹ 1/2 › goes on the answer;
   * `userAt` is the message's item, which shows it when the turn ends without an answer.
   */
  #pendingFork: { readonly branch: BranchView; readonly userAt?: number } | undefined;
  /** Index in `#out` of the last failed turn's card while it can still be retried. */
  #retryable: number | undefined;

  /**
   * `from`: the fold starts at a message inside the branch (a page of a long chat), with the model in force there; the
   * items before the first entry then belong to an earlier page.
   */
  constructor(
    private readonly ctx: ItemContext,
    from?: { readonly lastModel?: ModelChangeEntry },
  ) {
    if (from === undefined) this.#out.push(...(ctx.ephemeral.get(null) ?? []));
    else this.#lastModel = from.lastModel;
  }

  get items(): readonly TranscriptItem[] {
    return this.#out;
  }

  /** The last entry folded in (null: none yet); an entry appended after it extends this branch. */
  get tip(): string | null {
    return this.#tip;
  }

  /**
   * An item `add` makes: into this entry's changes and the fold's items. A method rather than a closure made per entry:
   * the bundles keep function names (esbuild's keepNames), which costs a defineProperty for every closure made.
   */
  #push(appended: TranscriptItem[], item: TranscriptItem): void {
    appended.push(item);
    this.#out.push(item);
  }

  add(e: Entry): ItemChanges {
    const appended: TranscriptItem[] = [];
    const updated: TranscriptItem[] = [];
    if (this.#retryable !== undefined && !BOOKKEEPING.has(e.type)) this.#endRetry(appended, updated);
    switch (e.type) {
      case 'user': {
        this.#settleFork(updated);
        const fork = this.ctx.forkOf?.(e.id);
        const branch = branchView(fork);
        if (branch !== undefined && fork?.retry === true) this.#pendingFork = { branch, userAt: this.#out.length };
        this.#push(appended, userItem(e, this.ctx.clientIdOf?.(e.id), fork?.retry === true ? undefined : branch, this.ctx.links?.([e.content])));
        break;
      }
      case 'assistant': {
        const own = branchView(this.ctx.forkOf?.(e.id));
        if (own !== undefined) this.#pendingFork = { branch: own };
        const branch = this.#pendingFork?.branch;
        if (e.content.trim() !== '') {
          this.#pendingFork = undefined;
          const links = this.ctx.links?.([e.content]);
          this.#push(appended, {
            id: e.id,
            kind: 'assistant',
            markdown: e.content,
            timestamp: e.timestamp,
            ...(e.model === undefined ? {} : { model: e.model.slice(0, LIMITS.id) }),
            ...(branch === undefined ? {} : { branch }),
            ...(links === undefined ? {} : { links }),
          });
        }
        for (const c of e.toolCalls) {
          this.#open.set(c.id, this.#out.length);
          const subagent = c.name === TASK_TOOL_NAME ? this.ctx.subagent?.(e.id, c.id, undefined) : undefined;
          this.#push(appended, {
            id: toolItemId(e.id, c.id),
            kind: 'tool',
            name: c.name.slice(0, LIMITS.id),
            argsSummary: argsSummary(c.arguments),
            status: 'running',
            timestamp: e.timestamp,
            ...(subagent === undefined ? {} : { subagent }),
          });
        }
        break;
      }
      case 'tool_result': {
        const at = this.#open.get(e.toolCallId);
        const item = at === undefined ? undefined : this.#out[at];
        if (at !== undefined && item?.kind === 'tool') {
          this.#open.delete(e.toolCallId);
          const status = toolStatusOf(e, e.content === CANCELLED_BEFORE_RUN);
          const preview = resultPreview(e.content);
          const links = this.ctx.links?.([item.argsSummary, preview, effectPaths(e).join('\n')]);
          const diff = status === 'ok' && EDIT_TOOLS.has(e.toolName) && (e.effects === undefined || touchesFiles(e.effects));
          const assistantId = item.id.slice(0, Math.max(0, item.id.indexOf('/')));
          const subagent = item.name === TASK_TOOL_NAME ? this.ctx.subagent?.(assistantId, e.toolCallId, e) : undefined;
          const done: ToolItem = {
            ...item,
            status,
            resultPreview: preview,
            ...(e.durationMs === undefined ? {} : { durationMs: e.durationMs }),
            ...(links === undefined ? {} : { links }),
            ...(diff ? { diff } : {}),
            ...(subagent === undefined ? {} : { subagent }),
          };
          this.#out[at] = done;
          // A call answered in the same batch of entries is still new to whoever receives this batch.
          const fresh = appended.findIndex((i) => i.id === done.id);
          if (fresh >= 0) appended[fresh] = done;
          else updated.push(done);
        }
        break;
      }
      case 'capsule':
        this.#push(appended, capsuleItem(e, this.ctx));
        break;
      case 'checkpoint':
        // A message's own checkpoint is the message's rewind action, not a row of its own.
        if (e.forEntryId !== undefined) break;
        this.#push(appended, {
          id: e.id,
          kind: 'checkpoint',
          checkpointId: e.checkpointId,
          checkpointKind: e.kind,
          timestamp: e.timestamp,
          ...(e.note === undefined ? {} : { note: e.note }),
        });
        break;
      case 'model_change':
        // The first model of a chat is not news; a later different one is a switch the user should see.
        // A capsule right before the switch is the protective handoff, and the line says so.
        if (this.#lastModel !== undefined && (this.#lastModel.model !== e.model || this.#lastModel.provider !== e.provider))
          this.#push(appended, { id: e.id, kind: 'info', text: modelChangeText(e, this.#lastSaid?.type === 'capsule'), timestamp: e.timestamp });
        this.#lastModel = e;
        break;
      case 'turn_end': {
        this.#settleFork(updated);
        const item = turnEndItem(e.id, e.status, e.error, e.timestamp, e.fault === undefined ? undefined : { fault: e.fault, turnId: e.turnId, retry: true });
        if (item) this.#push(appended, item);
        if (item?.kind === 'error' && item.fault !== undefined) this.#retryable = this.#out.length - 1;
        break;
      }
      case 'compaction_undo': {
        // The card of the undone (or redone) compaction changes in place; the event itself is a line of its own.
        const at = this.#out.findIndex((i) => i.id === e.capsuleId);
        const card = this.#out[at];
        if (at >= 0 && card?.kind === 'compaction') {
          const { undone: _was, ...rest } = card.card;
          const next: TranscriptItem = { ...card, card: e.action === 'undo' ? { ...rest, undone: true } : rest };
          this.#out[at] = next;
          updated.push(next);
        }
        this.#push(appended, {
          id: e.id,
          kind: 'info',
          text:
            e.action === 'undo'
              ? 'Compaction undone: the model sees the history it had summarized again.'
              : 'Compaction redone: its summary is in force again.',
          timestamp: e.timestamp,
        });
        break;
      }
      case 'system_update':
        // Said once, where it happened: a new chat that starts with Project Memory shows what it inherited.
        if (e.reason === PROJECT_MEMORY_REASON)
          this.#push(appended, { id: e.id, kind: 'info', text: inheritedMemoryNotice(e.content), timestamp: e.timestamp });
        break;
      case 'leaf':
        break;
    }
    if (e.type !== 'checkpoint' && e.type !== 'system_update' && e.type !== 'leaf') this.#lastSaid = e;
    for (const extra of this.ctx.ephemeral.get(e.id) ?? []) this.#push(appended, extra);
    this.#tip = e.id;
    return { appended, updated };
  }

  /** A Retry fork whose turn ended without an answer item: the message shows the switcher instead. */
  #settleFork(updated: TranscriptItem[]): void {
    const pending = this.#pendingFork;
    this.#pendingFork = undefined;
    const item = pending?.userAt === undefined ? undefined : this.#out[pending.userAt];
    if (pending?.userAt === undefined || item?.kind !== 'user') return;
    const next: TranscriptItem = { ...item, branch: pending.branch };
    this.#out[pending.userAt] = next;
    updated.push(next);
  }

  /** Something was said after a failed turn: its card keeps the facts but loses Retry. */
  #endRetry(appended: TranscriptItem[], updated: TranscriptItem[]): void {
    const at = this.#retryable;
    this.#retryable = undefined;
    const item = at === undefined ? undefined : this.#out[at];
    const next = item === undefined ? undefined : withoutRetry(item);
    if (at === undefined || next === undefined) return;
    this.#out[at] = next;
    const fresh = appended.findIndex((i) => i.id === next.id);
    if (fresh >= 0) appended[fresh] = next;
    else updated.push(next);
  }

  /** An item that is not an entry, after the tip (a command's answer, a note on a discarded answer). */
  addExtra(item: TranscriptItem): void {
    this.#out.push(item);
  }

  /** Replaces a folded item by id (a card whose duration became known); false when it is not in this fold. */
  replace(item: TranscriptItem): boolean {
    const at = this.#out.findIndex((i) => i.id === item.id);
    if (at < 0) return false;
    this.#out[at] = item;
    return true;
  }
}

/**
 * A card costs a measurement of the model input before and after its compaction (a tokenization of that span), so it
 * is built when something first reads it: the page the view is sent, not every card of a long chat's branch.
 */
export function capsuleItem(e: CapsuleEntry, ctx: Pick<ItemContext, 'card'>): TranscriptItem {
  let card: CompactionCard | undefined;
  return {
    id: e.id,
    kind: 'compaction',
    get card(): CompactionCard {
      card ??= ctx.card(e);
      return card;
    },
    timestamp: e.timestamp,
  };
}

/** Every item of the branch in order; tool results fold into the item of their call. */
export function branchItems(branch: readonly Entry[], ctx: ItemContext): TranscriptItem[] {
  const fold = new ItemFold(ctx);
  for (const e of branch) fold.add(e);
  return [...fold.items];
}

/** The page of items just before `beforeId` (the newest page without it), oldest first. */
export function pageOf(items: readonly TranscriptItem[], beforeId?: string, size = PAGE_SIZE): { items: TranscriptItem[]; hasMore: boolean } {
  const end = beforeId === undefined ? items.length : items.findIndex((i) => i.id === beforeId);
  if (end < 0) return { items: [], hasMore: false };
  const start = Math.max(0, end - size);
  return { items: items.slice(start, end), hasMore: start > 0 };
}
