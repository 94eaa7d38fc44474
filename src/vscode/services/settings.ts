// The one module that reads and writes `capsule.*` settings: validated compaction settings plus the model and provider choice, and the one scope rule for writes.
import * as vscode from 'vscode';
import { checkSetting, DEFAULT_MAX_REQUESTS_PER_TURN, resolveSettings, SETTING_KEYS, type ResolvedSettings } from '../../engine/config.js';
import { compileTestPatterns } from '../../engine/effects/testRunners.js';
import { resolveModelInfo, type ModelInfo, type PartialLimits } from '../../engine/tokens/modelLimits.js';
import { DEFAULT_SKILL_RELOAD_TOKENS } from '../../engine/agent/instructionSync.js';
import { INSTRUCTION_FAMILIES, type InstructionFamily } from '../../node/instructions/instructionFiles.js';
import { DEFAULT_INSTRUCTION_SHARE } from '../../node/instructions/instructionReport.js';
import type { InstructionOptions } from '../../node/instructions/sessionInstructions.js';
import { MCP_SETTING_SCHEMAS, resolveMcpSettings, type McpSettings } from '../../node/mcp/mcpSettings.js';

/** Read alongside SETTING_KEYS: the deprecated alias that resolveSettings maps onto timeoutMs. */
const DEPRECATED_KEYS = ['backgroundTimeoutMs'] as const;

const DEFAULT_MODEL_ID = 'gpt-4o';

/** `openai`: any OpenAI-compatible endpoint; `vscode-lm`: a VS Code language model (`capsule.model.id` is its id). */
type ProviderKind = 'openai' | 'vscode-lm';
const DEFAULT_PROVIDER_KIND: ProviderKind = 'openai';

export interface HostSettings {
  readonly resolved: ResolvedSettings;
  /** The explicitly set `capsule.compaction.*` values, for validating them again against another model. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly providerKind: ProviderKind;
  readonly modelId: string;
  /** Empty means OpenAI itself. */
  readonly baseUrl: string;
  /** Provider name used in budgets and prefix fingerprints. */
  readonly provider: string;
  /** User overrides; 0 in settings means "automatic" and is left out here. */
  readonly modelOverride: PartialLimits;
  readonly model: ModelInfo;
  /** `capsule.agent.maxRequestsPerTurn`, validated (an invalid value falls back to the default). */
  readonly maxRequestsPerTurn: number;
  /** `capsule.provider.sendCacheKey`: the per-chat prompt-cache key goes with each OpenAI-compatible request. */
  readonly sendCacheKey: boolean;
}

/**
 * Only explicitly set values count: `get()` would return package.json defaults, which would hide a user's
 * deprecated `backgroundTimeoutMs` behind the default `timeoutMs`, and a type-less default of 0.
 */
function explicit<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  if (!i) return undefined;
  return i.workspaceFolderValue ?? i.workspaceValue ?? i.globalValue;
}

function positiveOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

function readHostSettings(cfg: vscode.WorkspaceConfiguration, env: Readonly<Record<string, string | undefined>>): HostSettings {
  const raw: Record<string, unknown> = {};
  for (const key of [...SETTING_KEYS, ...DEPRECATED_KEYS]) raw[key] = explicit<unknown>(cfg, `compaction.${key}`);

  const idSetting = cfg.get<unknown>('model.id');
  const modelId = typeof idSetting === 'string' && idSetting.trim().length > 0 ? idSetting.trim() : DEFAULT_MODEL_ID;
  const providerKind: ProviderKind = cfg.get<unknown>('provider.kind') === 'vscode-lm' ? 'vscode-lm' : DEFAULT_PROVIDER_KIND;
  const urlSetting = cfg.get<unknown>('provider.baseUrl');
  const baseUrl = typeof urlSetting === 'string' ? urlSetting.trim() : '';
  const modelOverride: PartialLimits = {
    contextWindow: positiveOrUndefined(cfg.get<unknown>('model.contextWindow')),
    maxOutputTokens: positiveOrUndefined(cfg.get<unknown>('model.maxOutputTokens')),
  };
  const model = resolveModelInfo(modelId, { override: modelOverride });
  const resolved = resolveSettings({ raw, env, model: { contextWindow: model.contextWindow, maxOutputTokens: model.maxOutputTokens } });
  const provider = providerKind === 'vscode-lm' ? 'vscode-lm' : baseUrl === '' ? 'openai' : 'openai-compatible';
  const maxRequests = checkSetting('agent', 'maxRequestsPerTurn', cfg.get<unknown>('agent.maxRequestsPerTurn') ?? DEFAULT_MAX_REQUESTS_PER_TURN);
  const maxRequestsPerTurn = maxRequests.ok ? Number(maxRequests.value) : DEFAULT_MAX_REQUESTS_PER_TURN;
  const sendCacheKey = cfg.get<unknown>('provider.sendCacheKey') !== false;
  return { resolved, raw, providerKind, modelId, baseUrl, provider, modelOverride, model, sendCacheKey, maxRequestsPerTurn };
}

/** `capsule.ledger.testCommands`: extra test-runner patterns; invalid entries are dropped with a logged reason. */
export function readLedgerTestCommands(log?: (message: string) => void): string[] {
  const v = vscode.workspace.getConfiguration('capsule').get<unknown>('ledger.testCommands');
  const list = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  const { errors } = compileTestPatterns(list);
  for (const e of errors) log?.(`capsule.ledger.${e}`);
  return list;
}

/** `capsule.subagents.*` as set (docs/subagents.md); the facade validates them and falls back per value. */
export function readSubagentSettings(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('capsule');
  return {
    model: cfg.get<unknown>('subagents.model'),
    maxConcurrent: cfg.get<unknown>('subagents.maxConcurrent'),
    maxRequests: cfg.get<unknown>('subagents.maxRequests'),
  };
}

/** `capsule.projectMemory.inherit`: whether a new chat starts with this workspace's Project Memory (on unless set to false). */
export function readProjectMemoryInherit(): boolean {
  return vscode.workspace.getConfiguration('capsule').get<unknown>('projectMemory.inherit') !== false;
}

/**
 * `capsule.instructions.*` and `capsule.skills.*`: which instruction families are read, the share of the window
 * before the user is told to trim, the skill reload budget; Restricted Mode (an untrusted workspace) reads nothing.
 */
export function readInstructionSettings(): InstructionOptions {
  const cfg = vscode.workspace.getConfiguration('capsule');
  const fam = cfg.get<unknown>('instructions.families');
  const families = Array.isArray(fam)
    ? fam.filter((f): f is InstructionFamily => (INSTRUCTION_FAMILIES as readonly unknown[]).includes(f))
    : [...INSTRUCTION_FAMILIES];
  const share = cfg.get<unknown>('instructions.maxWindowShare');
  const reload = cfg.get<unknown>('skills.reloadBudgetTokens');
  return {
    families,
    maxWindowShare: typeof share === 'number' && share > 0 && share <= 1 ? share : DEFAULT_INSTRUCTION_SHARE,
    skillReloadTokens: typeof reload === 'number' && Number.isInteger(reload) && reload >= 0 ? reload : DEFAULT_SKILL_RELOAD_TOKENS,
    restricted: () => !vscode.workspace.isTrusted,
  };
}

/** Holds the current settings, re-reads them on change, and shows each new validation warning once. */
export class SettingsReader implements vscode.Disposable {
  readonly #emitter = new vscode.EventEmitter<HostSettings>();
  readonly #listener: vscode.Disposable;
  #current: HostSettings;
  #shownWarning: string | undefined;
  #loggedNotices = '';

  /** Fires after the settings were re-read. */
  readonly onDidChange = this.#emitter.event;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.#current = this.#read();
    this.#listener = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('capsule')) return;
      this.#current = this.#read();
      this.#emitter.fire(this.#current);
    });
  }

  get current(): HostSettings {
    return this.#current;
  }

  /** Reads again now: a write just made may not have announced itself yet (setup, then the key for that endpoint). */
  reread(): HostSettings {
    this.#current = this.#read();
    return this.#current;
  }

  #read(): HostSettings {
    const s = readHostSettings(vscode.workspace.getConfiguration('capsule'), process.env);
    const { warning, notices } = s.resolved;
    if (warning !== this.#shownWarning) {
      this.#shownWarning = warning;
      if (warning !== undefined) {
        this.log.warn(warning);
        void vscode.window.showWarningMessage(`Capsule: ${warning}`);
      }
    }
    const joined = notices.join('\n');
    if (joined !== this.#loggedNotices) {
      this.#loggedNotices = joined;
      for (const n of notices) this.log.info(n);
    }
    return s;
  }

  dispose(): void {
    this.#listener.dispose();
    this.#emitter.dispose();
  }
}

/** The value of `capsule.<key>` VS Code resolves now (folder over workspace over user over default). */
export function readSetting<T>(key: string): T | undefined {
  return vscode.workspace.getConfiguration('capsule').get<T>(key);
}

/**
 * The one scope rule for every write (toggles, the picker, setup): writes `capsule.<key>` where the user set it before (folder, workspace or user settings), so a value in a more
 * specific scope cannot silently win over the one just written; user settings when it was never set.
 */
export async function writeSetting(key: string, value: unknown): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('capsule');
  const i = cfg.inspect<unknown>(key);
  const target =
    i?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : i?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await cfg.update(key, value, target);
}

/** Where each scope holds `capsule.<key>` (for lists that are joined across scopes, such as the always-allowed commands). */
export function inspectSetting<T>(key: string): { readonly globalValue?: T; readonly workspaceValue?: T; readonly workspaceFolderValue?: T } | undefined {
  return vscode.workspace.getConfiguration('capsule').inspect<T>(key);
}

/** Writes `capsule.<key>` into the scope the user chose (`undefined` removes it there); without a workspace, user settings. */
export async function writeSettingAt(key: string, value: unknown, scope: 'user' | 'workspace' | 'folder'): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('capsule');
  const noWorkspace = vscode.workspace.workspaceFolders === undefined;
  const target =
    scope === 'user' || noWorkspace
      ? vscode.ConfigurationTarget.Global
      : scope === 'folder'
        ? vscode.ConfigurationTarget.WorkspaceFolder
        : vscode.ConfigurationTarget.Workspace;
  await cfg.update(key, value, target);
}

/** Writes `capsule.<key>` into this workspace's settings: for what belongs to one project. */
export async function writeWorkspaceSetting(key: string, value: unknown): Promise<void> {
  const cfg = vscode.workspace.getConfiguration('capsule');
  const target = vscode.workspace.workspaceFolders === undefined ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace;
  await cfg.update(key, value, target);
}

/** The globs VS Code's own settings hide from the explorer and from search (`files.exclude`, `search.exclude`) that are switched on. */
export function editorExcludes(): string[] {
  const on = (section: string): string[] => {
    const v = vscode.workspace.getConfiguration(section).get<unknown>('exclude');
    return typeof v === 'object' && v !== null
      ? Object.entries(v)
          .filter(([, x]) => x === true)
          .map(([k]) => k)
      : [];
  };
  return [...new Set([...on('files'), ...on('search')])];
}

/** `capsule.mcp.*`: the user's own servers (user settings only) and how MCP tools behave; a bad value keeps its default and is named. */
export function readMcpSettings(): { readonly settings: McpSettings; readonly userServers: unknown; readonly problems: readonly string[] } {
  const cfg = vscode.workspace.getConfiguration('capsule');
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(MCP_SETTING_SCHEMAS)) raw[key] = explicit<unknown>(cfg, `mcp.${key}`);
  // Servers run code: only the user's own settings count, never a workspace's (the setting is application-scoped too).
  const userServers = cfg.inspect<unknown>('mcp.servers')?.globalValue;
  const { settings, problems } = resolveMcpSettings(raw);
  return { settings, userServers, problems };
}
