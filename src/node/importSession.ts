// Writes an imported transcript as a new session file, shared by `capsule import` and the palette command.
import { stat } from 'node:fs/promises';
import type { TranscriptImport } from '../engine/import/importTranscript.js';
import { JsonlSessionStore } from './jsonlStore.js';

/** Transcripts larger than this are almost certainly not one conversation. */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;

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

/** Creates `path` (which must not exist) with the imported header and entries. */
export async function writeImportedSession(path: string, result: TranscriptImport): Promise<void> {
  const store = await JsonlSessionStore.open(path, { create: { id: result.header.id, cwd: result.header.cwd, title: result.header.title } });
  try {
    for (const e of result.entries) await store.append(e);
  } finally {
    await store.close();
  }
}
