// Shared CLI helpers: load a session for reading, and resolve the model and settings from flags and the session.
import { resolveSettings, type ResolvedSettings } from '../engine/config.js';
import { TASK_TOOL_SCHEMA } from '../engine/agent/subagentTask.js';
import type { Entry } from '../engine/transcript/schema.js';
import type { SessionTree } from '../engine/transcript/tree.js';
import { resolveModelInfo, type ModelInfo } from '../engine/tokens/modelLimits.js';
import type { ToolSchema } from '../engine/ports.js';
import { hardLimitOf } from '../engine/tokens/tokenLimits.js';
import { windowError } from '../engine/tokens/windowDefaults.js';
import { toolLimitsForWindow } from '../node/tools/types.js';
import { toolSchemas } from '../node/tools/schemas.js';
import { DEFAULT_TOOL_LIMITS } from '../node/tools/types.js';
import { loadSessionFile, type SessionLoad } from '../node/sessionLoad.js';
import { CliError, intFlag, type Flags } from './args.js';

const DEFAULT_CLI_MODEL = 'gpt-4o';

/** Loads a session read-only; a missing or unreadable file becomes a one-line CliError. */
export async function loadForReading(path: string | undefined, usage: string): Promise<SessionLoad> {
  if (!path) throw new CliError(`missing session file: ${usage}`);
  try {
    return await loadSessionFile(path);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
}

/**
 * Like loadForReading, for commands whose figures only mean something for a real session: an empty file, random
 * bytes, UTF-16 text or a newer format is refused with the reason instead of reported as an empty session.
 */
export async function loadSessionForReading(path: string | undefined, usage: string): Promise<SessionLoad> {
  const load = await loadForReading(path, usage);
  if (load.header === undefined || load.unwritableReason !== undefined) {
    const why =
      load.problems.find((p) => p.kind === 'empty_file' || p.kind === 'missing_header' || p.kind === 'unknown_version')?.message ??
      load.unwritableReason ??
      'no valid header';
    throw new CliError(`${path ?? ''} is not a Capsule session this version can read (${why}); run 'capsule verify' for details`, 1);
  }
  return load;
}

/**
 * The model the session last used, with the limits its model_change recorded. The latest reply names the model
 * too, but without limits: it only wins when it names another model than the last model_change (an older file).
 */
export function sessionModel(
  branch: readonly Entry[],
): { model: string; contextWindow?: number; maxOutputTokens?: number; windowSource?: ModelInfo['source'] } | undefined {
  let replyModel: string | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    // Only replies Capsule received name a model it talked to (they record their provider); an imported reply's model
    // is the other agent's, metadata only: the session continues on the model the user configured.
    if (e?.type === 'assistant' && e.model && e.provider !== undefined && replyModel === undefined) replyModel = e.model;
    if (e?.type === 'model_change') {
      if (replyModel !== undefined && replyModel !== e.model) return { model: replyModel };
      return {
        model: e.model,
        contextWindow: e.contextWindow,
        maxOutputTokens: e.maxOutputTokens,
        ...(e.windowSource === undefined ? {} : { windowSource: e.windowSource }),
      };
    }
  }
  return replyModel === undefined ? undefined : { model: replyModel };
}

/**
 * sessionModel() of a tree's active branch without walking it: the model_change in force comes from the running
 * figures, and only the entries after it are read (back from the leaf, up to the latest reply that names a model).
 */
export function recordedModelOf(tree: SessionTree): ReturnType<typeof sessionModel> {
  const change = tree.figures().model;
  for (const e of tree.walkBack()) {
    if (e.id === change?.id) break;
    if (e.type === 'assistant' && e.model && e.provider !== undefined) return sessionModel(change === undefined ? [e] : [change, e]);
  }
  return sessionModel(change === undefined ? [] : [change]);
}

/** --window and --max-output as an override; a window below the supported minimum is a one-line error. */
export function limitFlags(flags: Flags): { contextWindow?: number; maxOutputTokens?: number } {
  const contextWindow = intFlag(flags, 'window');
  const error = contextWindow === undefined ? undefined : windowError(contextWindow, '--window');
  if (error !== undefined) throw new CliError(error);
  const maxOutputTokens = intFlag(flags, 'max-output');
  return { ...(contextWindow === undefined ? {} : { contextWindow }), ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) };
}

/** --model / --window / --max-output override what the session recorded, which overrides the built-in table. */
export function modelFromFlags(flags: Flags, branch: readonly Entry[]): ModelInfo {
  const recorded = sessionModel(branch);
  const model = typeof flags.model === 'string' && flags.model.trim() !== '' ? flags.model.trim() : (recorded?.model ?? DEFAULT_CLI_MODEL);
  const sameModel = recorded?.model === model;
  return resolveModelInfo(model, {
    provider: sameModel ? { contextWindow: recorded?.contextWindow, maxOutputTokens: recorded?.maxOutputTokens } : undefined,
    override: limitFlags(flags),
  });
}

/** Compaction settings (`--set`, `--no-auto-compact`), validated against the model, with CAPSULE_AUTO_COMPACT from the environment. */
export function cliSettings(model: ModelInfo, raw: Readonly<Record<string, unknown>> = {}): ResolvedSettings {
  return resolveSettings({ raw, env: process.env, model: { contextWindow: model.contextWindow, maxOutputTokens: model.maxOutputTokens } });
}

/**
 * The tool schemas exactly as `capsule chat` sends them for this model (the same host, the same window-derived
 * limits), so budgets and compactions count what the model really receives and calibration can match its prefix.
 */
export function chatToolSchemas(model: ModelInfo, resolved: ResolvedSettings): readonly ToolSchema[] {
  const limits = toolLimitsForWindow(hardLimitOf(model.contextWindow, model.maxOutputTokens, resolved.settings.safetyReserveTokens));
  // What WorkspaceToolHost lists for the same limits with a checkpoint and an evidence tool (a test holds them equal),
  // without building the host: `capsule budget` needs the schemas, not the tools (docs/performance.md).
  const schemas = toolSchemas({ ...DEFAULT_TOOL_LIMITS, ...limits }, { checkpoint: true, evidence: true });
  // chat adds the task tool after the workspace tools (docs/subagents.md); the count must match what it sends.
  return [...schemas, TASK_TOOL_SCHEMA];
}

/** The provider label `capsule chat` records with replies: part of the calibration fingerprint. */
export { DEFAULT_PROVIDER_LABEL as CLI_PROVIDER } from '../node/providers/providerLabel.js';
