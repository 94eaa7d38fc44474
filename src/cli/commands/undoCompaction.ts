// `capsule undo-compaction <session.jsonl> <ck_…> [--redo]`: the model input is built as if that capsule did not exist (or with it again).
import { CliError, type ParsedCli } from '../args.js';
import { cliSettings } from '../session.js';
import { openOffline } from '../offline.js';
import { UNDO_COMPACTION_USAGE } from '../usage.js';

export { UNDO_COMPACTION_USAGE };

export async function undoCompactionCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [path, ref] = cli.positionals;
  if (!path) throw new CliError(`missing session file: ${UNDO_COMPACTION_USAGE}`);
  if (!ref) throw new CliError(`missing compaction checkpoint id: ${UNDO_COMPACTION_USAGE}`);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(ref)) throw new CliError(`'${ref}' is not a checkpoint id (ck_…): ${UNDO_COMPACTION_USAGE}`);
  const action = cli.flags.redo === true ? 'redo' : 'undo';
  // No model is called: the settings decide whether the undone input fits the hard limit.
  const session = await openOffline(path, (info) => ({ model: info, provider: 'cli', resolved: cliSettings(info) }), cli.flags);
  try {
    const before = session.budget().effectiveTokens;
    const r = await session.undoCompaction(ref, action);
    if (!r.ok) throw new CliError(r.error.replace('this chat', path), 1);
    const after = session.budget();
    if (cli.flags.json === true) {
      out(
        JSON.stringify(
          {
            session: path,
            action,
            checkpointId: r.capsule.checkpointId,
            capsuleId: r.capsule.id,
            entryId: r.entry.id,
            tokensBefore: before,
            tokensAfter: after.effectiveTokens,
            hardLimit: after.hardLimit,
          },
          null,
          2,
        ),
      );
    } else {
      const what = action === 'undo' ? 'undone: the next request is built as if its capsule did not exist' : 'redone: its capsule is in force again';
      out(
        `Compaction ${r.capsule.checkpointId} ${what} (${before} → ${after.effectiveTokens} tokens of ${after.hardLimit}). Nothing was deleted; ${action === 'undo' ? 'redo with --redo' : 'undo it again any time'}.`,
      );
    }
    return 0;
  } finally {
    await session.close();
  }
}
