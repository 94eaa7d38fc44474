// Maps an engine ChatRequest to the exact chat-completions request body an OpenAI-compatible server receives.
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatRequest, ToolSchema } from '../../engine/ports.js';
import type { ModelMessage } from '../../engine/transcript/modelInput.js';

function toMessage(m: ModelMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'user': {
      if (!m.images || m.images.length === 0) return { role: 'user', content: m.content };
      const parts: ChatCompletionContentPart[] = [];
      if (m.content !== '') parts.push({ type: 'text', text: m.content });
      for (const image of m.images) {
        parts.push({
          type: 'image_url',
          image_url: image.detail === undefined ? { url: image.url } : { url: image.url, detail: image.detail },
        });
      }
      return { role: 'user', content: parts };
    }
    case 'assistant': {
      if (!m.toolCalls || m.toolCalls.length === 0) return { role: 'assistant', content: m.content };
      const turn: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
        role: 'assistant',
        // OpenAI documents null (not "") for a tool-call-only turn; some local servers reject "" there.
        content: m.content === '' ? null : m.content,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
        // DeepSeek's thinking mode requires its reasoning back on turns that made tool calls.
        ...(m.reasoningContent === undefined ? {} : { reasoning_content: m.reasoningContent }),
      };
      return turn;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

function toTool(t: ToolSchema): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: { ...t.parameters } } };
}

/** The chat-completions messages of a request: the system prompt (when non-empty) first, then the messages in order. */
function toOpenAIMessages(request: Pick<ChatRequest, 'system' | 'messages'>): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system !== '') out.push({ role: 'system', content: request.system });
  for (const m of request.messages) out.push(toMessage(m));
  return out;
}

/**
 * The exact request body, built deterministically (same request → same JSON, keys in a fixed order) so the
 * provider's prompt cache sees identical prefixes and tests can compare it with what the server received.
 * The output budget goes in `max_tokens`, not `max_completion_tokens`: vLLM, Ollama and LM Studio only read
 * `max_tokens`, and OpenAI still accepts it for non-reasoning chat models.
 */
export function toOpenAIParams(request: ChatRequest, model: string): ChatCompletionCreateParams {
  const hasTools = request.tools.length > 0;
  const common = {
    model,
    messages: toOpenAIMessages(request),
    ...(hasTools ? { tools: request.tools.map(toTool) } : {}),
    // A server answers 400 to tool_choice without tools, so it only goes with them.
    ...(hasTools && request.toolChoice !== undefined ? { tool_choice: request.toolChoice } : {}),
    ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
    // OpenAI routes by prompt_cache_key; gateways that predate it (and OpenAI before it) route by `user`.
    ...(request.cacheKey !== undefined ? { prompt_cache_key: request.cacheKey, user: request.cacheKey } : {}),
  };
  return request.stream ? { ...common, stream: true, stream_options: { include_usage: true } } : { ...common, stream: false };
}
