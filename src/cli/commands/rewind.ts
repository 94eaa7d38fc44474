// `capsule rewind <session> <ck_…>`: moves the session's leaf to a checkpoint with the same operation as the tree's "Rewind Here".
import { resolve } from 'node:path';
import { rewindTo } from '../../engine/transcript/rewind.js';
import { JsonlSessionStore } from '../../node/jsonlStore.js';
import { nodeClock, nodeIds } from '../../node/nodeClock.js';
import { CliError, type ParsedCli } from '../args.js';

export const REWIND_USAGE = 'capsule rewind <session.jsonl> <ck_…>';

export async function rewindCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [file, checkpointId] = cli.positionals;
  if (file === undefined || checkpointId === undefined) throw new CliError(`missing ${file === undefined ? 'session file' : 'checkpoint id'}: ${REWIND_USAGE}`);
  if (!/^ck_[\w-]+$/.test(checkpointId)) throw new CliError(`'${checkpointId}' is not a checkpoint id (they look like ck_…): ${REWIND_USAGE}`);
  const path = resolve(file);
  let store: JsonlSessionStore;
  try {
    store = await JsonlSessionStore.open(path);
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
  try {
    const r = await rewindTo(store, checkpointId, { ids: nodeIds, clock: nodeClock });
    if (!r.ok) throw new CliError(r.error, 1);
    out(`Rewound to ${r.checkpointId}: the leaf is now ${r.targetId}${r.adjusted ? ' (moved off an unanswered tool call)' : ''}; later entries stay in the file on their branch.`);
    return 0;
  } finally {
    await store.close();
  }
}
