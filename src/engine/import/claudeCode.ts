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

export function convertClaudeCode(lines: readonly { readonly n: number; readonly value: unknown }[], b: ImportBuilder): void {
  let pending: PendingAssistant | undefined;
  const flush = (): void => {
    if (!pending) return;
    b.useChain(pending.chain);
    b.assistant(pending.text.join('\n\n'), pending.calls, { where: pending.where, timestamp: pending.timestamp, ...(pending.model === undefined ? {} : { model: pending.model }) });
    pending = undefined;
  };
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
      else b.report.drop(`system line${typeof value['subtype'] === 'string' ? ` (${value['subtype']})` : ''}`, 'a notice Claude Code showed, not part of the conversation');
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
        pending = { messageId, chain, text: [], calls: [], where, timestamp: value['timestamp'], ...(model !== undefined && model !== '<synthetic>' ? { model } : {}) };
      }
      for (const blk of blocksOf(message['content'])) {
        const t = blk['type'];
        if (t === 'text' && typeof blk['text'] === 'string') pending.text.push(blk['text']);
        else if (t === 'tool_use' && typeof blk['id'] === 'string' && typeof blk['name'] === 'string') {
          pending.calls.push({ id: blk['id'], name: blk['name'], arguments: JSON.stringify(blk['input'] ?? {}) });
        } else if (t === 'thinking' || t === 'redacted_thinking') b.report.drop('thinking block', 'signed Anthropic reasoning that other providers cannot take back');
        else b.report.drop(`assistant '${String(t)}' block`, 'not a text or tool_use block');
      }
      continue;
    }
    flush();
    b.useChain(chain);
    const blocks = blocksOf(message['content']);
    const texts: string[] = [];
    for (const blk of blocks) {
      const t = blk['type'];
      if (t === 'tool_result' && typeof blk['tool_use_id'] === 'string') {
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
