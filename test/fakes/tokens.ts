// How the fake server counts a chat request's prompt tokens (o200k_base), and the prompt-cache prefix.
//
// The request is rendered to one token sequence, in this order (documented so tests can reason about it):
//   1. tools: the JSON text of the `tools` array exactly as `JSON.stringify` renders it (absent → nothing).
//      Tools come first, like a provider that renders them into the prompt prefix: changing a schema
//      invalidates the whole cached prefix.
//   2. every message: 3 marker tokens + role, then `name` (+1 token), then content, then per tool call
//      3 marker tokens + id + function name + arguments, then `tool_call_id`.
//      Content: a string is encoded as is; an array of parts encodes each `text` part, counts 85 tokens
//      per image/audio/file part, and encodes any other part as its JSON text.
//   3. 3 tokens priming the assistant reply.
// Special-token strings such as `<|endoftext|>` are encoded as plain text, never rejected.
import { decode as decodeTokens, encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessageIn } from './types.js';

const MESSAGE_MARKER: readonly number[] = [200264, 200266, 200265];
const TOOL_CALL_MARKER: readonly number[] = [200264, 200267, 200265];
const REPLY_PRIMING: readonly number[] = [200264, 173781, 200266];
const NAME_SEPARATOR = 200268;
/** Fixed cost of an image/audio/file part (OpenAI's low-detail image base). */
export const MEDIA_PART_TOKENS = 85;
const MEDIA_PLACEHOLDER = 200269;
const NO_SPECIAL_CHECK = { disallowedSpecial: new Set<string>() };

// Long sessions resend the same messages every request; caching their encodings keeps a 60k-token
// request cheap. Cleared wholesale when full: simple and bounded.
const cache = new Map<string, readonly number[]>();
const CACHE_LIMIT = 4000;

function encodeText(text: string): readonly number[] {
  if (text.length < 64) return encode(text, NO_SPECIAL_CHECK);
  const hit = cache.get(text);
  if (hit) return hit;
  const tokens = encode(text, NO_SPECIAL_CHECK);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, tokens);
  return tokens;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pushAll(out: number[], tokens: readonly number[]): void {
  for (const t of tokens) out.push(t);
}

function encodeContent(out: number[], content: unknown): void {
  if (content === undefined || content === null) return;
  if (typeof content === 'string') {
    pushAll(out, encodeText(content));
    return;
  }
  if (!Array.isArray(content)) {
    pushAll(out, encodeText(JSON.stringify(content)));
    return;
  }
  for (const part of content) {
    if (isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string') {
      pushAll(out, encodeText(part['text']));
    } else if (isRecord(part) && ['image_url', 'input_audio', 'file'].includes(String(part['type']))) {
      for (let i = 0; i < MEDIA_PART_TOKENS; i++) out.push(MEDIA_PLACEHOLDER);
    } else {
      pushAll(out, encodeText(JSON.stringify(part)));
    }
  }
}

function encodeMessage(out: number[], m: ChatMessageIn): void {
  pushAll(out, MESSAGE_MARKER);
  pushAll(out, encodeText(String(m.role)));
  if (typeof m.name === 'string') {
    pushAll(out, encodeText(m.name));
    out.push(NAME_SEPARATOR);
  }
  encodeContent(out, m.content);
  for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
    pushAll(out, TOOL_CALL_MARKER);
    pushAll(out, encodeText(call.id ?? ''));
    pushAll(out, encodeText(call.function?.name ?? ''));
    pushAll(out, encodeText(call.function?.arguments ?? ''));
  }
  if (typeof m.tool_call_id === 'string') pushAll(out, encodeText(m.tool_call_id));
}

/** The token sequence the server sees for a request body (see the file comment for the layout). */
export function encodeRequest(body: { readonly messages?: unknown; readonly tools?: unknown }): number[] {
  const out: number[] = [];
  if (Array.isArray(body.tools) && body.tools.length > 0) pushAll(out, encodeText(JSON.stringify(body.tools)));
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (isRecord(m)) encodeMessage(out, m as ChatMessageIn);
  }
  pushAll(out, REPLY_PRIMING);
  return out;
}

/** Prompt tokens the fake server counts (and reports as usage.prompt_tokens) for this request body. */
export function countRequestTokens(body: { readonly messages?: unknown; readonly tools?: unknown }): number {
  return encodeRequest(body).length;
}

/** Tokens of plain text, as the server counts completion text. */
export function countTextTokens(text: string): number {
  return encodeText(text).length;
}

/** The first `n` tokens of `text`, decoded back — used to cut a reply at max_tokens. */
export function firstTokens(text: string, n: number): string {
  return decodeTokens(encode(text, NO_SPECIAL_CHECK).slice(0, n));
}

/** Length of the common prefix of two token sequences. */
export function commonPrefixLength(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Cached tokens reported for a prefix of `prefix` tokens: 0 below `minTokens`, else rounded down to `granularity`. */
export function cachedTokensFor(prefix: number, minTokens: number, granularity: number): number {
  if (prefix < minTokens) return 0;
  return granularity > 1 ? Math.floor(prefix / granularity) * granularity : prefix;
}
