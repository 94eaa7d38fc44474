// The ChatModel port over any OpenAI-compatible chat-completions endpoint (OpenAI, Azure, OpenRouter, vLLM, Ollama, LM Studio).
import OpenAI from 'openai';
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../engine/ports.js';
import { endpointHost } from './endpointHost.js';
import { errorBodyFetch } from './errorBodies.js';
import { completionEvents, StreamAssembler } from './openaiEvents.js';
import { toOpenAIParams } from './openaiMessages.js';
import { DEFAULT_PROVIDER_LABEL } from './providerLabel.js';

export { toOpenAIParams } from './openaiMessages.js';

/** Sent when no key is configured: local servers ignore it, and the client refuses to run without one. */
const NO_KEY_PLACEHOLDER = 'capsule-no-key';

export interface OpenAIModelOptions {
  readonly baseURL: string;
  /** Empty for keyless local servers (Ollama, LM Studio). */
  readonly apiKey: string;
  readonly model: string;
  /** Label recorded with each reply, e.g. `openai-compatible`, `openrouter`. */
  readonly provider?: string;
  /** Time allowed until the response headers arrive; the client's default (10 min) otherwise. */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Send the request's per-chat cache key (`prompt_cache_key`, `user`); default true. Off for endpoints that
   * reject unknown fields (strict vLLM and similar answer 400 "Extra inputs are not permitted").
   */
  readonly sendCacheKey?: boolean;
}

export interface ClientOptions {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One configured client. Retries are off because the engine owns the retry policy (docs/behaviour.md#agent), and the client's
 * own logging is off because every failure is rethrown to the engine, which logs it once.
 */
export function createOpenAIClient(opts: ClientOptions): OpenAI {
  return new OpenAI({
    baseURL: opts.baseURL,
    // Passing the key explicitly also keeps the client from falling back to OPENAI_API_KEY for a third-party URL.
    apiKey: opts.apiKey === '' ? NO_KEY_PLACEHOLDER : opts.apiKey,
    maxRetries: 0,
    logLevel: 'off',
    fetch: errorBodyFetch(),
    ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
    ...(opts.headers ? { defaultHeaders: { ...opts.headers } } : {}),
  });
}

/** A provider that echoes the key it refused must not put it on an error card or in the log. */
function withoutKey(e: unknown, key: string): unknown {
  if (key.length < 8 || !(e instanceof Error) || !e.message.includes(key)) return e;
  e.message = e.message.split(key).join('[API key]');
  return e;
}

/** The error a cancelled request rejects with; the engine tells cancellation from failure by this name. */
export function abortError(): Error {
  return new DOMException('The request was cancelled.', 'AbortError');
}

export class OpenAIChatModel implements ChatModel {
  readonly provider: string;
  readonly model: string;
  readonly endpoint: string;
  private readonly client: OpenAI;
  private readonly sendCacheKey: boolean;
  private readonly apiKey: string;

  constructor(opts: OpenAIModelOptions) {
    this.provider = opts.provider ?? DEFAULT_PROVIDER_LABEL;
    this.model = opts.model;
    this.endpoint = endpointHost(opts.baseURL);
    this.apiKey = opts.apiKey;
    this.client = createOpenAIClient(opts);
    this.sendCacheKey = opts.sendCacheKey ?? true;
  }

  async *chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent> {
    const { cacheKey, ...rest } = request;
    const params = toOpenAIParams(this.sendCacheKey && cacheKey !== undefined ? { ...rest, cacheKey } : rest, this.model);
    try {
      yield* this.run(params, signal);
    } catch (e) {
      // A cancel shows up as the client's plain-named APIUserAbortError, or (mid-stream, where the client ends the
      // iteration quietly) as the unfinished-stream error below; either way the caller gets an AbortError.
      if (signal.aborted) throw abortError();
      throw withoutKey(e, this.apiKey);
    }
  }

  private async *run(params: ChatCompletionCreateParams, signal: AbortSignal): AsyncIterable<ChatStreamEvent> {
    if (params.stream !== true) {
      const completion = await this.client.chat.completions.create(params, { signal });
      yield* completionEvents(completion);
      return;
    }
    const stream = await this.client.chat.completions.create(params, { signal });
    const assembler = new StreamAssembler();
    for await (const chunk of stream) {
      for (const event of assembler.push(chunk)) yield event;
    }
    // Cancelled after the finish chunk but before the usage chunk: still a cancel, as the caller asked.
    if (signal.aborted) throw abortError();
    // A stream that stops before any finish_reason lost the rest of the answer (or was never SSE): a transient fault to retry.
    if (!assembler.finished) throw Object.assign(new Error('the stream ended before the answer was complete'), { name: 'IncompleteStreamError' });
    yield* assembler.finish();
  }
}
