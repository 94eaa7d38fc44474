// Node wiring of one agent session from one config object: JSONL store, evidence archive, flight recorder, workspace tools, model, Agent.
import { resolve } from 'node:path';
import { Agent, type AgentOptions, type SwitchResult, type SwitchTarget } from '../engine/agent/turnLoop.js';
import type { AgentListener } from '../engine/agent/agentEvents.js';
import { DEFAULT_SYSTEM_PROMPT } from '../engine/agent/systemPrompt.js';
import { DEFAULT_EVIDENCE_PAGE_CHARS, runEvidenceToolFromArchive } from '../engine/compaction/evidence.js';
import { TriggerState } from '../engine/compaction/triggers.js';
import { resolveSettings, type ResolvedSettings } from '../engine/config.js';
import type { ChatModel, Clock, IdSource, Logger, ToolHost, ToolResult } from '../engine/ports.js';
import { EntryTokenCache } from '../engine/tokens/entryCache.js';
import { resolveModelInfo, type ModelInfo, type PartialLimits } from '../engine/tokens/modelLimits.js';
import { counterForModel } from '../engine/tokens/tokenizer.js';
import { FileEvidenceArchive } from './evidenceArchive.js';
import { FlightRecorder } from './flightRecorder.js';
import { JsonlSessionStore } from './jsonlStore.js';
import { nodeClock, nodeIds } from './nodeClock.js';
import { OpenAIChatModel } from './openaiModel.js';
import type { ApprovalFn, ToolLimits } from './tools/types.js';
import { WorkspaceToolHost } from './tools/workspaceToolHost.js';

/** An OpenAI-compatible endpoint (OpenAI, Azure, OpenRouter, Ollama, LM Studio, vLLM). */
export interface OpenAIEndpoint {
  readonly baseURL: string;
  /** Empty or absent for keyless local servers. */
  readonly apiKey?: string;
  readonly model: string;
  /** Label recorded with replies (part of the calibration fingerprint). */
  readonly provider?: string;
  /** Time allowed until response headers arrive. */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ModelConfig {
  /** A ready ChatModel (e.g. the vscode.lm adapter) or an OpenAI-compatible endpoint to build one for. */
  readonly chat: ChatModel | OpenAIEndpoint;
  /** Limits the provider reported (VS Code `maxInputTokens`, `/v1/models` fields). */
  readonly provider?: PartialLimits;
  /** User overrides (`--window`, `--max-output`, settings). */
  readonly override?: PartialLimits;
}

export interface WorkspaceConfig {
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  readonly ripgrepPath?: string;
  readonly limits?: Partial<ToolLimits>;
}

export interface AgentSessionConfig {
  readonly sessionPath: string;
  /**
   * The store of `sessionPath` when the host already holds it open (the extension's session service); the
   * session then uses it instead of opening the file a second time, and close() leaves it open.
   */
  readonly store?: JsonlSessionStore;
  /** Creates the session file (with this header) when it does not exist. */
  readonly create?: { readonly id?: string; readonly cwd: string; readonly title?: string };
  /** Default: `<session stem>.archive/` next to the session file. */
  readonly archiveDir?: string;
  /** Default: `<session stem>.flight.jsonl` next to the session file. */
  readonly flightLog?: string;
  readonly model: ModelConfig;
  /** Raw `capsule.compaction.*` values (S4); validated against the model. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Only CAPSULE_AUTO_COMPACT is read; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Without it the agent has no tools. */
  readonly workspace?: WorkspaceConfig;
  readonly systemPrompt?: string;
  /** Instruction updates (e.g. Project Memory) appended once as system updates (S14); already present ones are skipped. */
  readonly instructions?: readonly { readonly content: string; readonly reason?: string }[];
  readonly clock?: Clock;
  readonly ids?: IdSource;
  readonly logger?: Logger;
  readonly listener?: AgentListener;
  readonly agentOptions?: Partial<AgentOptions>;
  /** Project-specific test-command patterns for the ledger (`capsule.ledger.testCommands`). */
  readonly testCommands?: readonly string[];
  /** TriggerState.toJSON() of an earlier run, so pending intents survive a restart. */
  readonly triggerState?: unknown;
}

/** `<dir>/<name>` without `.jsonl`, the stem the CLI's sidecar files share. */
export function sidecarPaths(sessionPath: string): { readonly archiveDir: string; readonly flightLog: string } {
  const stem = sessionPath.replace(/\.jsonl$/i, '');
  return { archiveDir: `${stem}.archive`, flightLog: `${stem}.flight.jsonl` };
}

function isChatModel(c: ChatModel | OpenAIEndpoint): c is ChatModel {
  return typeof (c as Partial<ChatModel>).chat === 'function';
}

export function chatModelOf(c: ChatModel | OpenAIEndpoint): ChatModel {
  if (isChatModel(c)) return c;
  return new OpenAIChatModel({
    baseURL: c.baseURL,
    apiKey: c.apiKey ?? '',
    model: c.model,
    ...(c.provider === undefined ? {} : { provider: c.provider }),
    ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
    ...(c.headers === undefined ? {} : { headers: c.headers }),
  });
}

/** The model, its limits (override > provider > table > default) and the settings validated against them. */
export function resolveTarget(model: ModelConfig, settings: AgentSessionConfig['settings'], env: AgentSessionConfig['env']): SwitchTarget & { readonly info: ModelInfo } {
  const chat = chatModelOf(model.chat);
  const info = resolveModelInfo(chat.model, { ...(model.provider ? { provider: model.provider } : {}), ...(model.override ? { override: model.override } : {}) });
  const resolved: ResolvedSettings = resolveSettings({ raw: settings ?? {}, env: env ?? process.env, model: { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens } });
  return { chat, contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens, resolved, info };
}

const NO_TOOLS: ToolHost = {
  schemas: () => [],
  run: async (name): Promise<ToolResult> => ({ isError: true, content: `No tools are available in this session (asked for "${name}").` }),
};

export class AgentSession {
  private constructor(
    readonly agent: Agent,
    readonly store: JsonlSessionStore,
    readonly archive: FileEvidenceArchive,
    readonly recorder: FlightRecorder,
    readonly tools: ToolHost,
    private readonly config: AgentSessionConfig,
    private readonly ownsStore: boolean,
  ) {}

  static async open(config: AgentSessionConfig): Promise<AgentSession> {
    const clock = config.clock ?? nodeClock;
    const ids = config.ids ?? nodeIds;
    const paths = sidecarPaths(resolve(config.sessionPath));
    const target = resolveTarget(config.model, config.settings, config.env);
    if (target.resolved?.warning) config.logger?.log('warn', target.resolved.warning);
    const create = config.create;
    const owned = config.store === undefined;
    const store =
      config.store ??
      (await JsonlSessionStore.open(config.sessionPath, {
        clock,
        ...(create === undefined ? {} : { create: { id: create.id ?? ids.next('s_'), cwd: create.cwd, ...(create.title === undefined ? {} : { title: create.title }) } }),
      }));
    try {
      const archive = new FileEvidenceArchive(config.archiveDir ?? paths.archiveDir);
      const recorder = new FlightRecorder(config.flightLog ?? paths.flightLog, config.logger);
      // The tools call back into the agent (checkpoint, evidence), which needs the tools first: bind late.
      let agent: Agent | undefined;
      const ws = config.workspace;
      const tools: ToolHost =
        ws === undefined
          ? NO_TOOLS
          : new WorkspaceToolHost({
              roots: ws.roots,
              approve: ws.approve,
              trusted: ws.trusted,
              ...(ws.ripgrepPath === undefined ? {} : { ripgrepPath: ws.ripgrepPath }),
              ...(ws.limits === undefined ? {} : { limits: ws.limits }),
              evidence: (argsJson) => runEvidenceToolFromArchive(archive, agent?.capsuleOperationId(), argsJson, { pageChars: DEFAULT_EVIDENCE_PAGE_CHARS }),
              checkpoint: async (kind, note) => {
                if (agent === undefined) throw new Error('the session is not ready');
                return agent.recordCheckpoint(kind, note);
              },
            });
      agent = new Agent({
        store,
        archive,
        clock,
        ids,
        cache: new EntryTokenCache(counterForModel(target.chat.model)),
        model: { chat: target.chat, contextWindow: target.contextWindow, maxOutputTokens: target.maxOutputTokens },
        tools,
        resolved: target.resolved ?? resolveSettings({ raw: {} }),
        systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
        ...(config.triggerState === undefined ? {} : { triggers: TriggerState.fromJSON(config.triggerState) }),
        recordFlight: (r) => recorder.record(r),
        ...(config.logger === undefined ? {} : { logger: config.logger }),
        ...(config.agentOptions === undefined ? {} : { options: config.agentOptions }),
        ...(config.testCommands === undefined ? {} : { testCommands: config.testCommands }),
      });
      if (config.listener !== undefined) agent.subscribe(config.listener);
      await agent.start();
      for (const i of config.instructions ?? []) await agent.appendSystemUpdate(i.content, i.reason);
      return new AgentSession(agent, store, archive, recorder, tools, config, owned);
    } catch (err) {
      if (owned) await store.close();
      throw err;
    }
  }

  /** Switches to another model, with the mandatory protective handoff when it has less room (S5). */
  switchModel(model: ModelConfig, signal?: AbortSignal): Promise<SwitchResult> {
    const target = resolveTarget(model, this.config.settings, this.config.env);
    return this.agent.switchModel(target, signal);
  }

  /** Waits for the running turn (cancel it first to stop sooner), then releases the session file if this session opened it. */
  async close(): Promise<void> {
    await this.agent.idle();
    if (this.ownsStore) await this.store.close();
  }
}
