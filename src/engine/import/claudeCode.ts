// Claude Code session JSONL → Capsule entries: message lines with content blocks, split assistant messages joined, tool results paired, sidechains on their own branch.
import type { ToolCall } from '../transcript/schema.js';
import { type ImportBuilder, isRecord, str } from './builder.js';
import { JsonStringBytes } from './jsonString.js';

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
  readonly model: string | undefined;
}

interface Line {
  readonly n: number;
  readonly value: unknown;
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/**
 * A tool_result's content: a string, or text blocks (images are noted, not kept). A string the streamed importer
 * kept as its JSON bytes passes through as they are.
 */
function resultText(content: unknown, b: ImportBuilder): string | JsonStringBytes {
  if (typeof content === 'string' || content instanceof JsonStringBytes) return content;
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

/** The tool_result blocks of a line, with the line's place and time. */
function resultBlocks(n: number, value: unknown): ResultBlock[] {
  if (!isRecord(value) || value['type'] !== 'user' || !isRecord(value['message'])) return [];
  const out: ResultBlock[] = [];
  for (const blk of blocksOf(value['message']['content']))
    if (blk['type'] === 'tool_result' && typeof blk['tool_use_id'] === 'string') out.push({ block: blk, where: `line ${n}`, timestamp: value['timestamp'] });
  return out;
}

/**
 * Where results may still come: the last line (by `at`, any increasing position such as a line number or a byte
 * offset) that may hold a tool_result for a call id, or undefined when no later line does. An over-estimate is safe
 * (the converter only reads further ahead); an under-estimate would leave a late result unpaired.
 */
export type ResultsAhead = (callId: string) => number | undefined;

/**
 * Converts lines as they arrive. Results of parallel calls are written wherever they finished, sometimes after the
 * next assistant line; they pair by id, never by file order (the first result in the file wins). So a message
 * whose results may still come is held: later lines queue (their results noted) until every result is seen or
 * `ahead` says none can follow; then the queue is converted in order. In a well-formed file the queue holds a line
 * or two, so memory does not grow with the file.
 */
export class ClaudeCodeConverter {
  private pending: PendingAssistant | undefined;
  /** Result blocks of lines read but not yet converted, and of converted lines held for the pending message; first wins. */
  private readonly results = new Map<string, ResultBlock>();
  private readonly emitted = new Set<string>();
  private readonly queue: { line: Line; at: number }[] = [];
  /** Position of the latest line received (Infinity once the input ended). */
  private seen = -1;

  constructor(
    private readonly b: ImportBuilder,
    private readonly ahead: ResultsAhead,
  ) {}

  /** Lines received but not converted yet, and result blocks kept for pairing (what the converter holds). */
  get backlog(): { readonly lines: number; readonly results: number } {
    return { lines: this.queue.length, results: this.results.size };
  }

  /** One line, `at` its position in the same order `ahead` uses. */
  line(n: number, value: unknown, at: number = n): void {
    this.seen = at;
    for (const r of resultBlocks(n, value)) {
      const id = r.block['tool_use_id'] as string;
      if (!this.emitted.has(id) && !this.results.has(id)) this.results.set(id, r);
    }
    this.queue.push({ line: { n, value }, at });
    this.drain();
  }

  /** The input ended: converts what is queued and the last message. */
  end(): void {
    this.seen = Number.POSITIVE_INFINITY;
    this.drain();
    this.flush();
    this.b.useChain(undefined);
  }

  /** Whether the pending message's results may still be in lines not received yet. */
  private waiting(): boolean {
    const p = this.pending;
    if (p === undefined || this.seen === Number.POSITIVE_INFINITY) return false;
    for (const c of p.calls) {
      if (this.emitted.has(c.id) || this.results.has(c.id)) continue;
      const last = this.ahead(c.id);
      if (last !== undefined && last > this.seen) return true;
    }
    return false;
  }

  private drain(): void {
    while (this.queue.length > 0 && !this.waiting()) {
      const next = this.queue.shift();
      if (next) this.convert(next.line);
    }
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending) return;
    const b = this.b;
    b.useChain(pending.chain);
    b.assistant(pending.text.join('\n\n'), pending.calls, { where: pending.where, timestamp: pending.timestamp, model: pending.model });
    // Each call's result right after it, wherever the file wrote it.
    for (const c of pending.calls) {
      const r = this.results.get(c.id);
      if (r === undefined || this.emitted.has(c.id)) continue;
      this.emit(c.id);
      b.toolResult(c.id, resultText(r.block['content'], b), { where: r.where, isError: r.block['is_error'] === true, timestamp: r.timestamp });
    }
    this.pending = undefined;
  }

  private emit(id: string): void {
    this.emitted.add(id);
    this.results.delete(id);
  }

  /** A user line holding only results of the pending message's calls continues that message (parallel calls). */
  private onlyPendingResults(blocks: readonly Record<string, unknown>[]): boolean {
    const pending = this.pending;
    return (
      pending !== undefined &&
      blocks.length > 0 &&
      blocks.every((blk) => blk['type'] === 'tool_result' && typeof blk['tool_use_id'] === 'string' && pending.calls.some((c) => c.id === blk['tool_use_id']))
    );
  }

  private convert({ n, value }: Line): void {
    const b = this.b;
    const where = `line ${n}`;
    if (!isRecord(value)) {
      b.report.drop('non-object line', 'not a Claude Code record');
      return;
    }
    const type = str(value['type']) ?? '';
    const why = BOOKKEEPING[type];
    if (why !== undefined) {
      b.report.drop(`${type} line`, why);
      return;
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
      return;
    }
    if (type !== 'user' && type !== 'assistant') {
      b.report.drop(`'${type || 'untyped'}' line`, 'not a conversation record');
      return;
    }
    const chain = value['isSidechain'] === true ? `sidechain:${str(value['agentId']) ?? 'task'}` : undefined;
    const message = isRecord(value['message']) ? value['message'] : undefined;
    if (!message) {
      b.report.drop(`${type} line without a message`, 'nothing to import');
      return;
    }
    if (type === 'assistant') this.assistantLine(message, chain, where, value['timestamp'], n);
    else this.userLine(blocksOf(message['content']), chain, where, value);
  }

  private assistantLine(message: Record<string, unknown>, chain: string | undefined, where: string, timestamp: unknown, n: number): void {
    const b = this.b;
    const messageId = str(message['id']) ?? `line${n}`;
    // Claude Code writes one line per content block of a streamed message; lines with the same id are one message.
    let pending = this.pending;
    if (!pending || pending.messageId !== messageId || pending.chain !== chain) {
      this.flush();
      const model = str(message['model']);
      pending = { messageId, chain, text: [], calls: [], where, timestamp, model: model === '<synthetic>' ? undefined : model };
      this.pending = pending;
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
  }

  private userLine(blocks: readonly Record<string, unknown>[], chain: string | undefined, where: string, value: Record<string, unknown>): void {
    const b = this.b;
    if (this.onlyPendingResults(blocks)) return; // emitted with the message's calls when it ends
    // Results already placed after their calls: a late line of them must not cut the message now being read.
    if (
      blocks.length > 0 &&
      blocks.every((blk) => blk['type'] === 'tool_result' && typeof blk['tool_use_id'] === 'string' && this.emitted.has(blk['tool_use_id']))
    )
      return;
    this.flush();
    b.useChain(chain);
    const texts: string[] = [];
    for (const blk of blocks) {
      const t = blk['type'];
      const id = blk['tool_use_id'];
      if (t === 'tool_result' && typeof id === 'string') {
        // Already placed after its call; a result whose call never came stays where it is (and is reported).
        if (this.emitted.has(id)) continue;
        this.emit(id);
        b.toolResult(id, resultText(blk['content'], b), { where, isError: blk['is_error'] === true, timestamp: value['timestamp'] });
      } else if (t === 'text' && typeof blk['text'] === 'string') texts.push(blk['text']);
      else b.report.drop(`user '${String(t)}' block`, 'only text and tool results are kept');
    }
    if (texts.length > 0) {
      // isMeta: text Claude Code itself put in the user's turn; isCompactSummary: its summary after a compaction.
      const injected = value['isMeta'] === true || value['isCompactSummary'] === true;
      b.user(texts.join('\n\n'), { where, timestamp: value['timestamp'], injected });
    }
  }
}

/** Every line at once (the lines are all in memory): where each call's results are is known exactly. */
export function convertClaudeCode(lines: readonly Line[], b: ImportBuilder): void {
  const lastResult = new Map<string, number>();
  for (const { n, value } of lines) for (const r of resultBlocks(n, value)) lastResult.set(r.block['tool_use_id'] as string, n);
  const c = new ClaudeCodeConverter(b, (id) => lastResult.get(id));
  for (const { n, value } of lines) c.line(n, value);
  c.end();
}
