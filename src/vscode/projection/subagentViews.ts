// A subagent's card on its `task` row (docs/subagents.md#seeing-them): its state from its own entries (plus the live "compacting"), and its transcript as paged lines.
import { LIMITS } from '../../protocol/limits.js';
import { SUBAGENT_PAGE_LINES, type SubagentLine, type SubagentView } from '../../protocol/messages.js';
import type { Entry, ToolResultEntry } from '../../engine/transcript/schema.js';
import { argsSummary, toolStatusOf } from './transcriptItems.js';

/** Why a stopped subagent stopped, from its task result ("… stopped without an answer: <why>. Nothing …"). */
function stopReason(content: string): string {
  const m = /stopped without an answer: (.*?)\. Nothing it found/s.exec(content);
  if (m?.[1] !== undefined) return m[1];
  const first = content.split('\n')[0] ?? '';
  return first.slice(0, 300);
}

/**
 * The card of the subagent that answers call `callId`: `entries` are its own (file order), `result` the parent's
 * task result when it has one. Undefined before the subagent wrote anything (its run has not started).
 */
export function subagentView(entries: readonly Entry[], result: ToolResultEntry | undefined, compacting = false): SubagentView | undefined {
  const first = entries[0]?.subagent;
  if (first === undefined) return undefined;
  let description = '';
  let requests = 0;
  let tokens = 0;
  let compactions = 0;
  let contextTokens = 0;
  let contextWindow = 0;
  for (const e of entries) {
    if (description === '' && e.subagent?.description !== undefined) description = e.subagent.description;
    if (e.type === 'assistant') {
      requests += 1;
      const u = e.usage;
      tokens += (u?.promptTokens ?? 0) + (u?.completionTokens ?? 0);
      // The context of its last request: what it sent plus what came back, which the next request sends again.
      if (u !== undefined) contextTokens = u.promptTokens + u.completionTokens;
    } else if (e.type === 'capsule') {
      compactions += 1;
      contextTokens = e.tokensAfter;
    } else if (e.type === 'model_change') contextWindow = e.contextWindow ?? contextWindow;
  }
  const base = {
    id: first.id.slice(0, LIMITS.id),
    description: description.slice(0, LIMITS.label),
    contextTokens,
    contextWindow,
    requests,
    tokens,
    compactions,
  };
  if (result === undefined) return { ...base, status: compacting ? 'compacting' : 'running' };
  if (!result.isError) return { ...base, status: 'done' };
  return { ...base, status: 'stopped', reason: stopReason(result.content).slice(0, LIMITS.notice) };
}

/** The subagent's transcript as lines: its prompt, each answer, each tool call with its result, each compaction. */
export function subagentLines(entries: readonly Entry[]): SubagentLine[] {
  const results = new Map<string, ToolResultEntry>();
  for (const e of entries) if (e.type === 'tool_result') results.set(e.toolCallId, e);
  const cut = (s: string): string => (s.length > 2000 ? `${s.slice(0, 2000)}…` : s);
  const lines: SubagentLine[] = [];
  for (const e of entries) {
    if (e.type === 'user') lines.push({ kind: 'user', text: cut(e.content) });
    else if (e.type === 'assistant') {
      if (e.content.trim() !== '') lines.push({ kind: 'assistant', text: cut(e.content) });
      for (const c of e.toolCalls) {
        const r = results.get(c.id);
        const args = argsSummary(c.arguments);
        lines.push({
          kind: 'tool',
          name: c.name.slice(0, LIMITS.id),
          text: r === undefined ? args : `${args}\n→ ${cut(r.content)}`,
          status: r === undefined ? 'running' : toolStatusOf(r),
        });
      }
    } else if (e.type === 'capsule')
      lines.push({
        kind: 'compaction',
        text: `Compacted its context: ${e.tokensBefore.toLocaleString('en-US')} → ${e.tokensAfter.toLocaleString('en-US')} tokens`,
      });
  }
  return lines;
}

/** Page `page` (1 = oldest) of the lines, and how many pages there are. */
export function subagentPage(lines: readonly SubagentLine[], page: number): { readonly page: number; readonly pages: number; readonly lines: SubagentLine[] } {
  const pages = Math.max(1, Math.ceil(lines.length / SUBAGENT_PAGE_LINES));
  const p = Math.min(Math.max(1, page), pages);
  return { page: p, pages, lines: lines.slice((p - 1) * SUBAGENT_PAGE_LINES, p * SUBAGENT_PAGE_LINES) };
}

/** The assistant entry and call inside a tool item's id (`<assistant entry id>/<call id>`). */
export function rowOfItem(itemId: string): { readonly assistantId: string; readonly callId: string } | undefined {
  const at = itemId.indexOf('/');
  return at < 0 ? undefined : { assistantId: itemId.slice(0, at), callId: itemId.slice(at + 1) };
}

/**
 * The entries of each subagent by the parent's task row (anchor entry and call id: a provider may reuse call ids
 * across turns), read once per size of the file: a snapshot of a long chat asks for every task row's card, and a
 * scan of the whole file per row would be quadratic.
 */
export class SubagentIndex {
  #size = -1;
  #byRow = new Map<string, Entry[]>();

  constructor(private readonly all: () => readonly Entry[]) {}

  of(assistantEntryId: string, callId: string): readonly Entry[] {
    const all = this.all();
    if (all.length !== this.#size) {
      const anchors = new Map<string, string>();
      const byRow = new Map<string, Entry[]>();
      for (const e of all) {
        const ref = e.subagent;
        if (ref === undefined) continue;
        if (ref.anchorId !== undefined && !anchors.has(ref.id)) anchors.set(ref.id, ref.anchorId);
        const key = `${anchors.get(ref.id) ?? ''}/${ref.toolCallId}`;
        const list = byRow.get(key);
        if (list === undefined) byRow.set(key, [e]);
        else list.push(e);
      }
      this.#byRow = byRow;
      this.#size = all.length;
    }
    return this.#byRow.get(`${assistantEntryId}/${callId}`) ?? this.#byRow.get(`/${callId}`) ?? [];
  }
}
