// The MCP host tests' set-up: the real extension with the fixture server `h` (and any others) in user settings, a fake OpenAI endpoint, the agent view open.
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { HostToWebview } from '../../../src/protocol/messages.js';
import { startFakeOpenAI, type FakeOpenAIServer } from '../../fakes/openaiServer.js';
import { closeAgentView, createHarness, type Harness, openAgentView, type OpenView } from './hostHarness.js';

const HOSTILE = join(__dirname, '..', 'mcp', 'fixtures', 'hostileServer.mjs');

export interface McpHost {
  readonly h: Harness;
  /** The fake endpoint and the open view: there from the file's `before` on. */
  readonly server: FakeOpenAIServer;
  readonly v: OpenView;
  /** Closes the view and opens it again (a reload); `v` is the new one from then on. */
  reopen(): void;
}

/** Registers the file's `before` and `after`. `servers`: MCP servers besides `h`; `settings`: more settings. */
export function mcpHost(opts: { readonly servers?: Readonly<Record<string, unknown>>; readonly settings?: Readonly<Record<string, unknown>> } = {}): McpHost {
  const h = createHarness({
    settings: {
      'capsule.model.id': 'fake-model',
      'capsule.model.contextWindow': 64_000,
      'capsule.model.maxOutputTokens': 2_000,
      'capsule.mcp.servers': { h: { command: process.execPath, args: [HOSTILE, 'basic'] }, ...opts.servers },
      ...opts.settings,
    },
  });
  let server: FakeOpenAIServer | undefined;
  let v: OpenView | undefined;
  before(async () => {
    h.state.scopes.set('capsule.mcp.servers', 'user');
    server = await startFakeOpenAI({ window: 64_000 });
    v = await openAgentView(h, server);
  });
  after(() => (v !== undefined && server !== undefined ? closeAgentView(h, v, server) : undefined));
  const opened = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('the MCP host is not open yet (before has not run)');
    return x;
  };
  return {
    h,
    get server() {
      return opened(server);
    },
    get v() {
      return opened(v);
    },
    reopen: () => {
      opened(v).dispose();
      v = h.openView();
    },
  };
}

/** The host said the turn ended. */
export const idle = (ms: readonly HostToWebview[]): boolean => ms.some((m) => m.type === 'busy' && !m.busy);
