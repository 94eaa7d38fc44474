// Gives every request of one chat the same prompt-cache key, whichever model serves it.
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../engine/ports.js';

/** The key a chat's requests carry: the session id, which never changes and names no content. */
export function chatCacheKey(sessionId: string): string {
  return `capsule-${sessionId}`;
}

/** The same model (provider and model id unchanged, so calibration fingerprints stay the same) with the key set. */
export function withCacheKey(model: ChatModel, key: string): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    ...(model.endpoint === undefined ? {} : { endpoint: model.endpoint }),
    chat: (request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatStreamEvent> => model.chat({ ...request, cacheKey: key }, signal),
  };
}
