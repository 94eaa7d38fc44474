// Builds chat.completion bodies and chat.completion.chunk SSE streams shaped like OpenAI's.

export interface AnswerToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface UsageBlock {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: { readonly cached_tokens: number; readonly audio_tokens: number };
  readonly completion_tokens_details: {
    readonly reasoning_tokens: number;
    readonly audio_tokens: number;
    readonly accepted_prediction_tokens: number;
    readonly rejected_prediction_tokens: number;
  };
}

/** A fully decided 200 answer, ready to be rendered as a body or a stream. */
export interface Answer {
  readonly id: string;
  readonly model: string;
  readonly created: number;
  /** null when the answer is tool calls only (OpenAI sends `content: null` then). */
  readonly content: string | null;
  readonly toolCalls: readonly AnswerToolCall[];
  readonly finishReason: string;
  readonly usage: UsageBlock | undefined;
}

const FINGERPRINT = 'fp_capsule_fake';

/** `cached` undefined: no prompt_tokens_details, as servers without a prompt cache answer. */
export function usageBlock(prompt: number, completion: number, cached: number | undefined): UsageBlock {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } }),
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function completionBody(a: Answer): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: a.content, refusal: null, annotations: [] };
  if (a.toolCalls.length > 0) {
    message['tool_calls'] = a.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const body: Record<string, unknown> = {
    id: a.id,
    object: 'chat.completion',
    created: a.created,
    model: a.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finishReason }],
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
  if (a.usage) body['usage'] = a.usage;
  return body;
}

/**
 * Splits text into several pieces (at least two when it has two characters) without breaking surrogate
 * pairs, so clients are exercised on reassembly; long texts get at most 64 pieces.
 */
function splitPieces(text: string): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const count = Math.max(Math.min(chars.length, 2), Math.min(64, Math.ceil(chars.length / 8)));
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The SSE events of a streamed answer, ending with `data: [DONE]`. */
export function streamEvents(a: Answer, includeUsage: boolean): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null): Record<string, unknown> => {
    const c: Record<string, unknown> = {
      id: a.id,
      object: 'chat.completion.chunk',
      created: a.created,
      model: a.model,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (includeUsage) c['usage'] = null;
    return c;
  };
  const events: string[] = [sse(chunk({ role: 'assistant', content: '', refusal: null }, null))];
  for (const piece of splitPieces(a.content ?? '')) events.push(sse(chunk({ content: piece }, null)));
  a.toolCalls.forEach((call, index) => {
    events.push(sse(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, null)));
    for (const piece of splitPieces(call.arguments)) {
      events.push(sse(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null)));
    }
  });
  events.push(sse(chunk({}, a.finishReason)));
  if (includeUsage && a.usage) {
    events.push(
      sse({
        id: a.id,
        object: 'chat.completion.chunk',
        created: a.created,
        model: a.model,
        service_tier: 'default',
        system_fingerprint: FINGERPRINT,
        choices: [],
        usage: a.usage,
      }),
    );
  }
  events.push('data: [DONE]\n\n');
  return events;
}

/** A non-streamed body cut mid-JSON: parsing it fails with "Unexpected end of JSON input". */
export function truncatedBody(a: Answer): string {
  const full = JSON.stringify(completionBody(a));
  const at = full.indexOf('"choices":[');
  return full.slice(0, at + '"choices":['.length);
}

/** A stream whose last event is cut mid-JSON (then the stream ends without [DONE]). */
export function truncatedStreamEvents(a: Answer): string[] {
  const unfinished = (e: string): boolean => !e.includes('[DONE]') && !e.includes('"finish_reason":"');
  const events = streamEvents(a, false).filter(unfinished).slice(0, 3);
  const cut = JSON.stringify({ id: a.id, object: 'chat.completion.chunk', created: a.created, model: a.model, choices: [] });
  events.push(`data: ${cut.slice(0, cut.indexOf('"choices":[') + '"choices":['.length)}\n\n`);
  return events;
}
