// Writes one scripted reply to an HTTP response: JSON or SSE answers, errors, delays, hangs, cut-offs.
import type { ServerResponse } from 'node:http';
import { completionBody, streamEvents, truncatedBody, truncatedStreamEvents, usageBlock, type Answer, type AnswerToolCall } from './completions.js';
import { contextLengthError, errorForStatus } from './errors.js';
import { countTextTokens, firstTokens } from './tokens.js';
import type { ChatBody, RecordedRequest, ScriptedReply, TextReply, ToolCallsReply } from './types.js';

export type MutableRecord = { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] };

export interface ReplyContext {
  readonly res: ServerResponse;
  readonly record: MutableRecord;
  readonly body: ChatBody;
  readonly promptTokens: number;
  /** undefined: the server reports no cache figures at all (no prompt_tokens_details), like Ollama or llama.cpp. */
  readonly cachedTokens: number | undefined;
  readonly window: number;
  readonly completionId: string;
  readonly newCallId: () => string;
}

/** Resolves true after `ms`, or false as soon as the client goes away. */
function waitWhileOpen(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

/** Resolves when the connection closes (client abort or server shutdown). */
function untilClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed || res.writableFinished) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}

export function sendJson(res: ServerResponse, record: MutableRecord, status: number, payload: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (res.destroyed) return;
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const type = typeof payload === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  record.status = status;
  res.writeHead(status, { 'content-type': type, 'x-request-id': `req_fake_${record.index}`, ...headers });
  res.end(text);
}

/** The maximum completion the request asked for, if any. */
export function requestedCompletion(body: ChatBody): number | undefined {
  const n = body.max_completion_tokens ?? body.max_tokens;
  return typeof n === 'number' ? n : undefined;
}

function buildAnswer(ctx: ReplyContext, reply: TextReply | ToolCallsReply): Answer {
  const calls: AnswerToolCall[] =
    'toolCalls' in reply
      ? reply.toolCalls.map((c) => ({
          id: c.id ?? ctx.newCallId(),
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        }))
      : [];
  let content: string | null = reply.text ?? (calls.length > 0 ? null : '');
  let finishReason: string = calls.length > 0 ? 'tool_calls' : 'stop';
  // A real model stops at max_tokens: the text is cut and finish_reason says "length".
  const limit = requestedCompletion(ctx.body);
  if (content !== null && calls.length === 0 && limit !== undefined && countTextTokens(content) > limit) {
    content = firstTokens(content, limit);
    finishReason = 'length';
  }
  const completion = (content === null ? 0 : countTextTokens(content)) + calls.reduce((n, c) => n + countTextTokens(c.name) + countTextTokens(c.arguments), 0);
  const u = reply.usage;
  return {
    id: ctx.completionId,
    model: ctx.body.model,
    created: Math.floor(Date.now() / 1000),
    content,
    toolCalls: calls,
    finishReason: reply.finishReason ?? finishReason,
    usage: reply.omitUsage
      ? undefined
      : usageBlock(u?.promptTokens ?? ctx.promptTokens, u?.completionTokens ?? completion, u?.cachedTokens ?? ctx.cachedTokens),
  };
}

function startStream(ctx: ReplyContext): void {
  ctx.record.status = 200;
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': `req_fake_${ctx.record.index}`,
  });
}

/** Writes and resolves once the data left the process (or the connection closed). */
function flushedWrite(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    res.write(data, done);
  });
}

interface StreamPacing {
  readonly chunkDelayMs?: number;
  readonly stallAfterChunks?: number;
  readonly dropAfterChunks?: number;
}

async function writeStream(ctx: ReplyContext, events: readonly string[], pacing: StreamPacing): Promise<void> {
  const { res } = ctx;
  startStream(ctx);
  for (const [i, event] of events.entries()) {
    if (pacing.dropAfterChunks === i) {
      res.socket?.destroy();
      return;
    }
    if (pacing.stallAfterChunks === i) return untilClosed(res);
    if (res.destroyed) return;
    // Before a deliberate drop, the chunks sent so far must really reach the client.
    if (pacing.dropAfterChunks !== undefined) await flushedWrite(res, event);
    else res.write(event);
    if (pacing.chunkDelayMs && !(await waitWhileOpen(res, pacing.chunkDelayMs))) return;
  }
  res.end();
}

function sendAnswer(ctx: ReplyContext, answer: Answer, pacing: StreamPacing): Promise<void> | void {
  // Dropped before anything was sent: the client sees a connection error, not a status.
  const dropNow = pacing.dropAfterChunks === 0 || (pacing.dropAfterChunks !== undefined && ctx.body.stream !== true);
  if (dropNow) {
    ctx.res.socket?.destroy();
    return;
  }
  if (ctx.body.stream === true) {
    return writeStream(ctx, streamEvents(answer, ctx.body.stream_options?.include_usage === true), pacing);
  }
  sendJson(ctx.res, ctx.record, 200, completionBody(answer));
}

/** Answers the request with `reply`; resolves when the response is done or the client went away. */
export async function sendReply(ctx: ReplyContext, reply: ScriptedReply): Promise<void> {
  const { res, record } = ctx;
  if ('delayMs' in reply) {
    if (await waitWhileOpen(res, reply.delayMs)) await sendReply(ctx, reply.then);
    return;
  }
  if ('hang' in reply) {
    record.reply = 'hang';
    return untilClosed(res);
  }
  if ('status' in reply) {
    record.reply = 'status';
    sendJson(res, record, reply.status, reply.body ?? errorForStatus(reply.status), reply.headers);
    return;
  }
  if ('contextOverflow' in reply) {
    record.reply = 'contextOverflow';
    sendJson(res, record, 400, contextLengthError(ctx.window, ctx.promptTokens, requestedCompletion(ctx.body)));
    return;
  }
  if ('dropConnection' in reply) {
    record.reply = 'dropConnection';
    const answer = buildAnswer(ctx, { text: 'This answer never arrives in full.' });
    return sendAnswer(ctx, answer, { dropAfterChunks: reply.afterChunks ?? 0 });
  }
  if ('truncatedJson' in reply) {
    record.reply = 'truncatedJson';
    const answer = buildAnswer(ctx, { text: 'This answer is cut off before it ends.' });
    if (ctx.body.stream === true) return writeStream(ctx, truncatedStreamEvents(answer), {});
    sendJson(res, record, 200, truncatedBody(answer), { 'content-type': 'application/json' });
    return;
  }
  if ('endStreamEarly' in reply) {
    record.reply = 'endStreamEarly';
    const answer = buildAnswer(ctx, { text: 'This answer ends before it is finished.' });
    if (ctx.body.stream !== true) return sendJson(res, record, 200, '');
    const events = streamEvents(answer, false).slice(0, reply.afterChunks ?? 0);
    return writeStream(ctx, events, {});
  }
  if ('rawBody' in reply) {
    record.reply = 'rawBody';
    record.status = 200;
    res.writeHead(200, { 'content-type': reply.contentType ?? 'text/html; charset=utf-8' });
    res.end(reply.rawBody);
    return;
  }
  if ('empty' in reply) {
    record.reply = 'empty';
    return sendAnswer(ctx, buildAnswer(ctx, { text: '' }), {});
  }
  record.reply = 'toolCalls' in reply ? 'toolCalls' : 'text';
  return sendAnswer(ctx, buildAnswer(ctx, reply), reply);
}
