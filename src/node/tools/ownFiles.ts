// Capsule's own files (the session, its archive, locks, flight records, torn-tail and counts sidecars, snapshot store, settings it writes) are off limits to the agent's write tools and never restored.
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { lockDirPath, ownerPath } from '../sessionLock.js';
import { corruptSidecarPath } from '../tornTail.js';
import { countsSidecarPath } from '../countsFile.js';
import { isInside } from './paths.js';
import { ToolError } from './types.js';

/** The folder the CLI keeps its sessions in when none is given: everything in it belongs to Capsule. */
const CAPSULE_FOLDER = '.capsule';

/** Every path a session owns, given where its archive, flight log and file snapshots live (the snapshot store wherever it is: `<session>.files/` by default). */
export function sessionOwnedPaths(sessionPath: string, archiveDir: string, flightLog: string, snapshotsDir?: string): string[] {
  const abs = resolve(sessionPath);
  const store = snapshotsDir ?? `${abs.replace(/\.jsonl$/i, '')}.files`;
  const owned = [
    abs,
    corruptSidecarPath(abs),
    countsSidecarPath(abs),
    lockDirPath(abs),
    ownerPath(abs),
    resolve(archiveDir),
    resolve(flightLog),
    resolve(store),
  ];
  if (basename(dirname(abs)) === CAPSULE_FOLDER) owned.push(dirname(abs));
  return owned;
}

/** `p` with its folder's symlinks resolved (the file itself may not exist), so a link to the session is caught too. */
export async function realish(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    const parent = dirname(p);
    if (parent === p) return p;
    return join(await realish(parent), basename(p));
  }
}

/** Throws the tool error when `real` (a resolved tool path) is, or lies inside, one of Capsule's own files. */
export async function refuseOwnFiles(owned: readonly string[], real: string, display: string, tool: string): Promise<void> {
  for (const p of owned) {
    const r = await realish(p);
    if (isInside(r, real)) {
      throw new ToolError(
        `${tool} refused: "${display}" is one of Capsule's own files (the chat's session, archive, lock, flight record, file snapshots or a settings file Capsule writes). Changing it could destroy this chat or its rewind; it is not a workspace file to edit.`,
      );
    }
  }
}
