// Types shared by the scripted OpenAI-compatible fake server: scripted replies, matchers, recorded requests.

/** One tool call the fake "model" makes. `arguments` objects are sent as their JSON text. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string | Readonly<Record<string, unknown>>;
  /** Defaults to a fresh `call_…` id. */
  readonly id?: string;
}

/** Overrides of the usage the server reports (defaults: the counted figures). */
interface UsageOverride {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly cachedTokens?: number;
}

/** Options every successful (200) answer accepts. */
interface AnswerOptions {
  readonly finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  readonly usage?: UsageOverride;
  /** Leave `usage` out entirely, like providers that never report it. */
  readonly omitUsage?: boolean;
  /** Streaming only: pause between SSE chunks, so a client can cancel mid-stream. */
  readonly chunkDelayMs?: number;
  /** Streaming only: after this many chunks, stop writing and keep the connection open until the client aborts. */
  readonly stallAfterChunks?: number;
}

export interface TextReply extends AnswerOptions {
  readonly text: string;
}
export interface ToolCallsReply extends AnswerOptions {
  readonly toolCalls: readonly ScriptedToolCall[];
  readonly text?: string;
}
/** An HTTP error. `body` defaults to an OpenAI-shaped error for that status; a string is sent verbatim. */
interface StatusReply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}
interface DelayReply {
  readonly delayMs: number;
  readonly then: ScriptedReply;
}
/** Never answers; the request stays open until the client aborts (or the server closes). */
interface HangReply {
  readonly hang: true;
}
/** 200 whose JSON body is cut off (non-streaming), or a stream whose last `data:` event is cut mid-JSON. */
interface TruncatedJsonReply {
  readonly truncatedJson: true;
}
/** Destroys the socket without an answer (streaming: after `afterChunks` chunks) — a network failure. */
interface DropConnectionReply {
  readonly dropConnection: true;
  readonly afterChunks?: number;
}
/** A stream that ends cleanly after `afterChunks` chunks (default 0) with no finish_reason and no `[DONE]`. */
interface EndStreamEarlyReply {
  readonly endStreamEarly: true;
  readonly afterChunks?: number;
}
/** HTTP 200 with a body that is not what was asked for (an HTML error page from a proxy, say). */
interface RawBodyReply {
  readonly rawBody: string;
  readonly contentType?: string;
}
/** content "" and no tool calls. */
interface EmptyReply {
  readonly empty: true;
}
/** The 400 context_length_exceeded answer, whatever the request's size. */
interface ContextOverflowReply {
  readonly contextOverflow: true;
}

export type ScriptedReply =
  | TextReply
  | ToolCallsReply
  | StatusReply
  | DelayReply
  | HangReply
  | TruncatedJsonReply
  | DropConnectionReply
  | EndStreamEarlyReply
  | RawBodyReply
  | EmptyReply
  | ContextOverflowReply;

/** What a predicate or responder sees about a chat-completions request. */
export interface ChatRequestView {
  /** Position of this request in `server.requests`. */
  readonly index: number;
  readonly body: ChatBody;
  readonly promptTokens: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** The fields of a chat-completions request body the fake reads; everything else is kept as sent. */
export interface ChatBody {
  readonly model: string;
  readonly messages: readonly ChatMessageIn[];
  readonly tools?: readonly unknown[];
  readonly tool_choice?: unknown;
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_usage?: boolean } | null;
  readonly max_tokens?: number | null;
  readonly max_completion_tokens?: number | null;
  readonly [key: string]: unknown;
}

export interface ChatMessageIn {
  readonly role: string;
  readonly content?: unknown;
  readonly name?: string;
  readonly tool_calls?: readonly ToolCallIn[];
  readonly tool_call_id?: string;
  readonly [key: string]: unknown;
}

interface ToolCallIn {
  readonly id?: string;
  readonly type?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

export type Responder = (req: ChatRequestView) => ScriptedReply | Promise<ScriptedReply>;
export type Predicate = (req: ChatRequestView) => boolean;

/**
 * A declarative predicate (usable from JSON scripts too); every given field must hold.
 * `summary`: the request looks like a summary request (tool_choice "none").
 */
export interface MatchSpec {
  readonly summary?: boolean;
  readonly toolChoice?: string;
  readonly lastUserContains?: string;
  readonly anyMessageContains?: string;
  readonly model?: string;
  readonly stream?: boolean;
}

export interface FakeModel {
  readonly id: string;
  /** The window the server enforces (Ollama's num_ctx in use, LM Studio's loaded context). */
  readonly contextLength: number;
  /** The model's own maximum where a shape reports it apart (Ollama model_info, LM Studio max_context_length). Default contextLength. */
  readonly maxContextLength?: number;
  /** An output limit OpenRouter's shape reports as top_provider.max_completion_tokens. */
  readonly maxCompletionTokens?: number;
}

/**
 * How the server states a model's window, after the vendors' documentation:
 * `openai` (default) `context_length` + `max_model_len` in /v1/models; `vllm` `max_model_len` only; `context_window`;
 * `openrouter` `context_length` + `top_provider: {context_length, max_completion_tokens}`;
 * `ollama` nothing in /v1/models, `POST /api/show` with `parameters` "num_ctx N" and `model_info` "<arch>.context_length";
 * `lmstudio` nothing in /v1/models, `GET /api/v0/models[/{id}]` with `loaded_context_length` / `max_context_length`.
 */
export type ModelsShape = 'openai' | 'vllm' | 'context_window' | 'openrouter' | 'ollama' | 'lmstudio';

export interface FakeServerOptions {
  /** Context window for models not listed in `models` (and the default model). Default 65000. */
  readonly window?: number;
  /** Default: one model, `fake-model`, with `window`. */
  readonly models?: readonly FakeModel[];
  /** When set, every /v1 request needs `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Replies consumed in order once no matcher applies. */
  readonly script?: readonly ScriptedReply[];
  /** Used when no matcher applies and the script is empty. Default: answers "ok". */
  readonly fallback?: Responder;
  /** `/v1/models` lists the models without any window field (like servers that report none). Default false. */
  readonly hideModelLimits?: boolean;
  /** No `/v1/models` route at all (404, like some proxies); chat completions still work. Default false. */
  readonly noModelsRoute?: boolean;
  /** How the window is stated (see ModelsShape). Default `openai`. */
  readonly modelsShape?: ModelsShape;
  /** Unknown model ids get 404 model_not_found instead of the default window. Default false. */
  readonly strictModels?: boolean;
  /** Reject tool messages without a preceding tool call and unanswered tool calls, as OpenAI does. Default true. */
  readonly validateToolPairs?: boolean;
  /**
   * Prompt-cache simulation: `cached_tokens` is the token prefix shared with the last request answered 200,
   * 0 below `minTokens`, rounded down to `granularity`. Default {minTokens: 1024, granularity: 128} (OpenAI's);
   * false always reports 0; 'unreported' sends no prompt_tokens_details at all (Ollama, llama.cpp).
   */
  readonly promptCache?: { readonly minTokens: number; readonly granularity: number } | false | 'unreported';
  /** Serve `/_control/*` endpoints so another process can script and inspect the server. Default false. */
  readonly control?: boolean;
  readonly port?: number;
}

/** Everything recorded about one HTTP request (control endpoints excepted). */
export interface RecordedRequest {
  readonly index: number;
  readonly method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** All request headers, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body; undefined when there was none or it did not parse. */
  readonly body: unknown;
  readonly rawBody: string;
  /** Epoch ms when the request arrived. */
  readonly time: number;
  /** Tokens the server counted for a chat request (undefined for other routes or unparseable bodies). */
  readonly promptTokens: number | undefined;
  /** Status answered; undefined while nothing has been sent (hang, delay) or when the connection was dropped. */
  readonly status: number | undefined;
  /** Which kind of reply answered it, e.g. `text`, `toolCalls`, `status`, `contextLength`, `hang`. */
  readonly reply: string | undefined;
  readonly stream: boolean;
  /** The client went away before the answer was complete. */
  readonly aborted: boolean;
  /** The response was fully written. */
  readonly completed: boolean;
}
