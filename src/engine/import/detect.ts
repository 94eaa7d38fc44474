// Recognises a transcript's format from its structure (never from the file name), or says what it looked like.
import { isRecord } from './builder.js';
import type { Parsed } from './input.js';
import type { ImportFormat } from './report.js';

const CLAUDE_TYPES = new Set(['user', 'assistant', 'summary', 'system', 'queue-operation', 'file-history-snapshot']);
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CODEX_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'reasoning', 'custom_tool_call', 'local_shell_call']);
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use']);

export type Detection = { readonly ok: true; readonly format: ImportFormat } | { readonly ok: false; readonly lookedLike: string };

function keysOf(v: unknown): string {
  return isRecord(v) ? Object.keys(v).slice(0, 6).join(', ') : Array.isArray(v) ? 'an array' : typeof v;
}

/** Anthropic content blocks (tool_use, tool_result, thinking) or a top-level `system` with only user/assistant roles. */
function looksAnthropic(doc: Record<string, unknown> | undefined, messages: readonly unknown[]): boolean {
  const blockTypes = messages.flatMap((m) => (isRecord(m) && Array.isArray(m['content']) ? m['content'].filter(isRecord).map((b) => b['type']) : []));
  if (blockTypes.some((t) => typeof t === 'string' && ANTHROPIC_BLOCKS.has(t))) return true;
  const roles = messages.map((m) => (isRecord(m) ? m['role'] : undefined));
  const openAIish = messages.some(
    (m) => isRecord(m) && (m['tool_calls'] !== undefined || m['tool_call_id'] !== undefined || m['role'] === 'system' || m['role'] === 'tool'),
  );
  return doc !== undefined && doc['system'] !== undefined && !openAIish && roles.every((r) => r === 'user' || r === 'assistant');
}

export function detectFormat(p: Parsed): Detection {
  if (p.kind === 'text') return { ok: false, lookedLike: 'text that is neither JSON nor JSON lines' };
  if (p.kind === 'jsonl') {
    const sample = p.lines.slice(0, 200).map((l) => l.value);
    if (
      sample.some(
        (v) =>
          isRecord(v) &&
          typeof v['type'] === 'string' &&
          CLAUDE_TYPES.has(v['type']) &&
          (v['uuid'] !== undefined || v['sessionId'] !== undefined || v['leafUuid'] !== undefined),
      )
    ) {
      return { ok: true, format: 'claude-code' };
    }
    if (sample.some((v) => isRecord(v) && typeof v['type'] === 'string' && CODEX_TYPES.has(v['type']) && v['payload'] !== undefined))
      return { ok: true, format: 'codex' };
    const first = sample[0];
    if (
      isRecord(first) &&
      first['instructions'] !== undefined &&
      sample.some((v) => isRecord(v) && typeof v['type'] === 'string' && CODEX_ITEMS.has(v['type']))
    ) {
      return { ok: true, format: 'codex' };
    }
    if (sample.length > 0 && sample.every((v) => isRecord(v) && typeof v['role'] === 'string')) {
      return looksAnthropic(undefined, sample) ? { ok: true, format: 'anthropic' } : { ok: true, format: 'openai' };
    }
    return { ok: false, lookedLike: `JSON lines whose first record has keys ${keysOf(first)}` };
  }
  const v = p.value;
  if (isRecord(v)) {
    const tf = v['trajectory_format'];
    if (typeof tf === 'string' && tf.startsWith('mini-swe-agent')) return { ok: true, format: 'mini-swe-agent' };
    if (Array.isArray(v['history']) || (Array.isArray(v['trajectory']) && v['messages'] === undefined)) return { ok: true, format: 'swe-agent' };
    if (Array.isArray(v['messages'])) {
      if (isRecord(v['info']) && v['messages'].some((m) => isRecord(m) && m['role'] === 'exit')) return { ok: true, format: 'mini-swe-agent' };
      if (isRecord(v['info']) && isRecord(v['info']) && 'exit_status' in v['info']) return { ok: true, format: 'mini-swe-agent' };
      return looksAnthropic(v, v['messages']) ? { ok: true, format: 'anthropic' } : { ok: true, format: 'openai' };
    }
    if (typeof v['role'] === 'string') return { ok: true, format: 'openai' };
    return { ok: false, lookedLike: `a JSON object with keys ${keysOf(v)}` };
  }
  if (Array.isArray(v)) {
    if (v.length > 0 && v.every((m) => isRecord(m) && typeof m['role'] === 'string'))
      return looksAnthropic(undefined, v) ? { ok: true, format: 'anthropic' } : { ok: true, format: 'openai' };
    return { ok: false, lookedLike: `a JSON array whose first item is ${keysOf(v[0])}` };
  }
  return { ok: false, lookedLike: `a JSON ${v === null ? 'null' : typeof v}` };
}
