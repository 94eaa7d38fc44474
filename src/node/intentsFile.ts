// Pending compaction intents beside the session file, so a restart (extension or CLI) keeps what the last run meant to do.
import { parseJsonText } from '../engine/jsonText.js';
import { readRegularFile } from './regularFile.js';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errCode } from './fsUtil.js';

/** The saved TriggerState JSON, or undefined when there is none yet. A damaged file reads as none: it only loses intents. */
export async function readIntents(path: string): Promise<unknown> {
  let text: string;
  try {
    text = (await readRegularFile(path, 'intents file')).toString('utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return parseJsonText(text);
  } catch {
    return undefined;
  }
}

/** Replaces the file in one rename, so a crash leaves the old intents or the new ones, never half a file. */
export async function writeIntents(path: string, state: unknown): Promise<void> {
  const tmp = `${path}.tmp`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(tmp, `${JSON.stringify(state)}\n`, 'utf8');
  await rename(tmp, path);
}
