// SWE-agent trajectories (.traj: history with tool_calls / tool_call_ids, or thought-action steps) and mini-swe-agent trajectories (bash blocks, <returncode>, the exit role).
import { patchEffects } from '../effects/patchEffects.js';
import { effects, type Effects } from '../transcript/effects.js';
import { type ImportBuilder, isRecord, str } from './builder.js';
import { ImportError } from './input.js';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .flatMap((p) => (typeof p['text'] === 'string' ? [p['text']] : []))
    .join('\n');
}

/** The repository folder the agent worked in, as its prompt states it ("…in the directory /testbed"). */
function workdirIn(texts: readonly string[]): string | undefined {
  for (const t of texts) {
    const m = /\bin the directory\s+`?(\/[\w.@+-]+(?:\/[\w.@+-]+)*)/.exec(t) ?? /\bworking directory is\s+`?(\/[\w.@+-]+(?:\/[\w.@+-]+)*)/i.exec(t);
    if (m?.[1] !== undefined) return m[1].replace(/[.]+$/, '');
  }
  return texts.some((t) => t.includes('/testbed')) ? '/testbed' : undefined;
}

function patchEffectsOf(patch: string): Effects {
  const p = patchEffects(patch);
  return effects({ source: 'inferred', created: p.created, modified: p.modified, deleted: p.deleted, renamed: p.renamed, exitCode: null, failed: false });
}

/**
 * The submitted patch as the result of the agent's last command when that command is still waiting (mini-swe-agent's
 * submit command is answered by the exit message), else as a final `submit` call; its effects are the files it changes.
 */
function submission(b: ImportBuilder, patch: string, status: string | undefined, n: number, waiting?: string): void {
  if (patch.trim() === '' && status === undefined) return;
  const text = patch.trim() === '' ? `(exit status: ${status ?? 'unknown'}; nothing submitted)` : patch;
  if (waiting !== undefined && b.pendingName(waiting) !== undefined) {
    b.toolResult(waiting, text, { where: 'exit', effects: patchEffectsOf(patch) });
    return;
  }
  const id = `submit_${n}`;
  b.assistant('', [{ id, name: 'submit', arguments: JSON.stringify({ exit_status: status ?? 'submitted' }) }], { where: 'info.submission' });
  b.toolResult(id, text, { where: 'info.submission', effects: patchEffectsOf(patch) });
}

export function convertSweAgent(input: unknown, b: ImportBuilder): void {
  // A bare `history` array (what SWE-agent's history processors and many dumps hold) is a .traj without the rest.
  const value: unknown = Array.isArray(input) ? { history: input } : input;
  if (!isRecord(value)) throw new ImportError('expected a .traj object with "history" or "trajectory", or a bare "history" array');
  const info = isRecord(value['info']) ? value['info'] : {};
  const history = Array.isArray(value['history']) ? value['history'] : undefined;
  const steps = Array.isArray(value['trajectory']) ? value['trajectory'] : undefined;
  if (!history && !steps) throw new ImportError('a .traj file needs a "history" or a "trajectory" array');
  let synth = 0;
  let waiting: string | undefined;
  if (history) {
    const texts = history.filter(isRecord).map((m) => textOf(m['content']));
    b.cwd = workdirIn(texts) ?? b.cwd;
    history.forEach((m, i) => {
      const where = `history[${i}]`;
      if (!isRecord(m)) throw new ImportError(`${where}: expected a message object`);
      if (m['is_demo'] === true) {
        b.report.drop('demonstration message', 'an example trajectory the agent injected into its prompt');
        return;
      }
      const role = str(m['role']);
      const content = textOf(m['content']);
      if (role === 'system') b.system(content, 'imported SWE-agent system prompt');
      else if (role === 'assistant') {
        const calls = Array.isArray(m['tool_calls'])
          ? m['tool_calls'].filter(isRecord).flatMap((c) => {
              const fn = isRecord(c['function']) ? c['function'] : {};
              const id = str(c['id']);
              const name = str(fn['name']);
              if (id === undefined || name === undefined) return [];
              return [{ id, name, arguments: typeof fn['arguments'] === 'string' ? fn['arguments'] : JSON.stringify(fn['arguments'] ?? {}) }];
            })
          : [];
        const action = str(m['action']);
        if (calls.length === 0 && action !== undefined && action.trim() !== '') {
          // Thought-action mode: the command is in `action`, its observation is the next user message.
          waiting = `swe_${++synth}`;
          calls.push({ id: waiting, name: 'bash', arguments: JSON.stringify({ command: action.trim() }) });
        } else waiting = undefined;
        b.assistant(str(m['thought']) ?? content, calls, { where });
      } else if (role === 'tool') {
        const ids = Array.isArray(m['tool_call_ids']) ? m['tool_call_ids'].filter((x): x is string => typeof x === 'string') : [];
        const one = str(m['tool_call_id']);
        const target = ids[0] ?? one;
        if (target === undefined) b.report.drop('tool message without tool_call_ids', 'cannot be paired');
        else b.toolResult(target, content, { where });
        for (const extra of ids.slice(1)) b.toolResult(extra, content, { where });
      } else if (role === 'user') {
        if (waiting !== undefined && (m['message_type'] === 'observation' || b.pendingName(waiting) !== undefined)) {
          b.toolResult(waiting, content, { where });
          waiting = undefined;
        } else b.user(content, { where });
      } else b.report.drop(`'${role ?? 'untyped'}' message`, 'not a chat role');
    });
  } else if (steps) {
    steps.forEach((s, i) => {
      if (!isRecord(s)) return;
      const id = `swe_${++synth}`;
      b.assistant(
        str(s['thought']) ?? str(s['response']) ?? '',
        [{ id, name: 'bash', arguments: JSON.stringify({ command: (str(s['action']) ?? '').trim() }) }],
        { where: `trajectory[${i}]` },
      );
      b.toolResult(id, str(s['observation']) ?? '', { where: `trajectory[${i}]` });
    });
  }
  submission(b, str(info['submission']) ?? '', str(info['exit_status']), ++synth);
}

const BASH_BLOCK = /```(?:bash|sh|mswea_bash_command)?[ \t]*\n([\s\S]*?)\n?```/g;

export function convertMiniSweAgent(value: unknown, b: ImportBuilder): void {
  if (!isRecord(value) || !Array.isArray(value['messages'])) throw new ImportError('expected a mini-swe-agent trajectory: {"info": …, "messages": [...]}');
  const info = isRecord(value['info']) ? value['info'] : {};
  const messages = value['messages'];
  b.cwd = workdirIn(messages.filter(isRecord).map((m) => textOf(m['content']))) ?? b.cwd;
  let synth = 0;
  let waiting: string | undefined;
  let exited = false;
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(m)) throw new ImportError(`${where}: expected a message object`);
    const role = str(m['role']);
    const content = textOf(m['content']);
    if (role === 'system') b.system(content, 'imported mini-swe-agent system prompt');
    else if (role === 'assistant') {
      const toolCalls = Array.isArray(m['tool_calls']) ? m['tool_calls'].filter(isRecord) : [];
      const calls = toolCalls.flatMap((c) => {
        const fn = isRecord(c['function']) ? c['function'] : {};
        const id = str(c['id']);
        const name = str(fn['name']);
        return id === undefined || name === undefined
          ? []
          : [{ id, name, arguments: typeof fn['arguments'] === 'string' ? fn['arguments'] : JSON.stringify(fn['arguments'] ?? {}) }];
      });
      if (calls.length === 0) {
        const blocks = [...content.matchAll(BASH_BLOCK)].map((x) => x[1] ?? '');
        // mini-swe-agent runs a reply only when it holds exactly one command block; otherwise it answers with a format error.
        if (blocks.length === 1) {
          waiting = `mini_${++synth}`;
          calls.push({ id: waiting, name: 'bash', arguments: JSON.stringify({ command: (blocks[0] ?? '').trim() }) });
        } else waiting = undefined;
      } else waiting = undefined;
      b.assistant(content, calls, { where });
    } else if (role === 'tool') {
      const id = str(m['tool_call_id']);
      if (id === undefined) b.report.drop('tool message without tool_call_id', 'cannot be paired');
      else b.toolResult(id, content, { where });
    } else if (role === 'user') {
      if (waiting !== undefined) {
        b.toolResult(waiting, content, { where });
        waiting = undefined;
      } else b.user(content, { where, injected: i > 2 && /<returncode>|format error|Please always provide EXACTLY ONE action/i.test(content) });
    } else if (role === 'exit') {
      exited = true;
      const extra = isRecord(m['extra']) ? m['extra'] : {};
      submission(b, str(extra['submission']) ?? str(info['submission']) ?? content, str(extra['exit_status']) ?? str(info['exit_status']), ++synth, waiting);
      waiting = undefined;
    } else b.report.drop(`'${role ?? 'untyped'}' message`, 'not a chat role');
  });
  if (!exited) submission(b, str(info['submission']) ?? '', str(info['exit_status']), ++synth);
}
