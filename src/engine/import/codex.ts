// Codex CLI rollout JSONL → Capsule entries: response items (messages, function and custom tool calls, their outputs), exit codes from exec events.
import { effects } from '../transcript/effects.js';
import type { ToolCall } from '../transcript/schema.js';
import { type ImportBuilder, isRecord, str } from './builder.js';

const RESPONSE_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .flatMap((p) => (typeof p['text'] === 'string' ? [p['text']] : []))
    .join('\n');
}

/** Old rollouts wrap shell results as JSON `{"output": …, "metadata": {"exit_code": N}}`. */
function exitFromOutput(output: string): number | undefined {
  if (!output.trimStart().startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(output);
    const meta = isRecord(v) ? v['metadata'] : undefined;
    const code = isRecord(meta) ? meta['exit_code'] : undefined;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Newer shell outputs are text: `Exit code: N` (shell tool) or `Process exited with code N` (unified exec, the
 * Desktop app), on a line of their own among `Wall time:` and `Output:`.
 */
function exitFromText(output: string): number | undefined {
  const m = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/m.exec(output.slice(0, 2000));
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

interface Item {
  readonly n: number;
  readonly timestamp: unknown;
  readonly payload: Record<string, unknown>;
}

/** Rollout lines are `{timestamp, type, payload}`; the oldest releases wrote bare response items after a metadata line. */
function itemsOf(
  lines: readonly { readonly n: number; readonly value: unknown }[],
  b: ImportBuilder,
): { items: Item[]; exits: Map<string, { code: number; ok: boolean }> } {
  const items: Item[] = [];
  const exits = new Map<string, { code: number; ok: boolean }>();
  for (const { n, value } of lines) {
    if (!isRecord(value)) {
      b.report.drop('non-object line', 'not a rollout record');
      continue;
    }
    const type = str(value['type']);
    const payload = isRecord(value['payload']) ? value['payload'] : undefined;
    if (type === 'session_meta' && payload) {
      const cwd = str(payload['cwd']);
      if (cwd !== undefined) b.cwd = cwd;
      const instructions = str(payload['instructions']);
      if (instructions !== undefined && instructions.trim() !== '') b.system(instructions, 'imported Codex instructions', value['timestamp']);
      continue;
    }
    if (type === 'turn_context' && payload) {
      items.push({ n, timestamp: value['timestamp'], payload: { type: '__turn_context', ...payload } });
      continue;
    }
    if (type === 'event_msg' && payload) {
      const ev = str(payload['type']);
      const callId = str(payload['call_id']);
      if (ev === 'user_message' && typeof payload['message'] === 'string')
        items.push({ n, timestamp: value['timestamp'], payload: { type: '__user_message', message: payload['message'] } });
      else if (ev === 'exec_command_end' && callId !== undefined && typeof payload['exit_code'] === 'number')
        exits.set(callId, { code: payload['exit_code'], ok: payload['exit_code'] === 0 });
      else if (ev === 'patch_apply_end' && callId !== undefined && typeof payload['success'] === 'boolean')
        exits.set(callId, { code: payload['success'] ? 0 : 1, ok: payload['success'] });
      else b.report.drop(`event_msg ${ev ?? ''}`.trim(), 'a UI or bookkeeping event; the conversation itself is in the response items');
      continue;
    }
    if (type === 'compacted' && payload) {
      items.push({ n, timestamp: value['timestamp'], payload: { type: '__compacted', ...payload } });
      continue;
    }
    if (type === 'response_item' && payload) {
      items.push({ n, timestamp: value['timestamp'], payload });
      continue;
    }
    if (type !== undefined && RESPONSE_TYPES.has(type)) {
      items.push({ n, timestamp: value['timestamp'], payload: value });
      continue;
    }
    if (value['record_type'] === 'state' || (value['instructions'] !== undefined && value['id'] !== undefined)) {
      const instructions = str(value['instructions']);
      if (instructions !== undefined && instructions.trim() !== '') b.system(instructions, 'imported Codex instructions', value['timestamp']);
      else b.report.drop('state line', 'rollout bookkeeping');
      continue;
    }
    b.report.drop(`'${type ?? 'untyped'}' line`, 'not a rollout record');
  }
  return { items, exits };
}

export function convertCodex(lines: readonly { readonly n: number; readonly value: unknown }[], b: ImportBuilder): void {
  const { items, exits } = itemsOf(lines, b);
  // The CLI writes each request twice (a user response item and a user_message event); the Desktop app writes only
  // the event, its user response items being injected context. An event whose text no user item carries is the request.
  const userItems = new Set(
    items.filter((i) => str(i.payload['type']) === 'message' && str(i.payload['role']) === 'user').map((i) => normalized(textOf(i.payload['content']))),
  );
  let model: string | undefined;
  let pending: { text: string; calls: ToolCall[]; where: string; timestamp: unknown } | undefined;
  const flush = (): void => {
    if (!pending) return;
    b.assistant(pending.text, pending.calls, { where: pending.where, timestamp: pending.timestamp, ...(model === undefined ? {} : { model }) });
    pending = undefined;
  };
  const call = (c: ToolCall, where: string, timestamp: unknown): void => {
    pending ??= { text: '', calls: [], where, timestamp };
    pending.calls.push(c);
  };
  for (const { n, timestamp, payload: p } of items) {
    const where = `line ${n}`;
    const type = str(p['type']);
    switch (type) {
      case '__turn_context':
        model = str(p['model']) ?? model;
        break;
      case '__user_message': {
        const text = str(p['message']) ?? '';
        if (userItems.has(normalized(text))) {
          b.report.drop('event_msg user_message', 'the same request is in the response items');
          break;
        }
        flush();
        b.user(text, { where, timestamp });
        break;
      }
      case '__compacted':
        flush();
        b.report.counts.compactBoundaries++;
        b.user(str(p['message']) ?? '', { where, timestamp, injected: true });
        break;
      case 'message': {
        const role = str(p['role']);
        const text = textOf(p['content']);
        if (role === 'assistant') {
          flush();
          pending = { text, calls: [], where, timestamp };
        } else if (role === 'user') {
          flush();
          b.user(text, { where, timestamp });
        } else {
          flush();
          b.system(text, `imported Codex ${role ?? 'system'} message`, timestamp);
        }
        break;
      }
      case 'reasoning':
        b.report.drop('reasoning item', 'encrypted reasoning only the provider that wrote it can read');
        break;
      case 'function_call': {
        const id = str(p['call_id']) ?? str(p['id']);
        const name = str(p['name']);
        if (id === undefined || name === undefined) b.report.drop('function_call without call_id or name', 'cannot be paired');
        else call({ id, name, arguments: typeof p['arguments'] === 'string' ? p['arguments'] : JSON.stringify(p['arguments'] ?? {}) }, where, timestamp);
        break;
      }
      case 'custom_tool_call': {
        const id = str(p['call_id']) ?? str(p['id']);
        const name = str(p['name']);
        if (id === undefined || name === undefined) b.report.drop('custom_tool_call without call_id or name', 'cannot be paired');
        else call({ id, name, arguments: str(p['input']) ?? '' }, where, timestamp);
        break;
      }
      case 'local_shell_call': {
        const id = str(p['call_id']) ?? str(p['id']);
        const action = isRecord(p['action']) ? p['action'] : {};
        if (id === undefined) b.report.drop('local_shell_call without call_id', 'cannot be paired');
        else call({ id, name: 'shell', arguments: JSON.stringify({ command: action['command'], workdir: action['working_directory'] }) }, where, timestamp);
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        flush();
        const id = str(p['call_id']) ?? '';
        const raw = p['output'];
        const output = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw['content'] === 'string' ? raw['content'] : JSON.stringify(raw ?? '');
        const exit =
          exits.get(id) ??
          (() => {
            const code = exitFromOutput(output) ?? exitFromText(output);
            return code === undefined ? undefined : { code, ok: code === 0 };
          })();
        // A structured exit code is exact about the status; the files it touched are still read from the command text.
        const e = exit === undefined ? undefined : effects({ source: 'inferred', exitCode: exit.code, failed: !exit.ok });
        b.toolResult(id, output, { where, timestamp, isError: exit !== undefined && !exit.ok, ...(e === undefined ? {} : { effects: e }) });
        break;
      }
      case 'web_search_call':
        b.report.drop('web_search_call', 'a hosted search with no local result');
        break;
      default:
        b.report.drop(`response item '${type ?? 'untyped'}'`, 'not a message or tool call');
    }
  }
  flush();
}
