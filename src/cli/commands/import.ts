// `capsule import <file> -o <session.jsonl>`: detects the transcript's format (or takes --from), converts it, and reports what was kept, inferred and dropped.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { ImportError, isImportFormat } from '../../engine/import/importTranscript.js';
import { FORMAT_NAMES, IMPORT_FORMATS, formatImportReport } from '../../engine/import/report.js';
import { ImportRefused, importFileProblem } from '../../node/importSession.js';
import { importSessionFile, type SessionImport } from '../../node/importStream.js';
import { NotRegularFileError } from '../../node/regularFile.js';
import { nodeIds } from '../../node/nodeClock.js';
import { errCode, oneLine } from '../../node/fsUtil.js';
import { CliError, type ParsedCli } from '../args.js';
import { IMPORT_USAGE } from '../usage.js';

export { IMPORT_USAGE };

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export async function importCommand(cli: ParsedCli, out: (s: string) => void): Promise<number> {
  const input = cli.positionals[0];
  const output = typeof cli.flags.out === 'string' ? cli.flags.out : undefined;
  if (!input) throw new CliError(`missing input file: ${IMPORT_USAGE}`);
  if (!output) throw new CliError(`missing -o <session.jsonl>: ${IMPORT_USAGE}`);
  const from = cli.flags.from;
  if (from !== undefined && (typeof from !== 'string' || !isImportFormat(from))) {
    throw new CliError(`--from must be one of ${IMPORT_FORMATS.join(', ')} (got '${String(from)}')`);
  }
  const problem = await importFileProblem(input);
  if (problem !== undefined) throw new CliError(problem, 1);
  if (await exists(output)) throw new CliError(`refusing to overwrite existing session ${output}; choose a new -o path`, 1);

  const sessionId = randomUUID();
  const ids = nodeIds;
  let result: SessionImport;
  try {
    result = await importSessionFile(input, output, {
      sessionId,
      cwd: process.cwd(),
      now: new Date().toISOString(),
      ids,
      ...(typeof cli.flags.model === 'string' ? { model: cli.flags.model } : {}),
      ...(from !== undefined && isImportFormat(from) ? { from } : {}),
    });
  } catch (err) {
    if (err instanceof ImportError) throw new CliError(`${input}: ${err.message}`, 1);
    if (err instanceof ImportRefused) throw new CliError(`${input}: not imported, ${err.message}`, 1);
    // The input could not be opened or read (a pipe, a folder, no permission).
    if (err instanceof NotRegularFileError || errCode(err) !== '') throw new CliError(oneLine(err), 1);
    throw err;
  }
  const repairs = result.repairs;
  const k = result.report.kept;
  const messages = k.userTurns + k.assistantTurns + k.toolResults + k.systemMessages;
  out(`imported ${messages} messages (${FORMAT_NAMES[result.report.format]}) as ${result.entries} entries into ${output}`);
  for (const line of formatImportReport(result.report)) out(`  ${line}`);
  for (const r of repairs) out(`repaired: ${r}`);
  return 0;
}
