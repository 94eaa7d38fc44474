// `capsule export <session.jsonl> [ck_…] -o <file.capsule.md>`: writes a checkpoint's capsule as a portable file (docs/behaviour.md#portable).
import { CapsuleFileError, exportCapsuleFromSession } from '../../node/capsuleFiles.js';
import { CliError, type ParsedCli } from '../args.js';
import { EXPORT_USAGE } from '../usage.js';

export { EXPORT_USAGE };

export async function exportCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [session, positionalCheckpoint, extra] = cli.positionals;
  if (!session) throw new CliError(`missing session file: ${EXPORT_USAGE}`);
  if (extra !== undefined) throw new CliError(`unexpected argument '${extra}': ${EXPORT_USAGE}`);
  const flagCheckpoint = typeof cli.flags.checkpoint === 'string' ? cli.flags.checkpoint : undefined;
  if (positionalCheckpoint !== undefined && flagCheckpoint !== undefined && positionalCheckpoint !== flagCheckpoint) {
    throw new CliError(`two different checkpoints given ('${positionalCheckpoint}' and --checkpoint '${flagCheckpoint}')`);
  }
  const checkpointId = positionalCheckpoint ?? flagCheckpoint;
  if (checkpointId !== undefined && !checkpointId.startsWith('ck_')) {
    throw new CliError(`'${checkpointId}' is not a checkpoint id (they start with ck_): ${EXPORT_USAGE}`);
  }
  const target = typeof cli.flags.out === 'string' ? cli.flags.out : undefined;
  if (!target) throw new CliError(`missing -o <file.capsule.md>: ${EXPORT_USAGE}`);
  const title = typeof cli.flags.title === 'string' ? cli.flags.title : undefined;
  try {
    const r = await exportCapsuleFromSession(session, {
      out: target,
      ...(checkpointId === undefined ? {} : { checkpointId }),
      ...(title === undefined ? {} : { title }),
      force: cli.flags.force === true,
    });
    if (r.meta.quality === 'degraded') out('warning: this capsule is degraded (built without the model summary)');
    out(`exported capsule ${r.meta.sourceCheckpoint ?? r.capsule.checkpointId} as ${r.meta.id} (${r.meta.quality}, ${r.meta.tokens} tokens) to ${target}`);
    return 0;
  } catch (e) {
    if (e instanceof CapsuleFileError) throw new CliError(e.message, 1);
    throw e;
  }
}
