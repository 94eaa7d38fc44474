// `capsule import <file> -o <session.jsonl>`: turns saved OpenAI chat-completions messages into a Capsule session.
import { randomBytes, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { idSource } from '../../engine/ids.js';
import { importOpenAIMessages, parseOpenAIMessages } from '../../engine/transcript/importOpenAI.js';
import { repairImported } from '../../engine/transcript/importRepair.js';
import { JsonlSessionStore } from '../../node/jsonlStore.js';
import { readRegularFile } from '../../node/regularFile.js';
import { CliError, type ParsedCli } from '../args.js';

export const IMPORT_USAGE = 'capsule import <messages.json|messages.jsonl> -o <session.jsonl> [--model M]';
/** Conversations larger than this are almost certainly not a message file. */
const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

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
  let size: number;
  try {
    size = (await stat(input)).size;
  } catch {
    throw new CliError(`input file not found: ${input}`, 1);
  }
  if (size > MAX_IMPORT_BYTES) throw new CliError(`input file is ${size} bytes; the import limit is ${MAX_IMPORT_BYTES}`, 1);
  if (await exists(output)) throw new CliError(`refusing to overwrite existing session ${output}; choose a new -o path`, 1);

  let text: string;
  try {
    text = (await readRegularFile(input, 'input file')).toString('utf8');
  } catch (e) {
    throw new CliError(e instanceof Error ? e.message : String(e), 1);
  }
  const parsed = parseOpenAIMessages(text);
  if (!parsed.ok) throw new CliError(`${input}: ${parsed.error}`, 1);
  const sessionId = randomUUID();
  const ids = idSource((n) => randomBytes(n));
  const result = importOpenAIMessages(parsed.messages, {
    sessionId,
    cwd: process.cwd(),
    now: new Date().toISOString(),
    ids,
    model: typeof cli.flags.model === 'string' ? cli.flags.model : undefined,
  });
  // Never write a session our own verify calls invalid: repair what can be repaired, refuse the rest.
  const fixed = repairImported(result.entries, (p) => ids.next(p));
  const firstError = fixed.errors[0];
  if (firstError !== undefined) throw new CliError(`${input}: not imported, the conversation cannot be made a valid session (${firstError.message}); nothing was written`, 1);
  const store = await JsonlSessionStore.open(output, { create: { id: sessionId, cwd: result.header.cwd, title: result.header.title } });
  try {
    for (const e of fixed.entries) await store.append(e);
  } finally {
    await store.close();
  }
  for (const w of result.warnings) out(`warning: ${w}`);
  for (const r of fixed.repairs) out(`repaired: ${r}`);
  out(`imported ${parsed.messages.length} messages as ${fixed.entries.length} entries into ${output}`);
  return 0;
}
