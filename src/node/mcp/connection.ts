// One MCP server over the official SDK: start with an initialize timeout, list tools (and again on list_changed), calls with timeout and cancel, restart after a crash with backoff.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from '../../engine/zod.js';
import type { McpServerConfig } from './configTypes.js';
import { GroupStdioTransport, StderrTail } from './stdioTransport.js';

export type McpStatus = 'starting' | 'ready' | 'failed' | 'restarting' | 'stopped';

export interface McpTimeouts {
  /** The server must answer `initialize` (and the first tools/list) within this. */
  readonly initializeMs: number;
  /** One tools/call may take this long. */
  readonly callMs: number;
}

export const DEFAULT_MCP_TIMEOUTS: McpTimeouts = { initializeMs: 30_000, callMs: 120_000 };
/** Tools read from one server at the most; a server listing more is cut with a note. */
const MAX_TOOLS_PER_SERVER = 1000;
/** Restarts after crashes: waits of 1, 2, 4, 8, 16 s, then the server stays failed. */
const RESTART_DELAYS_MS = [1000, 2000, 4000, 8000, 16000];

const CLIENT_INFO = { name: 'capsule', version: '0.1.0' };

/**
 * tools/list read leniently: the SDK's own schema rejects the whole list for one tool whose inputSchema lacks
 * `type: "object"`, which would cost the user every tool of that server; such schemas are normalized later.
 */
const LenientToolsResult = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.optional(z.string()),
});

export interface ConnectionEvents {
  /** The tool list changed (after start, a restart or list_changed). */
  readonly onTools?: (c: McpConnection) => void;
  /** Status moved; `error` is set for failed. */
  readonly onStatus?: (c: McpConnection) => void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class McpConnection {
  status: McpStatus = 'stopped';
  /** Why it failed or last crashed, with the stderr tail when there is one. */
  error: string | undefined;
  tools: readonly Tool[] = [];
  /** Set when the server listed more than MAX_TOOLS_PER_SERVER. */
  toolsCut = 0;
  readonly stderr = new StderrTail();
  private client: Client | undefined;
  private generation = 0;
  private restarts = 0;
  private ready: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;
  /** The re-listing a list_changed started, so a call that caused it returns only once the new list is known. */
  private relisting: Promise<void> = Promise.resolve();
  /** Transport actually in use for http servers ('http' or the 'sse' fallback). */
  transportUsed: 'stdio' | 'http' | 'sse' | 'memory';

  constructor(
    readonly config: McpServerConfig,
    private readonly timeouts: McpTimeouts = DEFAULT_MCP_TIMEOUTS,
    private readonly events: ConnectionEvents = {},
  ) {
    this.transportUsed = config.transport.type;
  }

  get name(): string {
    return this.config.name;
  }

  /** Starts the server and lists its tools; resolves either way (status says how it went). */
  start(): Promise<void> {
    this.ready = this.connect();
    return this.ready;
  }

  private setStatus(s: McpStatus, error?: string): void {
    this.status = s;
    this.error = error;
    this.events.onStatus?.(this);
  }

  private withStderr(text: string): string {
    const tail = this.stderr.lines();
    return tail === '' ? text : `${text} (stderr: ${tail})`;
  }

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this.setStatus(this.restarts > 0 ? 'restarting' : 'starting');
    const t = this.config.transport;
    try {
      const client =
        t.type === 'stdio'
          ? await this.open(
              new GroupStdioTransport({ command: t.command, args: t.args, env: t.env, ...(t.cwd === undefined ? {} : { cwd: t.cwd }) }, this.stderr),
            )
          : t.type === 'memory'
            ? await this.open(t.open())
            : await this.openHttp(t.url, t.headers, t.type);
      if (gen !== this.generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      await this.listTools(client);
      this.setStatus('ready');
      this.events.onTools?.(this);
    } catch (err) {
      if (gen !== this.generation) return;
      const why = this.startError(err);
      await this.client?.close().catch(() => undefined);
      this.client = undefined;
      this.setStatus('failed', this.withStderr(why));
    }
  }

  private startError(err: unknown): string {
    const m = message(err);
    const code = (err as NodeJS.ErrnoException).code;
    const t = this.config.transport;
    if (code === 'ENOENT' && t.type === 'stdio') return `the command "${t.command}" was not found`;
    if (code === 'EACCES' && t.type === 'stdio') return `the command "${t.command}" cannot be run (permission denied)`;
    if (/timed out|timeout/i.test(m)) return `no answer to initialize within ${Math.round(this.timeouts.initializeMs / 1000)} s`;
    if (/connection closed/i.test(m)) return 'the server exited during startup';
    return `could not start: ${m}`;
  }

  private async open(transport: Transport): Promise<Client> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client !== client) return Promise.resolve();
      const run = async (): Promise<void> => {
        try {
          await this.listTools(client);
          this.events.onTools?.(this);
        } catch (err) {
          this.error = `tools/list after list_changed failed: ${message(err)}`;
        }
      };
      this.relisting = this.relisting.then(run);
      return Promise.resolve();
    });
    const gen = this.generation;
    client.onclose = () => {
      // An exit nobody asked for is a crash: restart with backoff.
      if (this.client === client && gen === this.generation && this.status !== 'stopped') this.crashed();
    };
    try {
      await client.connect(transport, { timeout: this.timeouts.initializeMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return client;
  }

  /** Streamable HTTP first; a server that refuses it (an older HTTP+SSE server) is tried over SSE. */
  private async openHttp(url: string, headers: Readonly<Record<string, string>>, type: 'http' | 'sse'): Promise<Client> {
    const init = { requestInit: { headers: { ...headers } } };
    if (type === 'sse') {
      this.transportUsed = 'sse';
      return this.open(new SSEClientTransport(new URL(url), init));
    }
    try {
      this.transportUsed = 'http';
      return await this.open(new StreamableHTTPClientTransport(new URL(url), init));
    } catch (err) {
      if (/timed out|timeout|ECONNREFUSED|ENOTFOUND/i.test(message(err))) throw err;
      this.transportUsed = 'sse';
      return this.open(new SSEClientTransport(new URL(url), init));
    }
  }

  private async listTools(client: Client): Promise<void> {
    const all: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, LenientToolsResult, {
        timeout: this.timeouts.initializeMs,
      });
      // An entry without a name cannot be called: it is left out, the others stay.
      for (const t of r.tools)
        if (typeof t === 'object' && t !== null && typeof (t as { name?: unknown }).name === 'string' && (t as { name: string }).name !== '')
          all.push(t as Tool);
      cursor = r.nextCursor;
    } while (cursor !== undefined && ++pages < 100 && all.length < MAX_TOOLS_PER_SERVER);
    this.toolsCut = Math.max(0, all.length - MAX_TOOLS_PER_SERVER);
    this.tools = all.slice(0, MAX_TOOLS_PER_SERVER);
  }

  private crashed(): void {
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
    const delay = RESTART_DELAYS_MS[this.restarts];
    if (delay === undefined) {
      this.setStatus('failed', this.withStderr(`the server exited ${this.restarts + 1} times; it is not restarted again`));
      return;
    }
    this.restarts++;
    this.setStatus('restarting', this.withStderr('the server exited'));
    this.ready = new Promise((resolve) => {
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        void this.connect().then(resolve);
      }, delay);
      this.restartTimer.unref();
    });
  }

  /** Stops and starts again at once (the setup panel's Restart); the crash count starts over. */
  async restart(): Promise<void> {
    await this.stop();
    this.restarts = 0;
    await this.start();
  }

  /**
   * Calls a tool. Cancelling the signal makes the SDK send notifications/cancelled; a crash during the call (the
   * connection closes) rejects with a message that says so, and the server is restarted in the background.
   */
  async call(tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<CallToolResult> {
    if (this.status === 'restarting' || this.status === 'starting') await this.ready;
    const client = this.client;
    if (client === undefined || this.status !== 'ready') {
      throw new Error(`the MCP server "${this.name}" is ${this.status}${this.error === undefined ? '' : `: ${this.error}`}`);
    }
    // A signal of its own per call: the SDK leaves its abort listener on the signal it gets, and a turn's signal serves many calls.
    const own = new AbortController();
    const onAbort = (): void => own.abort(signal.reason);
    if (signal.aborted) own.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await client.callTool({ name: tool, arguments: { ...args } }, undefined, {
        signal: own.signal,
        timeout: this.timeouts.callMs,
        maxTotalTimeout: this.timeouts.callMs,
      });
      // A list_changed the call caused arrived before its answer: the new tool list is known before the model goes on.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.relisting;
      return r as CallToolResult;
    } catch (err) {
      if (signal.aborted) throw err;
      const m = message(err);
      if (/connection closed/i.test(m) || this.client !== client) {
        throw new Error(this.withStderr(`the MCP server "${this.name}" crashed during the call; it is being restarted`));
      }
      if (/timed out|timeout/i.test(m))
        throw new Error(`the MCP server "${this.name}" did not answer within ${Math.round(this.timeouts.callMs / 1000)} s (the call was cancelled)`);
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Stops the server (its whole process group for stdio); no restart follows. */
  async stop(): Promise<void> {
    this.generation++;
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.status = 'stopped';
    this.events.onStatus?.(this);
    await client?.close().catch(() => undefined);
  }
}
