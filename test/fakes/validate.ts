// Request-body checks a real OpenAI endpoint makes before generating: the 400s a sloppy client gets.
import { invalidRequest, type ErrorBody } from './errors.js';
import type { ChatBody, ChatMessageIn } from './types.js';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the shape of a chat-completions body; returns the body typed, or the 400 error to answer. */
export function validateChatBody(raw: unknown, checkToolPairs: boolean): { body: ChatBody } | { error: ErrorBody } {
  if (!isRecord(raw)) return { error: invalidRequest('We could not parse the JSON body of your request.') };
  if (typeof raw['model'] !== 'string' || raw['model'] === '') {
    return { error: invalidRequest('you must provide a model parameter', 'model') };
  }
  const messages = raw['messages'];
  if (!Array.isArray(messages)) {
    return { error: invalidRequest("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter') };
  }
  if (messages.length === 0) return { error: invalidRequest("[] is too short - 'messages'", 'messages') };
  for (const [i, m] of messages.entries()) {
    if (!isRecord(m) || typeof m['role'] !== 'string' || !ROLES.includes(m['role'])) {
      const role = isRecord(m) ? String(m['role']) : 'undefined';
      return {
        error: invalidRequest(
          `Invalid value: '${role}'. Supported values are: ${ROLES.map((r) => `'${r}'`).join(', ')}.`,
          `messages[${i}].role`,
          'invalid_value',
        ),
      };
    }
  }
  const tools = raw['tools'];
  const hasTools = Array.isArray(tools) && tools.length > 0;
  if (raw['tool_choice'] !== undefined && raw['tool_choice'] !== null && !hasTools) {
    return {
      error: invalidRequest("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice'),
    };
  }
  if (raw['stream_options'] !== undefined && raw['stream_options'] !== null && raw['stream'] !== true) {
    return {
      error: invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options'),
    };
  }
  const body = raw as ChatBody;
  if (checkToolPairs) {
    const pairError = checkPairs(body.messages);
    if (pairError) return { error: pairError };
  }
  return { body };
}

/** Every tool message answers a call of the assistant message just before its block, and every call is answered. */
function checkPairs(messages: readonly ChatMessageIn[]): ErrorBody | undefined {
  let i = 0;
  while (i < messages.length) {
    const m = messages[i];
    if (m === undefined) break;
    if (m.role === 'tool') {
      return invalidRequest(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    }
    const calls = m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : [];
    const assistantIndex = i;
    i++;
    if (calls.length === 0) continue;
    const pending = new Set(calls.map((c) => c.id ?? ''));
    while (i < messages.length && messages[i]?.role === 'tool') {
      const id = messages[i]?.tool_call_id ?? '';
      if (!pending.delete(id)) {
        return invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
      i++;
    }
    if (pending.size > 0) {
      return invalidRequest(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          `The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`,
        `messages.[${assistantIndex}].role`,
      );
    }
  }
  return undefined;
}
