// How one chat message is counted (docs/behaviour.md#tokens): OpenAI chat-format overheads, tool calls, tool results and images.
import type { ModelMessage } from '../transcript/modelInput.js';
import type { ImagePart } from '../transcript/schema.js';
import type { TokenCounter } from './tokenizer.js';

/** Every message costs `<|start|>{role}<|message|>…<|end|>`: about 3 tokens of framing (OpenAI cookbook). */
export const MESSAGE_OVERHEAD = 3;
/** "system", "user", "assistant" and "tool" are one token each in o200k_base and cl100k_base (a test checks it). */
export const ROLE_TOKENS = 1;
/** Each tool call carries a type/function wrapper around its id, name and arguments. */
export const TOOL_CALL_OVERHEAD = 3;
/** The reply is primed with `<|start|>assistant<|message|>` once per request. */
export const REPLY_PRIMING = 3;
/** The tools block is wrapped in a few tokens of framing when any tool is sent. */
export const TOOLS_OVERHEAD = 9;

/** OpenAI's vision pricing: 85 base tokens, plus 170 per 512px tile in high detail. */
const IMAGE_BASE_TOKENS = 85;
const IMAGE_TILE_TOKENS = 170;
/** Used when the size is unknown: the cost of a 1024×1024 image in high detail (4 tiles). */
export const IMAGE_DEFAULT_TOKENS = IMAGE_BASE_TOKENS + 4 * IMAGE_TILE_TOKENS;

/** Tokens of one image: OpenAI's tile formula when the size is known; `auto` is counted as high detail (conservative). */
export function imageTokens(img: ImagePart): number {
  if (img.detail === 'low') return IMAGE_BASE_TOKENS;
  if (img.width === undefined || img.height === undefined) return IMAGE_DEFAULT_TOKENS;
  let w = img.width;
  let h = img.height;
  // Fit inside 2048×2048, then scale so the shortest side is at most 768.
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w = Math.floor(w * shrink);
  h = Math.floor(h * shrink);
  const tiles = Math.max(1, Math.ceil(w / 512)) * Math.max(1, Math.ceil(h / 512));
  return IMAGE_BASE_TOKENS + IMAGE_TILE_TOKENS * tiles;
}

/** Counts text, skipping the tokenizer for empty strings. */
export function countText(counter: TokenCounter, text: string): number {
  return text.length === 0 ? 0 : counter.count(text);
}

/**
 * One message as the provider receives it: framing + role + content, plus for an assistant message every
 * tool call's id, name and arguments, for a tool message its tool_call_id, for a user message its images.
 */
export function countMessage(counter: TokenCounter, m: ModelMessage): number {
  let n = MESSAGE_OVERHEAD + ROLE_TOKENS + countText(counter, m.content);
  switch (m.role) {
    case 'user':
      for (const img of m.images ?? []) n += imageTokens(img);
      break;
    case 'assistant':
      if (m.reasoningContent !== undefined) n += countText(counter, m.reasoningContent);
      for (const call of m.toolCalls ?? []) {
        n += TOOL_CALL_OVERHEAD + countText(counter, call.id) + countText(counter, call.name) + countText(counter, call.arguments);
      }
      break;
    case 'tool':
      n += countText(counter, m.toolCallId);
      break;
  }
  return n;
}
