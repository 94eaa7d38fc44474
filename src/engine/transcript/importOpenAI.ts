// Imports OpenAI chat-completions messages (JSON array, {messages}, or JSONL) as a linear Capsule session.
import * as z from '../zod.js';
import { CURRENT_VERSION } from './schema.js';
import type { Entry, ImagePart, SessionHeader, ToolCall } from './schema.js';
import type { IdSource } from '../ports.js';

const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });
const ImageUrlPartSchema = z.object({
  type: z.literal('image_url'),
  // Some clients send the URL as a bare string instead of {url, detail}.
  image_url: z.union([z.object({ url: z.string().check(z.minLength(1)), detail: z.optional(z.string()) }), z.string().check(z.minLength(1))]),
});
const RefusalPartSchema = z.object({ type: z.literal('refusal'), refusal: z.string() });
const KNOWN_PARTS: ReadonlySet<string> = new Set(['text', 'image_url', 'refusal']);
/** Audio, file and future part kinds: accepted so the import works, dropped with a warning. */
const OtherPartSchema = z.looseObject({ type: z.string().check(z.refine((t) => !KNOWN_PARTS.has(t), { message: 'malformed content part' })) });
const PartSchema = z.union([TextPartSchema, ImageUrlPartSchema, RefusalPartSchema, OtherPartSchema]);

const ContentSchema = z.union([z.string(), z.array(PartSchema)]);
type OpenAIContent = z.infer<typeof ContentSchema>;

/** Arguments are a JSON string in the API; a few local servers send the parsed object instead. */
const ArgumentsSchema = z.optional(z.union([z.string(), z.record(z.string(), z.unknown())]));

const FunctionToolCallSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z.optional(z.literal('function')),
  function: z.object({ name: z.string().check(z.minLength(1)), arguments: ArgumentsSchema }),
});
const CustomToolCallSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z.literal('custom'),
  custom: z.object({ name: z.string().check(z.minLength(1)), input: z.string() }),
});
const ToolCallSchema = z.union([FunctionToolCallSchema, CustomToolCallSchema]);

const SystemSchema = z.object({ role: z.literal('system'), content: ContentSchema, name: z.optional(z.string()) });
const DeveloperSchema = z.object({ role: z.literal('developer'), content: ContentSchema, name: z.optional(z.string()) });
const UserSchema = z.object({ role: z.literal('user'), content: ContentSchema, name: z.optional(z.string()) });
const AssistantSchema = z.object({
  role: z.literal('assistant'),
  content: z.nullish(ContentSchema),
  tool_calls: z.nullish(z.array(ToolCallSchema)),
  function_call: z.nullish(z.object({ name: z.string().check(z.minLength(1)), arguments: ArgumentsSchema })),
  refusal: z.nullish(z.string()),
  name: z.optional(z.string()),
  /** DeepSeek-style thinking text; kept so a tool-call turn can be sent back the way such models require. */
  reasoning_content: z.nullish(z.string()),
});
const ToolSchema = z.object({ role: z.literal('tool'), tool_call_id: z.string().check(z.minLength(1)), content: z.nullish(ContentSchema) });
/** Legacy function-calling result; pairs with an assistant `function_call` by name. */
const FunctionSchema = z.object({ role: z.literal('function'), name: z.string().check(z.minLength(1)), content: z.nullish(z.string()) });

const OpenAIMessageSchema = z.discriminatedUnion('role', [SystemSchema, DeveloperSchema, UserSchema, AssistantSchema, ToolSchema, FunctionSchema]);
export type OpenAIMessage = z.infer<typeof OpenAIMessageSchema>;

const ROLES: readonly string[] = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

export type ParseResult = { ok: true; messages: OpenAIMessage[] } | { ok: false; error: string };

const FORMATS = 'expected OpenAI chat messages as a JSON array, an object {"messages": [...]}, or JSONL (one message per line)';

/** Parses OpenAI chat-completions messages given as a JSON array, an object {messages:[...]}, or JSONL. */
export function parseOpenAIMessages(input: string): ParseResult {
  // Editors on Windows may save a byte-order mark, which JSON.parse rejects.
  const text = input.replace(/^\uFEFF/, '');
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: `input is empty; ${FORMATS}` };
  const firstLine = trimmed.split(/\r?\n/, 1)[0] ?? '';
  // A first line that is a complete JSON object means JSONL; otherwise the whole text is one JSON document.
  if (trimmed.startsWith('{') && tryJson(firstLine).ok && firstLine.length < trimmed.length) return parseJsonl(text);
  const doc = tryJson(text);
  if (!doc.ok) return { ok: false, error: jsonError(text, doc.error) };
  const value = doc.value;
  if (Array.isArray(value)) return validateAll(value.map((v, i) => ({ where: `messages[${i}]`, value: v })));
  if (isRecord(value) && 'messages' in value) {
    const list = value['messages'];
    if (!Array.isArray(list)) return { ok: false, error: `"messages" must be an array; ${FORMATS}` };
    return validateAll(list.map((v, i) => ({ where: `messages[${i}]`, value: v })));
  }
  if (isRecord(value) && 'role' in value) return validateAll([{ where: 'line 1', value }]);
  return { ok: false, error: `no messages found; ${FORMATS}` };
}

function parseJsonl(text: string): ParseResult {
  const items: { where: string; value: unknown }[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? '';
    if (line === '') continue;
    const r = tryJson(line);
    if (!r.ok) return { ok: false, error: `line ${i + 1}: invalid JSON: ${stripPosition(r.error)}` };
    items.push({ where: `line ${i + 1}`, value: r.value });
  }
  return validateAll(items);
}

function validateAll(items: readonly { where: string; value: unknown }[]): ParseResult {
  if (items.length === 0) return { ok: false, error: `no messages found; ${FORMATS}` };
  const messages: OpenAIMessage[] = [];
  for (const { where, value } of items) {
    if (!isRecord(value)) return { ok: false, error: `${where}: expected a message object, got ${describe(value)}` };
    const role = value['role'];
    if (role === undefined && 'messages' in value) {
      return { ok: false, error: `${where}: holds a whole conversation ({"messages": [...]}); import one conversation at a time` };
    }
    if (typeof role !== 'string') return { ok: false, error: `${where}: message has no "role"` };
    if (!ROLES.includes(role)) return { ok: false, error: `${where}: unknown role '${role}' (expected one of ${ROLES.join(', ')})` };
    const r = OpenAIMessageSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      const path = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
      return { ok: false, error: `${where} (${role}): ${path}${issue?.message ?? 'invalid message'}` };
    }
    messages.push(r.data);
  }
  return { ok: true, messages };
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** V8 reports either "at position N" (Node 20) or "(line L column C)" (newer); both become a line number. */
function jsonError(text: string, message: string): string {
  const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineCol) return `line ${lineCol[1]}: invalid JSON: ${stripPosition(message)}`;
  const pos = /at position (\d+)/.exec(message);
  if (pos) {
    const line = text.slice(0, Number(pos[1])).split('\n').length;
    return `line ${line}: invalid JSON: ${stripPosition(message)}`;
  }
  return `invalid JSON: ${stripPosition(message)}`;
}

function stripPosition(message: string): string {
  return message
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

export interface ImportResult {
  readonly header: SessionHeader;
  readonly entries: readonly Entry[];
  readonly warnings: readonly string[];
}

export interface ImportOptions {
  readonly sessionId: string;
  readonly cwd: string;
  /** ISO timestamp used for the header and every entry. */
  readonly now: string;
  readonly ids: IdSource;
  /** Recorded on imported assistant entries. */
  readonly model?: string;
}

const TITLE_MAX = 80;

/** The tool calls of the latest assistant message still waiting for results. */
interface OpenCalls {
  readonly where: string;
  /** call id → tool name, in call order. */
  readonly pending: Map<string, string>;
}

/**
 * Turns messages into a linear chain of entries (each parented to the previous one). Unpaired tool
 * calls and results are kept as they were, with a warning, so `capsule verify` can point at them.
 */
export function importOpenAIMessages(messages: readonly OpenAIMessage[], opts: ImportOptions): ImportResult {
  const entries: Entry[] = [];
  const warnings: string[] = [];
  const base = (): { id: string; parentId: string | null; timestamp: string } => ({
    id: opts.ids.next('e_'),
    parentId: entries[entries.length - 1]?.id ?? null,
    timestamp: opts.now,
  });
  /** Every call made so far: id → tool name, so a result's toolName can be looked up. */
  const callNames = new Map<string, string>();
  let open: OpenCalls | undefined;
  let sawSystem = false;
  let title: string | undefined;

  const closeCalls = (): void => {
    if (open && open.pending.size > 0) warnings.push(`${open.where}: tool call(s) ${[...open.pending.keys()].join(', ')} have no result`);
    open = undefined;
  };
  const answer = (where: string, callId: string): void => {
    if (open?.pending.delete(callId)) return;
    warnings.push(
      callNames.has(callId)
        ? `${where}: tool result for call ${callId} does not follow the assistant message that made it`
        : `${where}: tool result for call ${callId} matches no tool call`,
    );
  };

  messages.forEach((m, index) => {
    const where = `messages[${index}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        entries.push({
          ...base(),
          type: 'system_update',
          mode: sawSystem ? 'append' : 'base',
          content: textOf(m.content, where, warnings),
          reason: `imported ${m.role} message`,
        });
        sawSystem = true;
        break;
      case 'user': {
        closeCalls();
        const images = imagesOf(m.content);
        const content = textOf(m.content, where, warnings);
        title ??= titleOf(content);
        entries.push(images.length > 0 ? { ...base(), type: 'user', content, images } : { ...base(), type: 'user', content });
        break;
      }
      case 'assistant': {
        closeCalls();
        const toolCalls = toolCallsOf(m, opts.ids);
        for (const c of toolCalls) callNames.set(c.id, c.name);
        if (toolCalls.length > 0) open = { where, pending: new Map(toolCalls.map((c) => [c.id, c.name])) };
        const text = m.content === null || m.content === undefined ? '' : textOf(m.content, where, warnings);
        const content = text === '' && m.refusal ? m.refusal : text;
        const reasoning = m.reasoning_content ?? undefined;
        entries.push({
          ...base(),
          type: 'assistant',
          content,
          toolCalls,
          ...(opts.model === undefined ? {} : { model: opts.model }),
          ...(reasoning === undefined || reasoning === '' ? {} : { reasoningContent: reasoning }),
        });
        break;
      }
      case 'tool': {
        answer(where, m.tool_call_id);
        const content = m.content === null || m.content === undefined ? '' : textOf(m.content, where, warnings);
        entries.push({ ...base(), type: 'tool_result', toolCallId: m.tool_call_id, toolName: callNames.get(m.tool_call_id) ?? '', content, isError: false });
        break;
      }
      case 'function': {
        // Legacy results carry only the function name: answer the oldest pending call of that name.
        const match = open ? [...open.pending].find(([, name]) => name === m.name) : undefined;
        const callId = match ? match[0] : opts.ids.next('call_');
        answer(where, callId);
        entries.push({ ...base(), type: 'tool_result', toolCallId: callId, toolName: m.name, content: m.content ?? '', isError: false });
        break;
      }
    }
  });
  closeCalls();

  const header: SessionHeader = {
    type: 'session',
    version: CURRENT_VERSION,
    id: opts.sessionId,
    createdAt: opts.now,
    cwd: opts.cwd,
    ...(title === undefined ? {} : { title }),
  };
  return { header, entries, warnings };
}

function textOf(content: OpenAIContent, where: string, warnings: string[]): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const p of content) {
    if (p.type === 'text' && 'text' in p && typeof p.text === 'string') texts.push(p.text);
    else if (p.type === 'refusal' && 'refusal' in p && typeof p.refusal === 'string') texts.push(p.refusal);
    else if (p.type !== 'image_url') warnings.push(`${where}: dropped a '${p.type}' content part (not supported)`);
  }
  return texts.join('\n');
}

function imagesOf(content: OpenAIContent): ImagePart[] {
  if (typeof content === 'string') return [];
  const images: ImagePart[] = [];
  for (const p of content) {
    if (p.type !== 'image_url' || !('image_url' in p)) continue;
    const img: unknown = p.image_url;
    if (typeof img === 'string') images.push({ url: img });
    else if (typeof img === 'object' && img !== null && 'url' in img && typeof img.url === 'string') {
      const detail = 'detail' in img ? img.detail : undefined;
      images.push(detail === 'auto' || detail === 'low' || detail === 'high' ? { url: img.url, detail } : { url: img.url });
    }
  }
  return images;
}

function toolCallsOf(m: Extract<OpenAIMessage, { role: 'assistant' }>, ids: IdSource): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const c of m.tool_calls ?? []) {
    if ('custom' in c) calls.push({ id: c.id, name: c.custom.name, arguments: c.custom.input });
    else calls.push({ id: c.id, name: c.function.name, arguments: argumentsOf(c.function.arguments) });
  }
  // Legacy calls have no id; one is made up so the following `function` message can point at it.
  if (m.function_call) calls.push({ id: ids.next('call_'), name: m.function_call.name, arguments: argumentsOf(m.function_call.arguments) });
  return calls;
}

function argumentsOf(args: string | Record<string, unknown> | undefined): string {
  if (args === undefined) return '{}';
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function titleOf(content: string): string | undefined {
  const first = content.trim().split('\n', 1)[0]?.trim() ?? '';
  if (first === '') return undefined;
  return first.length <= TITLE_MAX ? first : `${first.slice(0, TITLE_MAX - 1)}…`;
}
