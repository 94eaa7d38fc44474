// `capsule load <file.capsule.md> --new-session <s.jsonl> | --into <s.jsonl>`: validates a capsule file and seeds a session with it.
import { CapsuleFileError, loadCapsuleIntoNewSession, loadCapsuleIntoSession, readCapsuleFile } from '../../node/capsuleFiles.js';
import { CliError, type ParsedCli } from '../args.js';
import { LOAD_USAGE } from '../usage.js';

export { LOAD_USAGE };

function stringFlag(cli: ParsedCli, name: string): string | undefined {
  const v = cli.flags[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export async function loadCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const [file, extra] = cli.positionals;
  if (!file) throw new CliError(`missing capsule file: ${LOAD_USAGE}`);
  if (extra !== undefined) throw new CliError(`unexpected argument '${extra}': ${LOAD_USAGE}`);
  const newSession = stringFlag(cli, 'new-session');
  const into = stringFlag(cli, 'into');
  if ((newSession === undefined) === (into === undefined)) throw new CliError(`give exactly one of --new-session or --into: ${LOAD_USAGE}`);
  try {
    const capsule = await readCapsuleFile(file, { allowModified: cli.flags.anyway === true });
    if (capsule.modified) out('warning: the capsule was edited after export (checksum mismatch); loading it anyway as asked');
    const what = `capsule ${capsule.meta.id} ${JSON.stringify(capsule.meta.title)} (${capsule.meta.quality}, ${capsule.meta.tokens} tokens)`;
    if (newSession !== undefined) {
      const r = await loadCapsuleIntoNewSession(capsule, newSession, { cwd: stringFlag(cli, 'workspace') ?? process.cwd() });
      out(`loaded ${what} into new session ${r.sessionId} at ${newSession} (checkpoint ${r.checkpoint.checkpointId}); the next request starts from it`);
    } else if (into !== undefined) {
      const r = await loadCapsuleIntoSession(capsule, into);
      out(`loaded ${what} into ${into} as a ${r.mode} capsule (checkpoint ${r.checkpoint.checkpointId}); earlier history is kept`);
    }
    return 0;
  } catch (e) {
    if (e instanceof CapsuleFileError) throw new CliError(e.message, 1);
    throw e;
  }
}
