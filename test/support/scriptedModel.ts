// A scripted ChatModel for engine tests: one step per call, recording every request and the signal it came with.
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../src/engine/ports.js';
import type { Usage } from '../../src/engine/transcript/schema.js';

export type ModelStep =
  | { readonly text: string; readonly usage?: Usage; readonly finish?: string; readonly toolCall?: boolean }
  | { readonly error: unknown; readonly afterText?: string }
  | { readonly hang: true | 'honours-abort' | 'ignores-abort'; readonly onStart?: () => void }
  | { readonly throwSync: unknown };

export interface ScriptOptions {
  readonly model?: string;
  /** What answers once the script ran out: the last step again (default), or this step. */
  readonly afterLast?: 'repeat' | ModelStep;
  /** Characters per text delta. */
  readonly chunk?: number;
  /** The error a cancelled call throws (the openai client throws its APIUserAbortError). */
  readonly abortError?: () => Error;
  /** Checks the signal before the first event, as a real client's request would. */
  readonly checkAbortFirst?: boolean;
}

function defaultAbortError(): Error {
  const e = new Error('This operation was aborted');
  e.name = 'AbortError';
  return e;
}

export class ScriptedModel implements ChatModel {
  readonly provider = 'fake';
  readonly model: string;
  readonly requests: ChatRequest[] = [];
  readonly calls: { readonly request: ChatRequest; readonly signal: AbortSignal }[] = [];
  /** Runs as each call starts, with its 1-based number. */
  onCall?: (n: number) => void;

  constructor(
    private readonly steps: readonly ModelStep[],
    private readonly opts: ScriptOptions = {},
  ) {
    this.model = opts.model ?? 'gpt-4o';
  }

  chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent> {
    const n = this.requests.length;
    const after = this.opts.afterLast ?? 'repeat';
    const step = this.steps[n] ?? (after === 'repeat' ? this.steps[this.steps.length - 1] : after) ?? { text: '' };
    this.requests.push(request);
    this.calls.push({ request, signal });
    this.onCall?.(this.requests.length);
    if ('throwSync' in step) throw step.throwSync;
    return this.#play(step, signal);
  }

  async *#play(step: Exclude<ModelStep, { throwSync: unknown }>, signal: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const abortError = this.opts.abortError ?? defaultAbortError;
    if (this.opts.checkAbortFirst !== false) {
      await Promise.resolve();
      if (signal.aborted) throw abortError();
    }
    if ('hang' in step) {
      step.onStart?.();
      if (step.hang === 'ignores-abort') await new Promise<never>(() => undefined);
      await new Promise<never>((_, reject) => {
        if (signal.aborted) reject(abortError());
        signal.addEventListener('abort', () => reject(abortError()), { once: true });
      });
      return;
    }
    if ('error' in step) {
      if (step.afterText !== undefined) yield { type: 'text', delta: step.afterText };
      throw step.error;
    }
    if (step.toolCall === true) yield { type: 'tool_call', call: { id: 'c1', name: 'read_file', arguments: '{}' } };
    const chunk = this.opts.chunk ?? 500;
    for (const part of step.text.match(new RegExp(`[\\s\\S]{1,${chunk}}`, 'g')) ?? []) yield { type: 'text', delta: part };
    if (step.usage) yield { type: 'usage', usage: step.usage };
    yield { type: 'done', finishReason: step.finish ?? 'stop' };
  }
}
