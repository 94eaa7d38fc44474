// /_control/* endpoints: lets a test in another process script and inspect a fake server it launched.
//   GET  /_control/requests            → {requests: RecordedRequest[]}
//   POST /_control/enqueue  reply|[..] → queue replies
//   POST /_control/match    {match, reply, times?}
//   POST /_control/fallback {reply}    → constant fallback reply
//   POST /_control/window   {window, model?}
//   POST /_control/reset
import type { ServerResponse } from 'node:http';
import type { FakeOpenAIServer } from './openaiServer.js';
import { predicateOf } from './script.js';
import { asReply, asRule } from './scriptFile.js';

function reply(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null && key in v ? (v as Record<string, unknown>)[key] : undefined;
}

export function handleControl(server: FakeOpenAIServer, method: string, path: string, raw: string, res: ServerResponse): void {
  try {
    const body: unknown = raw === '' ? undefined : JSON.parse(raw);
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /_control/requests':
        return reply(res, 200, { requests: server.requests });
      case 'POST /_control/enqueue': {
        const list: unknown[] = Array.isArray(body) ? body : [body];
        server.enqueue(...list.map((r, i) => asReply(r, `enqueue[${i}]`)));
        return reply(res, 200, { ok: true, pending: server.pendingReplies });
      }
      case 'POST /_control/match': {
        const rule = asRule(body, 'match');
        server.onMatch(predicateOf(rule.match), rule.reply, { times: rule.times });
        return reply(res, 200, { ok: true });
      }
      case 'POST /_control/fallback': {
        const fallback = asReply(field(body, 'reply'), 'fallback.reply');
        server.setFallback(() => fallback);
        return reply(res, 200, { ok: true });
      }
      case 'POST /_control/window': {
        const window = field(body, 'window');
        const model = field(body, 'model');
        if (typeof window !== 'number') throw new Error('window: expected {window: number, model?: string}');
        server.setWindow(window, typeof model === 'string' ? model : undefined);
        return reply(res, 200, { ok: true });
      }
      case 'POST /_control/reset':
        server.reset();
        return reply(res, 200, { ok: true });
      default:
        return reply(res, 404, { error: `unknown control route ${route}` });
    }
  } catch (e) {
    reply(res, 400, { error: e instanceof Error ? e.message : String(e) });
  }
}
