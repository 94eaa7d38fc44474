// Turns chat-completions responses (streamed chunks or one body) into the engine's ChatStreamEvents.
import { randomBytes } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ChatStreamEvent } from '../../engine/ports.js';
import type { Usage } from '../../engine/transcript/schema.js';

type ToolCallEvent = Extract<ChatStreamEvent, { type: 'tool_call' }>;

/** A provider that omits a call id still needs one: the transcript pairs results with calls by id. */
function freshCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

/** Cache fields outside the SDK's types that OpenAI-compatible providers and gateways put in `usage`. */
interface ProviderUsage {
  readonly prompt_tokens_details?: { readonly cached_tokens?: unknown; readonly cache_write_tokens?: unknown } | null;
  readonly cache_read_input_tokens?: unknown;
  readonly cache_creation_input_tokens?: unknown;
  readonly prompt_cache_hit_tokens?: unknown;
}

function firstCount(...vs: readonly unknown[]): number | undefined {
  for (const v of vs) if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return Math.floor(v);
  return undefined;
}

/**
 * Cache reads come as `prompt_tokens_details.cached_tokens` (OpenAI, OpenRouter), `cache_read_input_tokens`
 * (Anthropic-style gateways) or `prompt_cache_hit_tokens` (DeepSeek); cache writes as `cache_creation_input_tokens`
 * or OpenRouter's `prompt_tokens_details.cache_write_tokens`. Anthropic counts reads and writes outside its input
 * tokens, and some gateways pass that through: when the cache figures exceed prompt_tokens they are added to it, so
 * the prompt total (which calibration relies on) is the whole prompt either way.
 */
export function toUsage(u: CompletionUsage): Usage {
  const p = u as CompletionUsage & ProviderUsage;
  const read = firstCount(p.prompt_tokens_details?.cached_tokens, p.cache_read_input_tokens, p.prompt_cache_hit_tokens);
  const write = firstCount(p.cache_creation_input_tokens, p.prompt_tokens_details?.cache_write_tokens);
  const reported = count(u.prompt_tokens);
  const cacheTokens = (read ?? 0) + (write ?? 0);
  const promptTokens = cacheTokens > reported ? reported + cacheTokens : reported;
  return {
    promptTokens,
    completionTokens: count(u.completion_tokens),
    ...(read === undefined ? {} : { cachedTokens: read }),
    ...(write === undefined ? {} : { cacheWriteTokens: write }),
  };
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reassembles a streamed answer: text is passed on as it arrives, tool calls are joined by their
 * `index` and released (in index order) only once the stream has finished, with the usage and `done`.
 */
export class StreamAssembler {
  private readonly calls = new Map<number, PartialCall[]>();
  private usage: Usage | undefined;
  private finishReason: string | undefined;

  /** The events this chunk releases right away (text deltas). */
  push(chunk: ChatCompletionChunk): ChatStreamEvent[] {
    const out: ChatStreamEvent[] = [];
    if (chunk.usage) this.usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue; // n is never set, so other choices are not ours
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') out.push({ type: 'text', delta: delta.content });
      // A refusal replaces the answer; shown as text so the user sees why nothing else came.
      if (typeof delta.refusal === 'string' && delta.refusal !== '') out.push({ type: 'text', delta: delta.refusal });
      for (const tc of delta.tool_calls ?? []) this.addCallDelta(tc);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return out;
  }

  /** True once a finish_reason arrived: the answer is complete even if the usage chunk never comes. */
  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  /** The events released at the end of a finished stream: tool calls, usage, done. */
  finish(): ChatStreamEvent[] {
    const out: ChatStreamEvent[] = [];
    const indices = [...this.calls.keys()].sort((a, b) => a - b);
    for (const i of indices) {
      for (const c of this.calls.get(i) ?? []) {
        out.push({ type: 'tool_call', call: { id: c.id === '' ? freshCallId() : c.id, name: c.name, arguments: c.arguments } });
      }
    }
    if (this.usage) out.push({ type: 'usage', usage: this.usage });
    out.push({ type: 'done', finishReason: this.finishReason ?? 'stop' });
    return out;
  }

  private addCallDelta(tc: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const index = typeof tc.index === 'number' ? tc.index : 0;
    const list = this.calls.get(index) ?? [];
    this.calls.set(index, list);
    let call = list[list.length - 1];
    // Some gateways send parallel calls all at index 0, told apart only by a new id.
    if (!call || (tc.id !== undefined && tc.id !== '' && call.id !== '' && tc.id !== call.id)) {
      call = { id: '', name: '', arguments: '' };
      list.push(call);
    }
    if (tc.id) call.id = tc.id;
    const name = tc.function?.name;
    // Most servers send the name once; some repeat it on every chunk, a few stream it in pieces.
    if (name && name !== call.name) call.name = call.name === '' ? name : call.name + name;
    const args = tc.function?.arguments;
    if (typeof args === 'string') call.arguments += args;
  }
}

/** The events of a non-streamed answer, in the same order a stream would give them. */
export function completionEvents(completion: ChatCompletion): ChatStreamEvent[] {
  const out: ChatStreamEvent[] = [];
  const choice = (completion.choices ?? []).find((c) => c.index === 0) ?? completion.choices?.[0];
  if (!choice) throw new Error('provider answered without any choices');
  const message = choice.message;
  if (typeof message?.content === 'string' && message.content !== '') out.push({ type: 'text', delta: message.content });
  if (typeof message?.refusal === 'string' && message.refusal !== '') out.push({ type: 'text', delta: message.refusal });
  for (const tc of message?.tool_calls ?? []) {
    if (tc.type !== 'function') continue; // custom (free-form) tools are never declared by us
    const call: ToolCallEvent['call'] = { id: tc.id || freshCallId(), name: tc.function.name, arguments: tc.function.arguments ?? '' };
    out.push({ type: 'tool_call', call });
  }
  if (completion.usage) out.push({ type: 'usage', usage: toUsage(completion.usage) });
  out.push({ type: 'done', finishReason: choice.finish_reason ?? 'stop' });
  return out;
}
