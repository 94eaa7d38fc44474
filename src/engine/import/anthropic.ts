// Anthropic Messages JSON ({system, messages} or a bare messages array) → Capsule entries, with tool_use / tool_result blocks kept as tool calls and results.
import type { ToolCall } from '../transcript/schema.js';
import { type ImportBuilder, isRecord, str } from './builder.js';
import { ImportError } from './input.js';

function blocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function text(content: unknown, b: ImportBuilder, where: string): string {
  if (typeof content === 'string') return content;
  const out: string[] = [];
  for (const blk of blocks(content)) {
    if (blk['type'] === 'text' && typeof blk['text'] === 'string') out.push(blk['text']);
    else b.report.drop(`'${str(blk['type']) ?? 'unknown'}' block`, `${where}: only text is kept inside a tool result`);
  }
  return out.join('\n');
}

/** `value` is the parsed document: an object with `messages` (and maybe `system`, `model`) or an array of messages. */
export function convertAnthropic(value: unknown, b: ImportBuilder): void {
  const doc = isRecord(value) ? value : { messages: value };
  const messages = doc['messages'];
  if (!Array.isArray(messages)) throw new ImportError('expected {"messages": [...]} or an array of messages');
  const model = str(doc['model']);
  const system = doc['system'];
  const systemText = typeof system === 'string' ? system : Array.isArray(system) ? text(system, b, 'system') : '';
  if (systemText.trim() !== '') b.system(systemText, 'imported system prompt');
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(m)) throw new ImportError(`${where}: expected a message object`);
    const role = m['role'];
    if (role !== 'user' && role !== 'assistant') throw new ImportError(`${where}: unknown role '${String(role)}' (Anthropic messages are user or assistant)`);
    if (role === 'assistant') {
      const texts: string[] = [];
      const calls: ToolCall[] = [];
      for (const blk of blocks(m['content'])) {
        const t = blk['type'];
        if (t === 'text' && typeof blk['text'] === 'string') texts.push(blk['text']);
        else if (t === 'tool_use' && typeof blk['id'] === 'string' && typeof blk['name'] === 'string')
          calls.push({ id: blk['id'], name: blk['name'], arguments: JSON.stringify(blk['input'] ?? {}) });
        else if (t === 'thinking' || t === 'redacted_thinking')
          b.report.drop('thinking block', 'signed Anthropic reasoning that other providers cannot take back');
        else b.report.drop(`assistant '${String(t)}' block`, 'server-side tools and other blocks have no local equivalent');
      }
      b.assistant(texts.join('\n\n'), calls, { where, ...(model === undefined ? {} : { model }) });
      return;
    }
    const texts: string[] = [];
    for (const blk of blocks(m['content'])) {
      const t = blk['type'];
      if (t === 'tool_result' && typeof blk['tool_use_id'] === 'string')
        b.toolResult(blk['tool_use_id'], text(blk['content'] ?? '', b, where), { where, isError: blk['is_error'] === true });
      else if (t === 'text' && typeof blk['text'] === 'string') texts.push(blk['text']);
      else b.report.drop(`user '${String(t)}' block`, 'images and documents are not imported');
    }
    if (texts.length > 0) b.user(texts.join('\n\n'), { where });
  });
}
