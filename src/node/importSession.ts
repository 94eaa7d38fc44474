// Writes an imported transcript as a new session file, shared by `capsule import` and the palette command.
import { stat } from 'node:fs/promises';
import type { TranscriptImport } from '../engine/import/importTranscript.js';
import { repairImported } from '../engine/transcript/importRepair.js';
import type { Entry } from '../engine/transcript/schema.js';
import { SessionTree } from '../engine/transcript/tree.js';
import { verifySession } from '../engine/transcript/verify.js';
import { ImportRefused, ImportWriter } from './importWriter.js';

export { ImportRefused } from './importWriter.js';

/** Transcripts larger than this are almost certainly not one conversation. */
const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

/** One line when the file is missing or too large to be a transcript; undefined when it may be read. */
export async function importFileProblem(path: string): Promise<string | undefined> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return `input file not found: ${path}`;
  }
  return size > MAX_IMPORT_BYTES ? `input file is ${size} bytes; the import limit is ${MAX_IMPORT_BYTES}` : undefined;
}

function isChain(entries: readonly Entry[]): boolean {
  return entries.every((e, i) => e.parentId === (i === 0 ? null : (entries[i - 1]?.id ?? null)));
}

/**
 * Never writes a session our own verify calls invalid. A single-chain conversation (most formats) is repaired —
 * calls left open get "interrupted" results, stray results go — and each change is returned for the user; a
 * branched one (Claude Code sidechains) must verify as it is. Otherwise ImportRefused, and no file is created.
 */
function validImport(
  entries: readonly Entry[],
  newId: (prefix: string) => string,
): { readonly entries: readonly Entry[]; readonly repairs: readonly string[] } {
  if (isChain(entries)) {
    const fixed = repairImported(entries, newId);
    const first = fixed.errors[0];
    if (first !== undefined) throw new ImportRefused(`the conversation cannot be made a valid session (${first.message}); nothing was written`);
    return { entries: fixed.entries, repairs: fixed.repairs };
  }
  const first = verifySession(SessionTree.from(entries), []).issues.find((i) => i.severity === 'error');
  if (first !== undefined) throw new ImportRefused(`the conversation is not a valid session (${first.message}); nothing was written`);
  return { entries, repairs: [] };
}

/**
 * Creates `path` (which must not exist) with the imported header and the valid entries; returns the repairs made.
 * The session is written to a temporary file in the same folder and linked into place only when complete, so a
 * refused import (a line over the limit, a full disk) leaves nothing at `path`, and a retry is not refused as an
 * "existing session". Linking, unlike rename, never replaces a session someone created there meanwhile.
 */
export async function writeImportedSession(path: string, result: TranscriptImport, newId: (prefix: string) => string): Promise<readonly string[]> {
  const valid = validImport(result.entries, newId);
  const w = await ImportWriter.create(path);
  const header = { id: result.header.id, cwd: result.header.cwd, ...(result.header.title === undefined ? {} : { title: result.header.title }) };
  try {
    for (const e of valid.entries) {
      w.entry(e);
      if (w.due) await w.flush(() => header);
    }
    await w.commit(path, header);
  } finally {
    await w.abort();
  }
  return valid.repairs;
}
