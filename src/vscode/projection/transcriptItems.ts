// The active branch as chat items (user, assistant, tools, cards, checkpoints, errors), plus paging for the webview's list.
import { LIMITS } from '../../protocol/limits.js';
import { CANCELLED_BEFORE_RUN } from '../../engine/agent/toolBatch.js';
import type { CapsuleEntry, Entry, ModelChangeEntry, ToolResultEntry, UserEntry } from '../../engine/transcript/schema.js';
import type { CompactionCard, ToolItem, ToolStatus, TranscriptItem } from '../../protocol/messages.js';

/** Items in a snapshot or one `olderItems` page: enough to fill a tall view several times, small to post. */
export const PAGE_SIZE = 200;
const PREVIEW_CHARS = 4000;
const ARGS_CHARS = 300;

export interface ItemContext {
  /** Items that are not entries (command echoes and answers), by the entry they follow; null = before the first. */
  readonly ephemeral: ReadonlyMap<string | null, readonly TranscriptItem[]>;
  /** The compaction card of a capsule on the branch. */
  readonly card: (capsule: CapsuleEntry) => CompactionCard;
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

export function resultPreview(content: string): string {
  return content.length > PREVIEW_CHARS ? `${content.slice(0, PREVIEW_CHARS)}\n…` : content;
}

export function toolStatusOf(r: Pick<ToolResultEntry, 'isError' | 'content'>, cancelled = false): ToolStatus {
  if (cancelled || (r.isError && r.content.startsWith('Cancelled:'))) return 'cancelled';
  return r.isError ? 'error' : 'ok';
}

export function userItem(e: UserEntry, clientId?: string): TranscriptItem {
  return { id: e.id, kind: 'user', text: e.content, timestamp: e.timestamp, ...(clientId === undefined ? {} : { clientId: clientId.slice(0, LIMITS.id) }) };
}

export function modelChangeText(e: Pick<ModelChangeEntry, 'provider' | 'model' | 'contextWindow'>, handoff = false): string {
  const window = e.contextWindow === undefined ? '' : ` (window ${e.contextWindow.toLocaleString('en-US')} tokens)`;
  return `Model: ${e.model} via ${e.provider}${window}${handoff ? ' · the previous model compacted the context first' : ''}`;
}

export function turnEndItem(id: string, status: 'completed' | 'cancelled' | 'failed', error: string | undefined, timestamp?: string): TranscriptItem | undefined {
  const ts = timestamp === undefined ? {} : { timestamp };
  if (status === 'failed') return { id, kind: 'error', text: (error ?? 'The turn failed.').slice(0, LIMITS.answer), ...ts };
  if (status === 'cancelled') return { id, kind: 'info', text: error ?? 'Stopped.', ...ts };
  return undefined;
}

/** Every item of the branch in order; tool results fold into the item of their call. */
export function branchItems(branch: readonly Entry[], ctx: ItemContext): TranscriptItem[] {
  const out: TranscriptItem[] = [...(ctx.ephemeral.get(null) ?? [])];
  /** Open calls: call id → index of its tool item in `out`. */
  const open = new Map<string, number>();
  let lastModel: ModelChangeEntry | undefined;
  /** The last entry that says something (not a checkpoint, system update or leaf move). */
  let lastSaid: Entry | undefined;
  for (const e of branch) {
    switch (e.type) {
      case 'user':
        out.push(userItem(e));
        break;
      case 'assistant':
        if (e.content.trim() !== '') out.push({ id: e.id, kind: 'assistant', markdown: e.content, timestamp: e.timestamp, ...(e.model === undefined ? {} : { model: e.model.slice(0, LIMITS.id) }) });
        for (const c of e.toolCalls) {
          open.set(c.id, out.length);
          out.push({ id: toolItemId(e.id, c.id), kind: 'tool', name: c.name.slice(0, LIMITS.id), argsSummary: argsSummary(c.arguments), status: 'running', timestamp: e.timestamp });
        }
        break;
      case 'tool_result': {
        const at = open.get(e.toolCallId);
        const item = at === undefined ? undefined : out[at];
        if (at !== undefined && item?.kind === 'tool') {
          open.delete(e.toolCallId);
          const done: ToolItem = { ...item, status: toolStatusOf(e, e.content === CANCELLED_BEFORE_RUN), resultPreview: resultPreview(e.content), ...(e.durationMs === undefined ? {} : { durationMs: e.durationMs }) };
          out[at] = done;
        }
        break;
      }
      case 'capsule':
        out.push({ id: e.id, kind: 'compaction', card: ctx.card(e), timestamp: e.timestamp });
        break;
      case 'checkpoint':
        out.push({ id: e.id, kind: 'checkpoint', checkpointId: e.checkpointId, checkpointKind: e.kind, timestamp: e.timestamp, ...(e.note === undefined ? {} : { note: e.note }) });
        break;
      case 'model_change':
        // The first model of a chat is not news; a later different one is a switch the user should see.
        // A capsule right before the switch is the protective handoff: the live announcement said so too.
        if (lastModel !== undefined && (lastModel.model !== e.model || lastModel.provider !== e.provider)) out.push({ id: e.id, kind: 'info', text: modelChangeText(e, lastSaid?.type === 'capsule'), timestamp: e.timestamp });
        lastModel = e;
        break;
      case 'turn_end': {
        const item = turnEndItem(e.id, e.status, e.error, e.timestamp);
        if (item) out.push(item);
        break;
      }
      case 'system_update':
      case 'leaf':
        break;
    }
    if (e.type !== 'checkpoint' && e.type !== 'system_update' && e.type !== 'leaf') lastSaid = e;
    const extra = ctx.ephemeral.get(e.id);
    if (extra) out.push(...extra);
  }
  return out;
}

/** The page of items just before `beforeId` (the newest page without it), oldest first. */
export function pageOf(items: readonly TranscriptItem[], beforeId?: string, size = PAGE_SIZE): { items: TranscriptItem[]; hasMore: boolean } {
  const end = beforeId === undefined ? items.length : items.findIndex((i) => i.id === beforeId);
  if (end < 0) return { items: [], hasMore: false };
  const start = Math.max(0, end - size);
  return { items: items.slice(start, end), hasMore: start > 0 };
}
