// Maps an engine ChatRequest to the messages and options of the VS Code Language Model API (`vscode.lm`).
import * as vscode from 'vscode';
import type { ChatRequest, ToolSchema } from '../../engine/ports.js';
import type { ModelMessage } from '../../engine/transcript/modelInput.js';

/**
 * The LM API has only User and Assistant roles, so the system prompt travels as the first User message behind
 * this preface. Models treat it as instructions because it says so and comes first; there is no better channel.
 */
export const SYSTEM_PREFACE = 'System instructions:';

/** Shown by VS Code in the consent dialog the first time Capsule uses a model. */
const LM_JUSTIFICATION = 'Capsule sends your chat messages and tool results to the selected model to answer you.';

type UserPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart;
type AssistantPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;

/**
 * A ToolCallPart needs an input object, but the transcript keeps the model's raw argument string, which may be
 * invalid JSON or not an object (the engine answered such calls with a tool error). Those keep their text under
 * `invalidArguments` so the model still sees what it sent when it reads the error that follows.
 */
function toolInputOf(argumentsJson: string): object {
  if (argumentsJson.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // fall through: keep the raw text
  }
  return { invalidArguments: argumentsJson };
}

/** Where no image part can be sent, the model is told images were left out rather than silently losing them. */
function imageNote(count: number): string {
  return `[${count} image${count === 1 ? '' : 's'} omitted: the VS Code language model API does not accept images]`;
}

function userText(m: Extract<ModelMessage, { role: 'user' }>): string {
  const n = m.images?.length ?? 0;
  if (n === 0) return m.content;
  return m.content === '' ? imageNote(n) : `${m.content}\n\n${imageNote(n)}`;
}

interface ImagePartFactory {
  image(data: Uint8Array, mime: string): unknown;
}

/**
 * VS Code's image part (`LanguageModelDataPart.image`), which newer VS Code versions have and the 1.100 API Capsule
 * is built against does not: looked up when a request is built, so a newer VS Code gets real image parts.
 */
export function lmImagePart(): ImagePartFactory | undefined {
  const factory = (vscode as unknown as { readonly LanguageModelDataPart?: Partial<ImagePartFactory> }).LanguageModelDataPart;
  return typeof factory?.image === 'function' ? (factory as ImagePartFactory) : undefined;
}

/** The bytes and type of a base64 `data:image/…` URL (what the composer and `--image` store); undefined for a web URL. */
function dataUrlImage(url: string): { readonly bytes: Uint8Array; readonly mime: string } | undefined {
  const m = /^data:(image\/[a-z0-9.+-]+);base64,/i.exec(url);
  if (m === null || m[1] === undefined) return undefined;
  return { bytes: Buffer.from(url.slice(m[0].length), 'base64'), mime: m[1].toLowerCase() };
}

/** A user message: its images as image parts when the model takes them and VS Code offers the part, else a note. */
function userMessage(m: Extract<ModelMessage, { role: 'user' }>, images: boolean): vscode.LanguageModelChatMessage {
  const factory = images ? lmImagePart() : undefined;
  if ((m.images?.length ?? 0) === 0 || factory === undefined) return vscode.LanguageModelChatMessage.User(userText(m));
  const parts: unknown[] = [];
  if (m.content !== '') parts.push(new vscode.LanguageModelTextPart(m.content));
  let left = 0;
  for (const image of m.images ?? []) {
    const d = dataUrlImage(image.url);
    if (d === undefined) left++;
    else parts.push(factory.image(d.bytes, d.mime));
  }
  if (left > 0) parts.push(new vscode.LanguageModelTextPart(imageNote(left)));
  // The 1.100 typings list no data part among a user message's parts; the VS Code that has the factory accepts it.
  return vscode.LanguageModelChatMessage.User(parts as UserPart[]);
}

function assistantMessage(m: Extract<ModelMessage, { role: 'assistant' }>): vscode.LanguageModelChatMessage {
  const calls = m.toolCalls ?? [];
  if (calls.length === 0) return vscode.LanguageModelChatMessage.Assistant(m.content);
  const parts: AssistantPart[] = [];
  if (m.content !== '') parts.push(new vscode.LanguageModelTextPart(m.content));
  for (const c of calls) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, toolInputOf(c.arguments)));
  return vscode.LanguageModelChatMessage.Assistant(parts);
}

/**
 * The messages in order, the system prompt (when non-empty) first as a prefaced User message. Consecutive tool
 * results are merged into one User message of ToolResultParts: the answer to one assistant turn's tool calls,
 * which is the shape Anthropic-backed models require and OpenAI-backed ones accept.
 */
export function toLmMessages(request: Pick<ChatRequest, 'system' | 'messages'>, images = false): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  if (request.system !== '') out.push(vscode.LanguageModelChatMessage.User(`${SYSTEM_PREFACE}\n\n${request.system}`));
  let results: UserPart[] | undefined;
  const flush = (): void => {
    if (results) out.push(vscode.LanguageModelChatMessage.User(results));
    results = undefined;
  };
  for (const m of request.messages) {
    if (m.role === 'tool') {
      results ??= [];
      results.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)]));
      continue;
    }
    flush();
    out.push(m.role === 'user' ? userMessage(m, images) : assistantMessage(m));
  }
  flush();
  return out;
}

function toLmTool(t: ToolSchema): vscode.LanguageModelChatTool {
  return { name: t.name, description: t.description, inputSchema: { ...t.parameters } };
}

/**
 * The LM API has no "none" tool mode, so toolChoice 'none' sends no tools at all; the messages stay identical
 * (earlier tool calls and results included). The output budget is not sent: `modelOptions` are vendor-specific
 * and Copilot documents none for it, so the model's own limit applies.
 */
export function toLmRequestOptions(request: Pick<ChatRequest, 'tools' | 'toolChoice'>): vscode.LanguageModelChatRequestOptions {
  if (request.toolChoice === 'none' || request.tools.length === 0) return { justification: LM_JUSTIFICATION };
  return { justification: LM_JUSTIFICATION, tools: request.tools.map(toLmTool), toolMode: vscode.LanguageModelChatToolMode.Auto };
}
