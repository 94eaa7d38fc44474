// `capsule import <file> -o <session.jsonl>`: turns saved OpenAI chat-completions messages into a Capsule session.
import { randomBytes, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { idSource } from '../../engine/ids.js';
import { importOpenAIMessages, parseOpenAIMessages } from '../../engine/transcript/importOpenAI.js';
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
  const result = importOpenAIMessages(parsed.messages, {
    sessionId,
    cwd: process.cwd(),
    now: new Date().toISOString(),
    ids: idSource((n) => randomBytes(n)),
    model: typeof cli.flags.model === 'string' ? cli.flags.model : undefined,
  });
  const store = await JsonlSessionStore.open(output, { create: { id: sessionId, cwd: result.header.cwd, title: result.header.title } });
  try {
    for (const e of result.entries) await store.append(e);
  } finally {
    await store.close();
  }
  for (const w of result.warnings) out(`warning: ${w}`);
  out(`imported ${parsed.messages.length} messages as ${result.entries.length} entries into ${output}`);
  return 0;
}
