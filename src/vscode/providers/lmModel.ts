// The ChatModel port over the VS Code Language Model API (`vscode.lm`, e.g. Copilot models), plus model listing, limits and token counting.
import * as vscode from 'vscode';
import { matchesGenericOverflow, matchesKnownOverflow } from '../../engine/provider/overflowPatterns.js';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../engine/ports.js';
import { resolveModelInfo, type ModelInfo, type PartialLimits } from '../../engine/tokens/modelLimits.js';
import { lmImagePart, toLmMessages, toLmRequestOptions } from './lmMessages.js';

export { SYSTEM_PREFACE, toLmMessages, toLmRequestOptions } from './lmMessages.js';

/**
 * The LM API reports only an input limit. The window the engine works with is that limit plus this output
 * allowance, so hardLimit = window - output - reserve stays below maxInputTokens.
 */
export const DEFAULT_LM_MAX_OUTPUT_TOKENS = 4_096;

/** How many countTokens calls run at once: each is a round trip to the vendor's extension. */
const COUNT_CONCURRENCY = 8;

/** The error a cancelled request rejects with; the engine tells cancellation from failure by this name. */
export function abortError(): Error {
  return new DOMException('The request was cancelled.', 'AbortError');
}

export type LmErrorKind = 'NoPermissions' | 'Blocked' | 'NotFound';
const LM_ERROR_KINDS: readonly LmErrorKind[] = ['NoPermissions', 'Blocked', 'NotFound'];
/** Codes no retry or overflow rule knows, so the engine treats these as fatal and shows the message. */
const LM_ERROR_CODES: Readonly<Record<LmErrorKind, string>> = { NoPermissions: 'lm_no_permissions', Blocked: 'lm_blocked', NotFound: 'lm_not_found' };

/** A LanguageModelError the user can act on, reworded; `cause` keeps the original for the log. */
export class LmRequestError extends Error {
  override readonly name = 'LmRequestError';
  readonly code: string;
  constructor(
    readonly kind: LmErrorKind,
    message: string,
    cause: unknown,
  ) {
    super(message, { cause });
    this.code = LM_ERROR_CODES[kind];
  }
}

function lmErrorKind(e: unknown): LmErrorKind | undefined {
  const isLm = e instanceof vscode.LanguageModelError || (e instanceof Error && e.name === 'LanguageModelError');
  if (!isLm) return undefined;
  const code: unknown = (e as { readonly code?: unknown }).code;
  // The API documents comparing with `LanguageModelError.NotFound.name`; the literal covers a renamed build.
  return LM_ERROR_KINDS.find((k) => code === k || code === vscode.LanguageModelError[k].name);
}

function clearMessage(kind: LmErrorKind, m: vscode.LanguageModelChat, original: string): string {
  const who = `the language model "${m.name}" (${m.vendor})`;
  const detail = original === '' ? '' : ` [${original}]`;
  switch (kind) {
    case 'NoPermissions':
      return `Capsule is not allowed to use ${who}. Allow access when VS Code asks (or via Accounts > Manage Language Model Access), then send again.${detail}`;
    case 'Blocked':
      return `${who} refused the request, usually because a usage quota or rate limit was reached. Wait a while or choose another model.${detail}`;
    case 'NotFound':
      return `${who} is no longer available (id ${m.id}). Choose another model.${detail}`;
  }
}

/**
 * Cancellation wins over whatever the API threw while being cancelled. The three LanguageModelError codes a user
 * can act on are reworded; everything else, and any text the engine recognises as a context overflow, passes
 * through unchanged so the engine's classifier sees the provider's own wording.
 */
export function lmFailure(e: unknown, m: vscode.LanguageModelChat, signal: AbortSignal): unknown {
  if (signal.aborted) return abortError();
  const kind = lmErrorKind(e);
  if (kind === undefined) return e;
  const text = e instanceof Error ? e.message : '';
  if (matchesKnownOverflow(text) || matchesGenericOverflow(text)) return e;
  return new LmRequestError(kind, clearMessage(kind, m, text), e);
}

/**
 * Settles like `p`, or rejects with an AbortError as soon as the signal fires, so an LM stream that ignores its
 * token cannot hold the turn. `p` keeps a handler either way: a late rejection is not left unhandled.
 */
function raceAbort<T>(p: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(p).then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** A CancellationTokenSource that follows the signal; this is where Capsule's AbortSignals become tokens (docs/ARCHITECTURE.md rule 8). */
function tokenFor(signal: AbortSignal | undefined): { readonly cts: vscode.CancellationTokenSource; dispose(): void } {
  const cts = new vscode.CancellationTokenSource();
  const onAbort = (): void => cts.cancel();
  if (signal?.aborted === true) cts.cancel();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    cts,
    dispose: () => {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    },
  };
}

/**
 * The model takes images: VS Code reports `capabilities.supportsImageToText` (not in the 1.100 typings, read where
 * present) and offers the image part to send them with. Anything less is "no", and images stay a one-line note.
 */
export function lmTakesImages(m: vscode.LanguageModelChat): boolean {
  const caps = (m as unknown as { readonly capabilities?: { readonly supportsImageToText?: unknown } }).capabilities;
  return caps?.supportsImageToText === true && lmImagePart() !== undefined;
}

export class VsCodeLmChatModel implements ChatModel {
  readonly provider: string;
  readonly model: string;
  readonly #images: boolean;

  constructor(private readonly lm: vscode.LanguageModelChat) {
    this.provider = `vscode-lm:${lm.vendor}`;
    this.model = lm.id;
    this.#images = lmTakesImages(lm);
  }

  /**
   * The LM API always streams and reports no usage, so `request.stream` makes no difference and the usage event is
   * the vendor tokenizer's count (countTokens) of the request and the answer, taken while the answer streams; it
   * calibrates the local estimate the way a provider's `prompt_tokens` does. The finish reason is inferred.
   */
  async *chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent> {
    if (signal.aborted) throw abortError();
    const counter = lmTokenCounter(this.lm);
    // A vendor that cannot count only costs the calibration, never the answer.
    const promptCount = counter.countRequestTokens(request, signal).catch(() => undefined);
    let answer = '';
    const messages = toLmMessages(request, this.#images);
    const options = toLmRequestOptions(request);
    const token = tokenFor(signal);
    let iterator: AsyncIterator<unknown> | undefined;
    let finished = false;
    try {
      const response = await this.step(this.lm.sendRequest(messages, options, token.cts.token), signal);
      iterator = response.stream[Symbol.asyncIterator]();
      let toolCalls = 0;
      for (;;) {
        const next = await this.step(iterator.next(), signal);
        if (next.done === true) break;
        const part: unknown = next.value;
        if (part instanceof vscode.LanguageModelTextPart) {
          if (part.value !== '') yield { type: 'text', delta: part.value };
          answer += part.value;
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls++;
          // The engine's transcript needs a non-empty id to pair the result with the call.
          const id = part.callId === '' ? `lm_call_${toolCalls}` : part.callId;
          yield { type: 'tool_call', call: { id, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
        }
        // Other parts (future data or thinking parts) carry nothing the engine records.
      }
      // Some vendors end the stream quietly on cancel: that is still a cancel, not an empty answer.
      if (signal.aborted) throw abortError();
      finished = true;
      const promptTokens = await promptCount;
      if (promptTokens !== undefined) {
        const completionTokens = answer === '' ? 0 : await counter.count(answer, signal).catch(() => 0);
        yield { type: 'usage', usage: { promptTokens, completionTokens } };
      }
      yield { type: 'done', finishReason: toolCalls > 0 ? 'tool_calls' : 'stop' };
    } finally {
      // A consumer that stops early (or a failure) must not leave the vendor generating into the void.
      if (!finished) {
        token.cts.cancel();
        const stop = iterator?.return?.();
        if (stop) Promise.resolve(stop).catch(() => undefined);
      }
      token.dispose();
    }
  }

  private async step<T>(p: PromiseLike<T>, signal: AbortSignal): Promise<T> {
    try {
      return await raceAbort(p, signal);
    } catch (e) {
      throw lmFailure(e, this.lm, signal);
    }
  }
}

export interface LmModelSummary {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  readonly name: string;
  readonly version: string;
  readonly maxInputTokens: number;
  /** The model takes images and VS Code can send them (lmTakesImages). */
  readonly images: boolean;
}

export function summarizeLmModel(m: vscode.LanguageModelChat): LmModelSummary {
  return { id: m.id, vendor: m.vendor, family: m.family, name: m.name, version: m.version, maxInputTokens: m.maxInputTokens, images: lmTakesImages(m) };
}

/** All chat models VS Code offers (may be empty, e.g. without Copilot); re-query after `vscode.lm.onDidChangeChatModels`. */
export async function listLmModels(selector?: vscode.LanguageModelChatSelector): Promise<LmModelSummary[]> {
  const models = await vscode.lm.selectChatModels(selector);
  return models.map(summarizeLmModel);
}

/** The chat model with exactly this id, if VS Code still offers it. */
export async function findLmModel(id: string): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels({ id });
  return models.find((m) => m.id === id);
}

/**
 * Limits for the engine: contextWindow = maxInputTokens + output allowance (the user's maxOutputTokens override, else
 * DEFAULT_LM_MAX_OUTPUT_TOKENS), so the engine's hard limit keeps every request within maxInputTokens. A user
 * window override still wins; a model reporting no usable input limit falls back to the built-in table/default.
 */
export function lmModelInfo(m: Pick<vscode.LanguageModelChat, 'id' | 'maxInputTokens'>, override?: PartialLimits): ModelInfo {
  const positive = (n: number | undefined): number | undefined => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined);
  const output = positive(override?.maxOutputTokens) ?? DEFAULT_LM_MAX_OUTPUT_TOKENS;
  const input = positive(m.maxInputTokens);
  const provider: PartialLimits = input === undefined ? {} : { contextWindow: input + output, maxOutputTokens: output };
  return resolveModelInfo(m.id, override === undefined ? { provider } : { provider, override });
}

export interface LmTokenCounter {
  readonly model: string;
  /** The vendor tokenizer's count for one text. */
  count(text: string, signal?: AbortSignal): Promise<number>;
  /**
   * The sum of countTokens over each message the request would send (system preface included) plus the tool
   * schemas as JSON. Slower than the local estimate (one round trip per message) and still approximate: the
   * vendor's per-message framing is not counted. Meant for calibrating the estimate, not for every preflight.
   */
  countRequestTokens(request: Pick<ChatRequest, 'system' | 'messages' | 'tools' | 'toolChoice'>, signal?: AbortSignal): Promise<number>;
}

export function lmTokenCounter(model: vscode.LanguageModelChat): LmTokenCounter {
  const countAll = async (items: readonly (string | vscode.LanguageModelChatMessage)[], signal: AbortSignal | undefined): Promise<number> => {
    if (signal?.aborted === true) throw abortError();
    const token = tokenFor(signal);
    try {
      let total = 0;
      for (let i = 0; i < items.length; i += COUNT_CONCURRENCY) {
        const batch = items.slice(i, i + COUNT_CONCURRENCY).map((item) => model.countTokens(item, token.cts.token));
        const counts = await raceAbort(Promise.all(batch), signal ?? new AbortController().signal);
        for (const n of counts) total += n;
      }
      return total;
    } finally {
      token.dispose();
    }
  };
  return {
    model: model.id,
    count: (text, signal) => countAll([text], signal),
    countRequestTokens: (request, signal) => {
      const items: (string | vscode.LanguageModelChatMessage)[] = toLmMessages(request, lmTakesImages(model));
      const tools = toLmRequestOptions(request).tools;
      if (tools && tools.length > 0) items.push(JSON.stringify(tools));
      return countAll(items, signal);
    },
  };
}
