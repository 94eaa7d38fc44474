// Claude Code session JSONL → Capsule entries: message lines with content blocks, split assistant messages joined, tool results paired, sidechains on their own branch.
import type { ToolCall } from '../transcript/schema.js';
import { type ImportBuilder, isRecord, str } from './builder.js';

/** Line types that carry no conversation: session titles, queue bookkeeping, file snapshots. */
const BOOKKEEPING: Readonly<Record<string, string>> = {
  summary: "Claude Code's own session title",
  'queue-operation': 'queue bookkeeping',
  'file-history-snapshot': 'file-history snapshot for its undo',
};

interface PendingAssistant {
  readonly messageId: string;
  readonly chain: string | undefined;
  text: string[];
  calls: ToolCall[];
  readonly where: string;
  readonly timestamp: unknown;
  readonly model?: string;
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** A tool_result's content: a string, or text blocks (images are noted, not kept). */
function resultText(content: unknown, b: ImportBuilder): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const blk of blocksOf(content)) {
    if (blk['type'] === 'text' && typeof blk['text'] === 'string') parts.push(blk['text']);
    else b.report.drop(`'${str(blk['type']) ?? 'unknown'}' block inside a tool result`, 'only text is kept');
  }
  return parts.join('\n');
}

interface ResultBlock {
  readonly block: Record<string, unknown>;
  readonly where: string;
  readonly timestamp: unknown;
}

/**
 * Every tool_result block by its tool_use_id (the first one wins). Results of parallel calls are written wherever
 * they finished, sometimes after the next assistant line; they pair by id, never by file order.
 */
function resultsById(lines: readonly { readonly n: number; readonly value: unknown }[]): Map<string, ResultBlock> {
  const out = new Map<string, ResultBlock>();
  for (const { n, value } of lines) {
    if (!isRecord(value) || value['type'] !== 'user' || !isRecord(value['message'])) continue;
    for (const blk of blocksOf(value['message']['content'])) {
      const id = blk['tool_use_id'];
      if (blk['type'] === 'tool_result' && typeof id === 'string' && !out.has(id))
        out.set(id, { block: blk, where: `line ${n}`, timestamp: value['timestamp'] });
    }
  }
  return out;
}

export function convertClaudeCode(lines: readonly { readonly n: number; readonly value: unknown }[], b: ImportBuilder): void {
  let pending: PendingAssistant | undefined;
  const results = resultsById(lines);
  const emitted = new Set<string>();
  const flush = (): void => {
    if (!pending) return;
    b.useChain(pending.chain);
    b.assistant(pending.text.join('\n\n'), pending.calls, {
      where: pending.where,
      timestamp: pending.timestamp,
      ...(pending.model === undefined ? {} : { model: pending.model }),
    });
    // Each call's result right after it, wherever the file wrote it.
    for (const c of pending.calls) {
      const r = results.get(c.id);
      if (r === undefined || emitted.has(c.id)) continue;
      emitted.add(c.id);
      b.toolResult(c.id, resultText(r.block['content'], b), { where: r.where, isError: r.block['is_error'] === true, timestamp: r.timestamp });
    }
    pending = undefined;
  };
  /** A user line holding only results of the pending message's calls continues that message (parallel calls). */
  const onlyPendingResults = (blocks: readonly Record<string, unknown>[]): boolean =>
    pending !== undefined &&
    blocks.length > 0 &&
    blocks.every(
      (blk) => blk['type'] === 'tool_result' && typeof blk['tool_use_id'] === 'string' && (pending?.calls.some((c) => c.id === blk['tool_use_id']) ?? false),
    );
  for (const { n, value } of lines) {
    const where = `line ${n}`;
    if (!isRecord(value)) {
      b.report.drop('non-object line', 'not a Claude Code record');
      continue;
    }
    const type = str(value['type']) ?? '';
    const why = BOOKKEEPING[type];
    if (why !== undefined) {
      b.report.drop(`${type} line`, why);
      continue;
    }
    const cwd = str(value['cwd']);
    if (cwd !== undefined && b.cwd !== cwd && b.report.counts.userTurns === 0) b.cwd = cwd;
    if (type === 'system') {
      if (value['subtype'] === 'compact_boundary') b.report.counts.compactBoundaries++;
      else
        b.report.drop(
          `system line${typeof value['subtype'] === 'string' ? ` (${value['subtype']})` : ''}`,
          'a notice Claude Code showed, not part of the conversation',
        );
      continue;
    }
    if (type !== 'user' && type !== 'assistant') {
      b.report.drop(`'${type || 'untyped'}' line`, 'not a conversation record');
      continue;
    }
    const chain = value['isSidechain'] === true ? `sidechain:${str(value['agentId']) ?? 'task'}` : undefined;
    const message = isRecord(value['message']) ? value['message'] : undefined;
    if (!message) {
      b.report.drop(`${type} line without a message`, 'nothing to import');
      continue;
    }
    if (type === 'assistant') {
      const messageId = str(message['id']) ?? `line${n}`;
      // Claude Code writes one line per content block of a streamed message; lines with the same id are one message.
      if (!pending || pending.messageId !== messageId || pending.chain !== chain) {
        flush();
        const model = str(message['model']);
        pending = {
          messageId,
          chain,
          text: [],
          calls: [],
          where,
          timestamp: value['timestamp'],
          ...(model !== undefined && model !== '<synthetic>' ? { model } : {}),
        };
      }
      for (const blk of blocksOf(message['content'])) {
        const t = blk['type'];
        if (t === 'text' && typeof blk['text'] === 'string') pending.text.push(blk['text']);
        else if (t === 'tool_use' && typeof blk['id'] === 'string' && typeof blk['name'] === 'string') {
          pending.calls.push({ id: blk['id'], name: blk['name'], arguments: JSON.stringify(blk['input'] ?? {}) });
        } else if (t === 'thinking' || t === 'redacted_thinking')
          b.report.drop('thinking block', 'signed Anthropic reasoning that other providers cannot take back');
        else b.report.drop(`assistant '${String(t)}' block`, 'not a text or tool_use block');
      }
      continue;
    }
    const blocks = blocksOf(message['content']);
    if (onlyPendingResults(blocks)) continue; // emitted with the message's calls when it ends
    // Results already placed after their calls: a late line of them must not cut the message now being read.
    if (blocks.length > 0 && blocks.every((blk) => blk['type'] === 'tool_result' && typeof blk['tool_use_id'] === 'string' && emitted.has(blk['tool_use_id'])))
      continue;
    flush();
    b.useChain(chain);
    const texts: string[] = [];
    for (const blk of blocks) {
      const t = blk['type'];
      if (t === 'tool_result' && typeof blk['tool_use_id'] === 'string') {
        // Already placed after its call; a result whose call never came stays where it is (and is reported).
        if (emitted.has(blk['tool_use_id'])) continue;
        emitted.add(blk['tool_use_id']);
        b.toolResult(blk['tool_use_id'], resultText(blk['content'], b), { where, isError: blk['is_error'] === true, timestamp: value['timestamp'] });
      } else if (t === 'text' && typeof blk['text'] === 'string') texts.push(blk['text']);
      else b.report.drop(`user '${String(t)}' block`, 'only text and tool results are kept');
    }
    if (texts.length > 0) {
      // isMeta: text Claude Code itself put in the user's turn; isCompactSummary: its summary after a compaction.
      const injected = value['isMeta'] === true || value['isCompactSummary'] === true;
      b.user(texts.join('\n\n'), { where, timestamp: value['timestamp'], injected });
    }
  }
  flush();
  b.useChain(undefined);
}
