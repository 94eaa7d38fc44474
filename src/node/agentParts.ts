// The parts of one session the facade composes the engine from: store, archive, flight recorder, intents, token caches, snapshots.
import { resolve } from 'node:path';
import { TriggerState } from '../engine/compaction/triggers.js';
import type { Logger, ToolHost, ToolResult } from '../engine/ports.js';
import { sidecarPaths, type ModelConfig } from './agentConfig.js';
import { FileEvidenceArchive } from './evidenceArchive.js';
import { FlightRecorder } from './flightRecorder.js';
import { readIntents } from './intentsFile.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { TokenCaches } from './sessionBudget.js';
import { lastEntryId } from './sessionRewind.js';
import { FileSnapshots } from './snapshots/fileSnapshots.js';
import { sessionOwnedPaths } from './tools/ownFiles.js';

export const NO_TOOLS: ToolHost = {
  schemas: () => [],
  run: async (name): Promise<ToolResult> => ({ isError: true, content: `No tools are available in this session (asked for "${name}").` }),
};

export interface Parts {
  readonly store: JsonlSessionStore;
  readonly ownsStore: boolean;
  readonly archive: FileEvidenceArchive;
  readonly recorder: FlightRecorder;
  readonly triggers: TriggerState;
  readonly intentsFile: string;
  /** An intents file was there when the session opened (or was written since). */
  intentsSaved: boolean;
  readonly caches: TokenCaches;
  readonly logger: Logger | undefined;
  readonly snapshots: FileSnapshots;
  /** The API keys this session holds, kept out of every command's environment. */
  readonly secrets: string[];
}

/** The key of an OpenAI-compatible endpoint, if the config carries one. */
export function keysOf(model: ModelConfig): string[] {
  const c = model.chat;
  return 'baseURL' in c && c.apiKey !== undefined && c.apiKey !== '' ? [c.apiKey] : [];
}

type Dirs = { readonly archiveDir?: string; readonly flightLog?: string; readonly intentsFile?: string; readonly snapshotsDir?: string };

export async function openParts(path: string, dirs: Dirs, store: JsonlSessionStore, ownsStore: boolean, logger: Logger | undefined, fallbackTriggers?: unknown, roots: readonly string[] = []): Promise<Parts> {
  // The engine is composed over the whole tree: a tail-first store finishes indexing first (docs/loading.md).
  await store.whenIndexed();
  const paths = sidecarPaths(resolve(path));
  const intentsFile = dirs.intentsFile ?? paths.intentsFile;
  const saved = (await readIntents(intentsFile).catch(() => undefined)) ?? fallbackTriggers;
  return {
    store,
    ownsStore,
    archive: new FileEvidenceArchive(dirs.archiveDir ?? paths.archiveDir),
    recorder: new FlightRecorder(dirs.flightLog ?? paths.flightLog, logger),
    triggers: saved === undefined ? new TriggerState() : TriggerState.fromJSON(saved),
    intentsFile,
    intentsSaved: saved !== undefined && saved !== fallbackTriggers,
    caches: new TokenCaches(),
    logger,
    snapshots: new FileSnapshots({
      dir: dirs.snapshotsDir ?? FileSnapshots.dirFor(resolve(path)),
      roots,
      leaf: () => lastEntryId(store),
      // The session and its sidecars are Capsule's, not the agent's effects: checkpoints never keep them.
      ownFiles: () => [...sessionOwnedPaths(path, dirs.archiveDir ?? paths.archiveDir, dirs.flightLog ?? paths.flightLog), intentsFile],
      ...(logger === undefined ? {} : { logger }),
    }),
    secrets: [],
  };
}
