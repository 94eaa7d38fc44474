// Shared CLI helpers: load a session for reading, and resolve the model and settings from flags and the session.
import { resolveSettings, type ResolvedSettings } from '../engine/config.js';
import type { Entry } from '../engine/transcript/schema.js';
import { resolveModelInfo, type ModelInfo } from '../engine/tokens/modelLimits.js';
import { AgentSession, type OfflineModel } from '../node/agentSession.js';
import { loadSessionFile, type SessionLoad } from '../node/jsonlStore.js';
import { CliError, intFlag, type Flags } from './args.js';

export const DEFAULT_CLI_MODEL = 'gpt-4o';

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
    const why = load.problems.find((p) => p.kind === 'empty_file' || p.kind === 'missing_header' || p.kind === 'unknown_version')?.message ?? load.unwritableReason ?? 'no valid header';
    throw new CliError(`${path ?? ''} is not a Capsule session this version can read (${why}); run 'capsule verify' for details`, 1);
  }
  return load;
}

/** The model the session last used (model_change or an assistant's model), if any. */
export function sessionModel(branch: readonly Entry[]): { model: string; contextWindow?: number; maxOutputTokens?: number } | undefined {
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i];
    if (e?.type === 'model_change') return { model: e.model, contextWindow: e.contextWindow, maxOutputTokens: e.maxOutputTokens };
    if (e?.type === 'assistant' && e.model) return { model: e.model };
  }
  return undefined;
}

/** --model / --window / --max-output override what the session recorded, which overrides the built-in table. */
export function modelFromFlags(flags: Flags, branch: readonly Entry[]): ModelInfo {
  const recorded = sessionModel(branch);
  const model = typeof flags.model === 'string' && flags.model.trim() !== '' ? flags.model.trim() : (recorded?.model ?? DEFAULT_CLI_MODEL);
  const sameModel = recorded?.model === model;
  return resolveModelInfo(model, {
    provider: sameModel ? { contextWindow: recorded?.contextWindow, maxOutputTokens: recorded?.maxOutputTokens } : undefined,
    override: { contextWindow: intFlag(flags, 'window'), maxOutputTokens: intFlag(flags, 'max-output') },
  });
}

/** Default compaction settings, validated against the model, with CAPSULE_AUTO_COMPACT from the environment. */
export function cliSettings(model: ModelInfo): ResolvedSettings {
  return resolveSettings({ raw: {}, env: process.env, model: { contextWindow: model.contextWindow, maxOutputTokens: model.maxOutputTokens } });
}

/**
 * Opens a session through the engine facade without a turn loop (compact, rewind): the model comes from the flags
 * and what the session recorded. A missing or locked file becomes a one-line CliError.
 */
export async function openOffline(path: string, model: (info: ModelInfo) => OfflineModel, flags: Flags): Promise<AgentSession> {
  try {
    return await AgentSession.openOffline({ sessionPath: path, model: (branch) => model(modelFromFlags(flags, branch)) });
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
}
