// The parts of one session the facade composes the engine from: store, archive, flight recorder, intents, token caches, snapshots.
import { resolve } from 'node:path';
import { TriggerState } from '../engine/compaction/triggers.js';
import type { Logger, ToolHost, ToolResult } from '../engine/ports.js';
import { sidecarPaths, type ModelConfig } from './agentConfig.js';
import { FileEvidenceArchive } from './evidenceArchive.js';
import { FlightRecorder } from './flightRecorder.js';
import { readIntents } from './intentsFile.js';
import type { JsonlSessionStore } from './jsonlStore.js';
import { CountsFile } from './countsFile.js';
import { TokenCaches } from './sessionBudget.js';
import { lastEntryId } from './sessionRewind.js';
import { FileSnapshots } from './snapshots/fileSnapshots.js';
import { cliKeyPath } from './snapshots/integrityKey.js';
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
  /** The session's persisted token counts (docs/behaviour.md#counted-once); flushed when the session closes. */
  readonly counts: CountsFile;
  readonly logger: Logger | undefined;
  readonly snapshots: FileSnapshots;
  /** The API keys this session holds, kept out of every command's environment. */
  readonly secrets: string[];
  /** Capsule's own files (docs/rewind.md#safety): the agent's writes refuse them and snapshots never record them. */
  readonly ownFiles: readonly string[];
}

/** The key of an OpenAI-compatible endpoint, if the config carries one. */
export function keysOf(model: ModelConfig): string[] {
  const c = model.chat;
  return 'baseURL' in c && c.apiKey !== undefined && c.apiKey !== '' ? [c.apiKey] : [];
}

type Dirs = {
  readonly archiveDir?: string;
  readonly flightLog?: string;
  readonly intentsFile?: string;
  readonly snapshotsDir?: string;
  readonly snapshotKeyFile?: string;
  readonly ownFiles?: readonly string[];
};

/** `provisional`: the chat's caches count without waiting for the tokenizer's table (docs/behaviour.md#cold-start). */
export async function openParts(
  path: string,
  dirs: Dirs,
  store: JsonlSessionStore,
  ownsStore: boolean,
  logger: Logger | undefined,
  fallbackTriggers?: unknown,
  roots: readonly string[] = [],
  provisional = false,
): Promise<Parts> {
  // The engine is composed over the whole tree: a tail-first store finishes indexing first (docs/loading.md).
  await store.whenIndexed();
  const paths = sidecarPaths(resolve(path));
  const intentsFile = dirs.intentsFile ?? paths.intentsFile;
  const saved = (await readIntents(intentsFile).catch(() => undefined)) ?? fallbackTriggers;
  const snapshotsDir = dirs.snapshotsDir ?? FileSnapshots.dirFor(resolve(path));
  const archiveDir = dirs.archiveDir ?? paths.archiveDir;
  const flightLog = dirs.flightLog ?? paths.flightLog;
  // The key that signs the change log is Capsule's too, wherever a setting put it.
  const keyFile = dirs.snapshotKeyFile ?? cliKeyPath();
  const counts = await CountsFile.load(resolve(path), store.header.id, { writable: !store.readOnly });
  const ownFiles = [
    ...sessionOwnedPaths(path, archiveDir, flightLog, snapshotsDir),
    resolve(intentsFile),
    resolve(keyFile),
    ...(dirs.ownFiles ?? []).map((p) => resolve(p)),
  ];
  return {
    store,
    ownsStore,
    archive: new FileEvidenceArchive(archiveDir),
    recorder: new FlightRecorder(flightLog, logger),
    triggers: saved === undefined ? new TriggerState() : TriggerState.fromJSON(saved),
    intentsFile,
    intentsSaved: saved !== undefined && saved !== fallbackTriggers,
    caches: new TokenCaches({ counts, provisional }),
    counts,
    logger,
    snapshots: new FileSnapshots({
      dir: snapshotsDir,
      roots,
      leaf: () => lastEntryId(store),
      ownFiles: () => ownFiles,
      keyFile,
      ...(logger === undefined ? {} : { logger }),
    }),
    secrets: [],
    ownFiles,
  };
}
