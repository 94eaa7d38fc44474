// Shared pieces of the OpenAI adapter tests: collecting a chat's events, typical requests, waiting on the fake server.
import type { ChatRequest, ChatStreamEvent, ToolSchema } from '../../../src/engine/ports.js';
import type { FakeOpenAIServer, RecordedRequest } from '../../fakes/openaiServer.js';

export const TOOLS: readonly ToolSchema[] = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'search',
    description: 'Search the workspace.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, max: { type: 'integer' } }, required: ['query'] },
  },
  { name: 'list_files', description: 'List files.', parameters: { type: 'object', properties: {} } },
];

export function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    system: 'You are a careful coding agent.',
    messages: [{ role: 'user', content: 'Say hello.' }],
    tools: [],
    stream: true,
    ...overrides,
  };
}

export async function collect(events: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function textOf(events: readonly ChatStreamEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.delta : '')).join('');
}

export function lastChat(server: FakeOpenAIServer): RecordedRequest {
  const r = server.chatRequests[server.chatRequests.length - 1];
  if (!r) throw new Error('the server received no chat request');
  return r;
}

/** Resolves once the condition holds; the test's own timeout catches a condition that never does. */
export async function eventually(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The JSON the wire carries for a value (undefined keys dropped), for comparing with a recorded body. */
export function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
