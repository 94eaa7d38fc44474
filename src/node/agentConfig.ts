// What opens an agent session: the model, the workspace, the session file and its sidecars, and how a model becomes a switch target.
import type { AgentListener } from '../engine/agent/agentEvents.js';
import type { AgentOptions, SwitchTarget } from '../engine/agent/turnLoop.js';
import { resolveSettings, type ResolvedSettings } from '../engine/config.js';
import type { ChatModel, Clock, IdSource, Logger } from '../engine/ports.js';
import { resolveModelInfo, type ModelInfo, type PartialLimits } from '../engine/tokens/modelLimits.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { OpenAIChatModel } from './providers/openaiModel.js';
import type { ApprovalFn, ToolLimits } from './tools/types.js';
import type { InstructionOptions } from './instructions/sessionInstructions.js';
import type { SubagentEvent } from './subagents/subagentRunner.js';
import type { McpSessionConfig } from './mcp/sessionMcp.js';

/** An OpenAI-compatible endpoint (OpenAI, Azure, OpenRouter, Ollama, LM Studio, vLLM). */
interface OpenAIEndpoint {
  readonly baseURL: string;
  /** Empty or absent for keyless local servers. */
  readonly apiKey?: string;
  readonly model: string;
  /** Label recorded with replies (part of the calibration fingerprint). */
  readonly provider?: string;
  /** Time allowed until response headers arrive. */
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Send the per-chat `prompt_cache_key` / `user`; default true (see OpenAIModelOptions.sendCacheKey). */
  readonly sendCacheKey?: boolean;
}

export interface ModelConfig {
  /** A ready ChatModel (e.g. the vscode.lm adapter) or an OpenAI-compatible endpoint to build one for. */
  readonly chat: ChatModel | OpenAIEndpoint;
  /** Limits the provider reported (VS Code `maxInputTokens`, `/v1/models` fields). */
  readonly provider?: PartialLimits;
  /** A window an earlier session learned from this endpoint's overflow error (persisted per endpoint + model). */
  readonly learned?: PartialLimits;
  /** User overrides (`--window`, `--max-output`, settings). */
  readonly override?: PartialLimits;
}

export interface WorkspaceConfig {
  readonly roots: readonly string[];
  readonly approve: ApprovalFn;
  readonly trusted: () => boolean;
  readonly ripgrepPath?: string;
  readonly limits?: Partial<ToolLimits>;
  /** Background processes of commands outlive the turn (they still stop when the session closes). */
  readonly keepBackgroundProcesses?: boolean;
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
  /** Pending compaction intents, kept across restarts. Default: `<session stem>.intents.json` next to the session file. */
  readonly intentsFile?: string;
  /** File snapshots for rewind (docs/rewind.md). Default: `<session stem>.files/` next to the session file. */
  readonly snapshotsDir?: string;
  /** The secret that signs the snapshots' change log, kept outside every workspace (docs/rewind.md#safety). Default: the CLI's, see cliKeyPath. */
  readonly snapshotKeyFile?: string;
  /** Further files Capsule itself writes (settings files, Project Memory, capsules): the agent can write none of them, and rewind never touches them. */
  readonly ownFiles?: readonly string[];
  readonly model: ModelConfig;
  /** Raw `capsule.compaction.*` values (docs/behaviour.md#settings); validated against the model. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Only CAPSULE_AUTO_COMPACT is read; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Without it the agent has no tools. */
  readonly workspace?: WorkspaceConfig;
  /** Started MCP servers whose tools join the workspace tools (docs/user/mcp.md); needs `workspace`. */
  readonly mcp?: McpSessionConfig;
  readonly systemPrompt?: string;
  /** Instruction updates (e.g. Project Memory) appended once as system updates (docs/behaviour.md#cache-epochs); already present ones are skipped. */
  readonly instructions?: readonly { readonly content: string; readonly reason?: string }[];
  /** Instruction files, skills and the mode (docs/user/instructions.md); without it none are read. Needs `workspace`. */
  readonly instructionFiles?: InstructionOptions;
  readonly clock?: Clock;
  readonly ids?: IdSource;
  readonly logger?: Logger;
  readonly listener?: AgentListener;
  readonly agentOptions?: Partial<AgentOptions>;
  /** Project-specific test-command patterns for the ledger (`capsule.ledger.testCommands`). */
  readonly testCommands?: readonly string[];
  /** TriggerState.toJSON() of an earlier run, used only when the intents file does not exist yet (an older host kept them elsewhere). */
  readonly triggerState?: unknown;
  /** The `task` tool (docs/subagents.md): on with a workspace unless `enabled` is false; raw `capsule.subagents.*` values; child progress. */
  readonly subagents?: { readonly enabled?: boolean; readonly settings?: Readonly<Record<string, unknown>>; readonly onEvent?: (e: SubagentEvent) => void };
}

/** `<dir>/<name>` without `.jsonl`, the stem the CLI's sidecar files share. */
export function sidecarPaths(sessionPath: string): { readonly archiveDir: string; readonly flightLog: string; readonly intentsFile: string } {
  const stem = sessionPath.replace(/\.jsonl$/i, '');
  return { archiveDir: `${stem}.archive`, flightLog: `${stem}.flight.jsonl`, intentsFile: `${stem}.intents.json` };
}

function isChatModel(c: ChatModel | OpenAIEndpoint): c is ChatModel {
  return typeof (c as Partial<ChatModel>).chat === 'function';
}

function chatModelOf(c: ChatModel | OpenAIEndpoint): ChatModel {
  if (isChatModel(c)) return c;
  return new OpenAIChatModel({
    baseURL: c.baseURL,
    apiKey: c.apiKey ?? '',
    model: c.model,
    ...(c.provider === undefined ? {} : { provider: c.provider }),
    ...(c.timeoutMs === undefined ? {} : { timeoutMs: c.timeoutMs }),
    ...(c.headers === undefined ? {} : { headers: c.headers }),
    ...(c.sendCacheKey === undefined ? {} : { sendCacheKey: c.sendCacheKey }),
  });
}

/** The model, its limits (override > learned > provider > table > default) and the settings validated against them. */
export function resolveTarget(
  model: ModelConfig,
  settings: AgentSessionConfig['settings'],
  env: AgentSessionConfig['env'],
): SwitchTarget & { readonly info: ModelInfo } {
  const chat = chatModelOf(model.chat);
  const info = resolveModelInfo(chat.model, {
    ...(model.provider ? { provider: model.provider } : {}),
    ...(model.learned ? { learned: model.learned } : {}),
    ...(model.override ? { override: model.override } : {}),
  });
  const resolved: ResolvedSettings = resolveSettings({
    raw: settings ?? {},
    env: env ?? process.env,
    model: { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens },
  });
  return { chat, contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens, windowSource: info.source, resolved, info };
}
