// A scripted OpenAI-compatible HTTP server on 127.0.0.1 for provider, CLI and end-to-end tests.
import { modelLimitFields, nativeModelRoute } from './modelShapes.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl } from './control.js';
import { contextLengthError, invalidRequest, missingKeyError, modelNotFound, notFoundRoute, wrongKeyError } from './errors.js';
import { requestedCompletion, sendJson, sendReply, type MutableRecord } from './respond.js';
import { Script } from './script.js';
import { cachedTokensFor, commonPrefixLength, encodeRequest } from './tokens.js';
import type { FakeModel, FakeServerOptions, MatchSpec, Predicate, RecordedRequest, Responder, ScriptedReply } from './types.js';
import { validateChatBody } from './validate.js';

export { countRequestTokens, encodeRequest, MEDIA_PART_TOKENS } from './tokens.js';
export { isSummaryRequest, lastUserText } from './script.js';
export type * from './types.js';

const DEFAULT_WINDOW = 65000;
const DEFAULT_MODEL_ID = 'fake-model';
const MODEL_CREATED = 1700000000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function parseJson(raw: string): unknown {
  try {
    return raw === '' ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

export class FakeOpenAIServer {
  readonly url: string;
  private records: MutableRecord[] = [];
  private readonly script: Script;
  private window: number;
  private models: FakeModel[];
  /** Token sequence of the last request answered 200: the simulated prompt cache. */
  private lastPrompt: readonly number[] | undefined;
  private completionSeq = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    port: number,
    private readonly opts: FakeServerOptions,
  ) {
    this.url = `http://127.0.0.1:${port}/v1`;
    this.script = new Script(opts.fallback);
    this.script.enqueue(opts.script ?? []);
    this.window = opts.window ?? DEFAULT_WINDOW;
    this.models = this.initialModels();
  }

  /** Starts listening on 127.0.0.1 (port 0 = any free port). */
  static async start(opts: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
    let self: FakeOpenAIServer | undefined;
    const server = createServer((req, res) => {
      if (self) void self.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    self = new FakeOpenAIServer(server, (server.address() as AddressInfo).port, opts);
    return self;
  }

  /** Every request received since start/reset, oldest first (control endpoints excepted). */
  get requests(): readonly RecordedRequest[] {
    return this.records;
  }

  /** Only the POST /v1/chat/completions requests. */
  get chatRequests(): readonly RecordedRequest[] {
    return this.records.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
  }

  /** Scripted replies not yet consumed from the queue. */
  get pendingReplies(): number {
    return this.script.pending;
  }

  get contextWindow(): number {
    return this.window;
  }

  enqueue(...replies: ScriptedReply[]): this {
    this.script.enqueue(replies);
    return this;
  }

  /** Answers matching requests with `reply` (before the queue); `times` limits how often. Earlier matchers win. */
  onMatch(when: Predicate | MatchSpec, reply: ScriptedReply | Responder, opts: { times?: number } = {}): this {
    this.script.onMatch(when, reply, opts.times ?? Infinity);
    return this;
  }

  /** Replaces the responder used when no matcher applies and the queue is empty. */
  setFallback(fallback: Responder): this {
    this.script.setFallback(fallback);
    return this;
  }

  /** Sets the context window of one model, or (no id) of every model and the default. */
  setWindow(n: number, modelId?: string): this {
    if (modelId === undefined) this.window = n;
    this.models = this.models.map((m) => (modelId === undefined || m.id === modelId ? { ...m, contextLength: n } : m));
    return this;
  }

  /** Back to the state right after start, with an empty script and no recorded requests. */
  reset(): void {
    this.records = [];
    this.script.clear();
    if (this.opts.fallback) this.script.setFallback(this.opts.fallback);
    this.window = this.opts.window ?? DEFAULT_WINDOW;
    this.models = this.initialModels();
    this.lastPrompt = undefined;
  }

  /** Resolves once at least `count` requests were received (since start/reset). */
  async waitForRequests(count: number, timeoutMs = 5000): Promise<readonly RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.records.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`fake server: ${this.records.length} requests received, waited for ${count}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.records;
  }

  /** Stops listening and drops open connections (hanging requests end). */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private initialModels(): FakeModel[] {
    return [...(this.opts.models ?? [{ id: DEFAULT_MODEL_ID, contextLength: this.window }])];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const rawBody = await readBody(req).catch(() => '');
    if (this.opts.control && path.startsWith('/_control/')) return handleControl(this, method, path, rawBody, res);
    const record: MutableRecord = {
      index: this.records.length,
      method,
      path,
      headers: headersOf(req),
      body: parseJson(rawBody),
      rawBody,
      time: Date.now(),
      promptTokens: undefined,
      status: undefined,
      reply: undefined,
      stream: false,
      aborted: false,
      completed: false,
    };
    this.records.push(record);
    for (const wake of this.waiters.splice(0)) wake();
    res.on('finish', () => (record.completed = true));
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    try {
      await this.route(record, res);
    } catch (e) {
      // A bug in a test's responder must show up as a failing request, not a hung one.
      if (res.headersSent) res.destroy();
      else sendJson(res, record, 500, invalidRequest(`fake server error: ${e instanceof Error ? e.message : String(e)}`));
    }
  }

  private async route(record: MutableRecord, res: ServerResponse): Promise<void> {
    const { method, path } = record;
    if (this.opts.apiKey !== undefined && path.startsWith('/v1/')) {
      const auth = record.headers['authorization'];
      if (auth === undefined) return sendJson(res, record, 401, missingKeyError());
      if (auth !== `Bearer ${this.opts.apiKey}`) return sendJson(res, record, 401, wrongKeyError(auth.replace(/^Bearer /, '')));
    }
    if (method === 'GET' && path.startsWith('/v1/models') && this.opts.noModelsRoute === true) return sendJson(res, record, 404, notFoundRoute(method, path));
    if (method === 'GET' && path === '/v1/models') {
      return sendJson(res, record, 200, { object: 'list', data: this.models.map((m) => this.modelObject(m)) });
    }
    if (method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      const model = this.models.find((m) => m.id === id);
      return model ? sendJson(res, record, 200, this.modelObject(model)) : sendJson(res, record, 404, modelNotFound(id));
    }
    if (method === 'POST' && path === '/v1/chat/completions') return this.chat(record, res);
    const native = nativeModelRoute(this.opts.modelsShape, method, path, record.body, this.models);
    if (native !== undefined) return sendJson(res, record, native.status, native.body);
    return sendJson(res, record, 404, notFoundRoute(method, path));
  }

  private modelObject(m: FakeModel): Record<string, unknown> {
    return {
      id: m.id,
      object: 'model',
      created: MODEL_CREATED,
      owned_by: 'capsule-fake',
      ...(this.opts.hideModelLimits === true ? {} : modelLimitFields(this.opts.modelsShape, m)),
    };
  }

  private async chat(record: MutableRecord, res: ServerResponse): Promise<void> {
    if (record.body === undefined) {
      return sendJson(res, record, 400, invalidRequest('We could not parse the JSON body of your request.'));
    }
    const checked = validateChatBody(record.body, this.opts.validateToolPairs ?? true);
    if ('error' in checked) return sendJson(res, record, 400, checked.error);
    const body = checked.body;
    record.stream = body.stream === true;
    const model = this.models.find((m) => m.id === body.model);
    if (!model && this.opts.strictModels) return sendJson(res, record, 404, modelNotFound(body.model));
    const window = model?.contextLength ?? this.window;
    const tokens = encodeRequest(body);
    const promptTokens = tokens.length;
    record.promptTokens = promptTokens;
    const completion = requestedCompletion(body);
    if (promptTokens + (completion ?? 0) > window) {
      record.reply = 'contextLength';
      return sendJson(res, record, 400, contextLengthError(window, promptTokens, completion));
    }
    const cache = this.opts.promptCache ?? { minTokens: 1024, granularity: 128 };
    const cachedTokens =
      cache && cache !== 'unreported' && this.lastPrompt ? cachedTokensFor(commonPrefixLength(this.lastPrompt, tokens), cache.minTokens, cache.granularity) : 0;
    const reply = await this.script.next({ index: record.index, body, promptTokens, headers: record.headers });
    await sendReply(
      {
        res,
        record,
        body,
        promptTokens,
        cachedTokens: this.opts.promptCache === 'unreported' ? undefined : Math.min(cachedTokens, promptTokens),
        window,
        completionId: `chatcmpl-fake${++this.completionSeq}`,
        newCallId: () => `call_${randomBytes(12).toString('hex')}`,
      },
      reply,
    );
    if (record.status === 200) this.lastPrompt = tokens;
  }
}

export async function startFakeOpenAI(opts: FakeServerOptions = {}): Promise<FakeOpenAIServer> {
  return FakeOpenAIServer.start(opts);
}
